// A node's copy of the publications (src/catalog/mirror.ts): taken only whole, every file the manifest
// names in the store at the size it names; a copy cut short is completed, never served.

import { expect } from 'chai';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PublicationMirror } from '../../src/catalog/mirror.js';
import { FolderStore } from '../../src/storage/object-store.js';
import { tempDir } from '../support/app.js';

const WATERMARK = '2026-11-02T06:00:00.000Z';
const DOCUMENTS = '{"job_id":"a"}\n{"job_id":"b"}\n';

describe('the publication mirror', () => {
  let replica: string;
  let store: FolderStore;

  beforeEach(async () => {
    const root = await tempDir('mirror');
    const publisher = join(root, 'publisher');
    replica = join(root, 'replica');
    store = new FolderStore(join(root, 'store'));
    const dir = join(publisher, 'catalog', WATERMARK);
    await mkdir(join(dir, 'serving'), { recursive: true });
    await mkdir(join(dir, 'trends'), { recursive: true });
    await writeFile(join(dir, 'serving', 'documents.jsonl'), DOCUMENTS);
    await writeFile(join(dir, 'trends', 'versions.parquet'), 'PAR1');
    await writeFile(join(dir, 'jobs.parquet'), 'PAR1');
    const files = {
      'jobs.parquet': { rows: -1, bytes: 4 },
      'serving/documents.jsonl': { rows: -1, bytes: DOCUMENTS.length },
      'trends/versions.parquet': { rows: -1, bytes: 4 },
    };
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ watermark: WATERMARK, files }));
    await new PublicationMirror(store, publisher).push(`catalog/${WATERMARK}/`, [...Object.keys(files), 'manifest.json']);
  });

  const fetchError = async () => String(await new PublicationMirror(store, replica).fetchCatalog(WATERMARK).catch((e: unknown) => e));

  it('copies a publication whole, the manifest last, and completes a copy cut short', async () => {
    const mirror = new PublicationMirror(store, replica);
    const dir = (await mirror.fetchCatalog(WATERMARK))!;
    expect(await readFile(join(dir, 'serving', 'documents.jsonl'), 'utf8')).to.equal(DOCUMENTS);
    // A copy cut short (a node killed mid-copy) is fetched again, file by file, by size.
    await writeFile(join(dir, 'serving', 'documents.jsonl'), DOCUMENTS.slice(0, 5));
    expect(await new PublicationMirror(store, replica).fetchCatalog(WATERMARK)).to.equal(dir);
    expect(await readFile(join(dir, 'serving', 'documents.jsonl'), 'utf8')).to.equal(DOCUMENTS);
  });

  it('refuses a publication whose file in the store has another size than its manifest says, or is missing', async () => {
    await store.put(`catalog/${WATERMARK}/serving/documents.jsonl`, '{"job_id":"a"}\n');
    expect(await fetchError()).to.match(/documents\.jsonl is 15 bytes where its manifest says 30: the publication is not whole/);
    await store.delete([`catalog/${WATERMARK}/jobs.parquet`]);
    expect(await fetchError()).to.match(/jobs\.parquet is missing: the publication is not whole/);
  });

  it('copies an older publication whose serving files and versions the publisher pruned, without them', async () => {
    await new PublicationMirror(store, await tempDir('publisher-copy')).pruneServing(0);
    expect((await store.list(`catalog/${WATERMARK}/`)).map((o) => o.key)).to.deep.equal([
      `catalog/${WATERMARK}/jobs.parquet`,
      `catalog/${WATERMARK}/manifest.json`,
    ]);
    const dir = (await new PublicationMirror(store, replica).fetchCatalog(WATERMARK))!;
    expect(await readFile(join(dir, 'jobs.parquet'), 'utf8')).to.equal('PAR1');
    // A folder pruned in part is not a pruned folder: the copy is refused.
    await store.put(`catalog/${WATERMARK}/trends/texts.parquet`, 'PAR1');
    expect(await fetchError()).to.match(/trends\/versions\.parquet is missing: the publication is not whole/);
  });
});
