import { expect } from 'chai';
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import { snapshotDir } from '../../src/catalog/layout.js';
import { publish } from '../../src/catalog/publish/publish.js';
import { QueryEngine } from '../../src/db/engine.js';
import { jobsSnapshotOpener, type JobsSnapshot } from '../../src/jobs/snapshot.js';
import { cutoffOf, writeDay } from '../support/delivery.js';
import { tempDir } from '../support/folders.js';

describe('a snapshot opened for serving', function () {
  this.timeout(60_000);
  let engine: QueryEngine;
  let dirs: { snapshotsDir: string; dataDir: string; cacheDir: string };
  const watermark = cutoffOf(1);

  before(async () => {
    const root = await tempDir('snapshot-open');
    dirs = { snapshotsDir: join(root, 'snapshots'), dataDir: join(root, 'data'), cacheDir: join(root, 'cache') };
    const day = await writeDay(join(root, 'delivery'), 1, {
      postings: [{ source: 'greenhouse', board: 'northwind', id: '1', opening: 'A' }],
    });
    await publish({ input: day, ...dirs, quiet: true, memoryLimit: '1GB' });
    engine = await QueryEngine.open({ timeoutMs: 30_000 });
  });
  after(() => engine.close());

  const databases = async () =>
    (await engine.rows('SELECT database_name FROM duckdb_databases() WHERE NOT internal')).map(([name]) => name as string);
  const open = (dir: string) =>
    jobsSnapshotOpener(engine, dirs.cacheDir, pino({ level: 'silent' }))(dir, watermark) as Promise<JobsSnapshot>;

  it('keeps its tables in a database of its own, which closing it drops whole', async () => {
    const before = await databases();
    const snapshot = await open(snapshotDir(dirs.snapshotsDir, watermark));
    const [database] = (await databases()).filter((name) => !before.includes(name));
    expect(snapshot.prefix).to.equal(`${database}.`);
    const [[jobs]] = (await engine.rows(`SELECT count(*)::INTEGER FROM ${snapshot.prefix}jobs`)) as [[number]];
    expect(jobs).to.equal(snapshot.size).and.to.equal(1);
    await snapshot.close();
    expect(await databases()).to.deep.equal(before);
  });

  it('leaves no database behind when it cannot be opened', async () => {
    const before = await databases();
    const broken = await tempDir('snapshot-broken');
    await cp(snapshotDir(dirs.snapshotsDir, watermark), broken, { recursive: true });
    await writeFile(join(broken, 'jobs.parquet'), 'not a Parquet file');
    let failure: unknown = null;
    await open(broken).catch((error: unknown) => (failure = error));
    expect(failure).to.be.an('error');
    expect(await databases()).to.deep.equal(before);
  });
});
