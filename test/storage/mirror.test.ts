// A node's copy of the publications (src/catalog/mirror.ts): JSON Lines files travel compressed and a
// copy is taken only whole, every file the manifest names at the size it names.

import { expect } from 'chai';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { PublicationMirror } from '../../src/catalog/mirror.js';
import { FolderStore } from '../../src/storage/object-store.js';
import { tempDir } from '../support/app.js';

const WATERMARK = '2026-11-02T06:00:00.000Z';
const DOCUMENTS = '{"job_id":"a"}\n{"job_id":"b"}\n';

describe('the publication mirror', () => {
  let publisher: string;
  let replica: string;
  let store: FolderStore;

  /** Publishes a manifest naming serving/documents.jsonl and jobs.parquet from the publisher's folder. */
  async function publishFiles(): Promise<void> {
    const dir = join(publisher, 'catalog', WATERMARK);
    await mkdir(join(dir, 'serving'), { recursive: true });
    await writeFile(join(dir, 'serving', 'documents.jsonl'), DOCUMENTS);
    await writeFile(join(dir, 'jobs.parquet'), 'PAR1');
    const files = { 'jobs.parquet': { rows: -1, bytes: 4 }, 'serving/documents.jsonl': { rows: -1, bytes: DOCUMENTS.length } };
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ watermark: WATERMARK, files }));
    await new PublicationMirror(store, publisher).push(`catalog/${WATERMARK}/`, [...Object.keys(files), 'manifest.json']);
  }

  beforeEach(async () => {
    const root = await tempDir('mirror');
    publisher = join(root, 'publisher');
    replica = join(root, 'replica');
    store = new FolderStore(join(root, 'store'));
    await publishFiles();
  });

  it('stores JSON Lines gzip-compressed and copies them back as they were', async () => {
    const keys = (await store.list('catalog/')).map((o) => o.key);
    expect(keys).to.deep.equal([`catalog/${WATERMARK}/jobs.parquet`, `catalog/${WATERMARK}/manifest.json`, `catalog/${WATERMARK}/serving/documents.jsonl.gz`]);
    const dir = await new PublicationMirror(store, replica).fetchCatalog(WATERMARK);
    expect(await readFile(join(dir!, 'serving', 'documents.jsonl'), 'utf8')).to.equal(DOCUMENTS);
    expect(await readFile(join(dir!, 'jobs.parquet'), 'utf8')).to.equal('PAR1');
  });

  it('refuses a copy whose compressed file decompresses to another size than its manifest says', async () => {
    await store.put(`catalog/${WATERMARK}/serving/documents.jsonl.gz`, gzipSync('{"job_id":"a"}\n'));
    const error = await new PublicationMirror(store, replica).fetchCatalog(WATERMARK).catch((e: unknown) => e);
    expect(String(error)).to.match(/documents\.jsonl\.gz decompresses to another size .* not whole/);
  });

  it('refuses a copy whose compressed file is not gzip data, and one missing a file', async () => {
    await store.put(`catalog/${WATERMARK}/serving/documents.jsonl.gz`, 'not gzip');
    expect(String(await new PublicationMirror(store, replica).fetchCatalog(WATERMARK).catch((e: unknown) => e))).to.match(/incorrect header check/);
    await store.delete([`catalog/${WATERMARK}/jobs.parquet`]);
    expect(String(await new PublicationMirror(store, replica).fetchCatalog(WATERMARK).catch((e: unknown) => e))).to.match(/jobs\.parquet is missing: the publication is not whole/);
  });
});
