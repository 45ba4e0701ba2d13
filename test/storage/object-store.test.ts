import { expect } from 'chai';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FolderStore, type ObjectStore } from '../../src/storage/object-store.js';
import { tempDir } from '../support/app.js';
import { startS3, type TestS3 } from '../support/s3.js';

async function text(store: ObjectStore, key: string, range?: { start: number; end: number }): Promise<string | null> {
  const body = await store.read(key, range);
  if (!body) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

// The same behaviour from the local folder and the S3-compatible server: the service cannot tell them apart.
describe('object stores', function () {
  this.timeout(60_000);
  let s3: TestS3;
  let dir: string;
  before(async () => {
    s3 = await startS3();
    dir = await tempDir('objects');
  });
  after(async () => {
    await s3.stop();
    await rm(dir, { recursive: true, force: true });
  });

  for (const kind of ['folder', 's3'] as const) {
    describe(kind, () => {
      let store: ObjectStore;
      let scratch: string;
      before(async () => {
        scratch = join(dir, `${kind}-scratch`);
        await mkdir(scratch, { recursive: true });
        store = kind === 'folder' ? new FolderStore(join(dir, `${kind}-store`)) : s3.store(`contract-${kind}`);
      });

      it('answers null for what it does not hold', async () => {
        expect(await store.get('catalog/LATEST')).to.equal(null);
        expect(await store.size('catalog/LATEST')).to.equal(null);
        expect(await store.read('catalog/LATEST')).to.equal(null);
        expect(await store.getFile('catalog/LATEST', join(scratch, 'none'))).to.equal(false);
        expect(await store.list('catalog/')).to.deep.equal([]);
      });

      it('keeps objects by key, lists them by prefix in key order, and deletes them', async () => {
        await store.put('catalog/LATEST', 'b\n');
        await store.put('catalog/b/manifest.json', '{}');
        await store.put('catalog/a/jobs.parquet', Buffer.from([1, 2, 3]));
        await store.put('exports/x/f', 'other');
        expect((await store.get('catalog/LATEST'))!.toString()).to.equal('b\n');
        expect(await store.list('catalog/')).to.deep.equal([
          { key: 'catalog/LATEST', size: 2 },
          { key: 'catalog/a/jobs.parquet', size: 3 },
          { key: 'catalog/b/manifest.json', size: 2 },
        ]);
        expect((await store.list('catalog/a/')).map((o) => o.key)).to.deep.equal(['catalog/a/jobs.parquet']);
        await store.put('catalog/LATEST', 'c\n');
        expect((await store.get('catalog/LATEST'))!.toString()).to.equal('c\n');
        await store.delete([
          'catalog/LATEST',
          'catalog/a/jobs.parquet',
          'catalog/b/manifest.json',
          'exports/x/f',
          'exports/x/gone-already',
        ]);
        expect(await store.list('')).to.deep.equal([]);
      });

      it('stores files, large ones in parts, and reads them whole or by byte range', async () => {
        const big = Buffer.alloc(40 * 2 ** 20, 7);
        big.write('hello', 1000);
        await writeFile(join(scratch, 'big'), big);
        await store.putFile('exports/e/big', join(scratch, 'big'));
        expect(await store.size('exports/e/big')).to.equal(big.length);
        expect(await text(store, 'exports/e/big', { start: 1000, end: 1004 })).to.equal('hello');
        expect(await store.getFile('exports/e/big', join(scratch, 'copy', 'big'))).to.equal(true);
        expect((await readFile(join(scratch, 'copy', 'big'))).equals(big)).to.equal(true);
        await store.delete(['exports/e/big']);
      });
    });
  }
});
