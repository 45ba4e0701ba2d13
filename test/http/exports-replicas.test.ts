import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { publish } from '../../src/catalog/publish/publish.js';
import type { StateStore } from '../../src/db/state-store.js';
import { freshPostgresStore, startTestApp, tempDir, type TestApp } from '../support/app.js';
import { startS3, useS3Environment, type TestS3 } from '../support/s3.js';

interface ExportRecord {
  export_id: string;
  status: string;
  snapshot_watermark: string;
  record_count: number | null;
  files: { n: number; records: number; bytes: number; sha256: string }[];
  error: string | null;
}
interface Job {
  job_id: string;
}

const PREFIX = 'exports-replicas';
/** Jobs per file: a small catalog still makes several files. */
const PER_FILE = 40;
/** How long a stopped replica's export stays held before another replica takes it over. */
const LEASE_MS = 1500;
const BODY = { currentness: ['current', 'uncertain'], sort: 'updated' };

describe('exports across replicas (one PostgreSQL, one object store)', function () {
  this.timeout(300_000);
  let s3: TestS3;
  let restoreEnvironment: () => void;
  let store: StateStore;
  let root: string;
  let shared: { objectStore: string; snapshotsDir: string; exportLeaseMs: number };
  let a: TestApp;
  let b: TestApp;
  let key: string;
  let accountId: string;
  let day = 0;
  /** Set by a test to stop replica A after file n of its next export, as a crash would (its lease kept). */
  let stopAfter: number | null = null;
  let stopped: Promise<void> | null = null;
  /** The files replica B wrote, by export. */
  const writtenByB = new Map<string, number[]>();

  before(async () => {
    s3 = await startS3();
    restoreEnvironment = useS3Environment(s3);
    store = await freshPostgresStore();
    root = await tempDir('exports-replicas');
    // Both replicas serve the publications of one folder; everything else they share is in the store and the bucket.
    shared = { objectStore: s3.url(PREFIX), snapshotsDir: join(root, 'snapshots'), exportLeaseMs: LEASE_MS };
    a = await startTestApp(shared, {
      store,
      exportRunner: {
        fileRecords: PER_FILE,
        onFileWritten: (_id, n) => {
          if (n !== stopAfter) return;
          stopAfter = null;
          stopped = a.service.close();
        },
      },
    });
    b = await startTestApp(shared, {
      store,
      exportRunner: { fileRecords: PER_FILE, onFileWritten: (id, n) => writtenByB.set(id, [...(writtenByB.get(id) ?? []), n]) },
    });
    await generateCorpus({ jobs: 300, seed: 5, days: 2, start: '2026-11-18' }, join(root, 'corpus'), { workers: 0 });
    ({ key, accountId } = await a.account({ plan: 'paid-25k' }));
    await publishNext([a, b]);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await store?.close();
    await rm(root, { recursive: true, force: true });
    restoreEnvironment?.();
    await s3?.stop();
  });

  /** The publisher (a node of its own) publishes the next day; the running replicas pick it up. */
  async function publishNext(running: TestApp[]): Promise<void> {
    day++;
    await publish({
      input: join(root, 'corpus', `day-00${day}`),
      snapshotsDir: shared.snapshotsDir,
      dataDir: join(root, 'publisher'),
      objectStore: shared.objectStore,
      quiet: true,
      memoryLimit: '1GB',
    });
    for (const replica of running) await replica.service.watcher.check();
  }

  /** Replica A stopped mid-export (after `file`), B's runner held back until then so that A runs it. */
  async function createAndStopA(file: number): Promise<ExportRecord> {
    b.service.exportRunner.pause();
    stopAfter = file;
    const r = await a.api.post<ExportRecord>('/v1/jobs/exports', BODY, { key });
    expect(r.status, r.text).to.equal(202);
    while (!stopped) await new Promise((resolve) => setTimeout(resolve, 10));
    await stopped;
    const [row] = await store.query<{ status: string; files: unknown[]; runner: string | null }>(
      'SELECT status, files, runner FROM exports WHERE export_id = $1',
      [r.body.export_id],
    );
    expect(row!.status).to.equal('running');
    expect(row!.files).to.have.length(file);
    expect(row!.runner, 'the lease is still held by A').to.not.equal(null);
    return r.body;
  }

  /** B resumes looking for work; the export's record once it is no longer queued or running. */
  async function finishedOnB(id: string): Promise<ExportRecord> {
    b.service.exportRunner.resume();
    for (;;) {
      await b.service.exportRunner.idle();
      const r = await b.api.get<ExportRecord>(`/v1/jobs/exports/${id}`, { key });
      if (r.body.status !== 'queued' && r.body.status !== 'running') return r.body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function restartA(): Promise<void> {
    await a.restart(stopped!);
    stopped = null;
  }

  /** What paging through POST /v1/jobs/search with the same body returns on `replica`. */
  async function searched(replica: TestApp): Promise<Job[]> {
    const jobs: Job[] = [];
    let cursor: string | null = null;
    do {
      const r: { status: number; text: string; body: { data: Job[]; next_cursor: string | null } } = await replica.api.post(
        '/v1/jobs/search',
        { ...BODY, limit: 250, ...(cursor ? { cursor } : {}) },
        { key },
      );
      expect(r.status, r.text).to.equal(200);
      jobs.push(...r.body.data);
      cursor = r.body.next_cursor;
    } while (cursor);
    return jobs;
  }

  /** Every file of the export as `replica` serves it, each checked against its listed size and sha256. */
  async function downloaded(replica: TestApp, record: ExportRecord): Promise<Buffer[]> {
    const files: Buffer[] = [];
    for (const file of record.files) {
      const r = await replica.api.download(`/v1/jobs/exports/${record.export_id}/files/${file.n}`, { key });
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.equal('application/gzip');
      expect(Number(r.headers.get('content-length'))).to.equal(file.bytes);
      expect(createHash('sha256').update(r.body).digest('hex')).to.equal(file.sha256);
      files.push(r.body);
    }
    return files;
  }

  const jobsOf = (files: Buffer[]) =>
    files.flatMap((file) =>
      gunzipSync(file)
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Job),
    );

  const usage = async () => {
    const [row] = await store.query<{ used: number; reserved: number }>(
      'SELECT records_used::int AS used, records_reserved::int AS reserved FROM usage_months WHERE account_id = $1',
      [accountId],
    );
    return row ?? { used: 0, reserved: 0 };
  };

  /** The ledger rows of the account's export requests: one per export, charged its records once. */
  const exportCharges = () =>
    store.query<{ status: number; records: number }>(
      "SELECT status, records_charged::int AS records FROM ledger WHERE account_id = $1 AND route_class = 'exports' AND method = 'POST' ORDER BY seq",
      [accountId],
    );

  it('finishes on another replica an export whose replica stopped mid-export, byte-identical from every replica, charged once', async () => {
    const expected = await searched(b);
    const before = await usage();
    const record = await createAndStopA(2);
    const done = await finishedOnB(record.export_id);
    expect(done.status, done.error ?? '').to.equal('completed');
    expect(done.record_count).to.equal(expected.length);
    // B went on where A's listed files end.
    expect(writtenByB.get(record.export_id)).to.deep.equal(done.files.slice(2).map((f) => f.n));
    // The files are objects of the shared store, not of a replica's disk.
    const objects = await s3.store(PREFIX).list(`exports/${record.export_id}/`);
    expect(objects.map((o) => o.size)).to.deep.equal(done.files.map((f) => f.bytes));

    await restartA();
    const fromA = await downloaded(a, done);
    const fromB = await downloaded(b, done);
    expect(fromA.map((f) => f.toString('base64'))).to.deep.equal(fromB.map((f) => f.toString('base64')));
    expect(jobsOf(fromB)).to.deep.equal(expected);
    expect(await usage()).to.deep.equal({ used: before.used + expected.length, reserved: 0 });
    expect(await exportCharges()).to.deep.equal([{ status: 202, records: expected.length }]);
  });

  it('serves a byte range of a stored file from any replica, and 416 outside it', async () => {
    const [latest] = (await b.api.get<{ data: ExportRecord[] }>('/v1/jobs/exports', { key })).body.data;
    const path = `/v1/jobs/exports/${latest!.export_id}/files/1`;
    const whole = (await b.api.download(path, { key })).body;
    for (const replica of [a, b]) {
      const part = await replica.api.download(path, { key, headers: { range: 'bytes=100-' } });
      expect(part.status).to.equal(206);
      expect(part.headers.get('content-range')).to.equal(`bytes 100-${whole.length - 1}/${whole.length}`);
      expect(part.body.equals(whole.subarray(100))).to.equal(true);
      expect((await replica.api.download(path, { key, headers: { range: `bytes=${whole.length + 10}-` } })).status).to.equal(416);
    }
  });

  it('completes an export on the publication it was created on after a newer one lands, on the replica that takes it over', async () => {
    const expected = await searched(b);
    const before = await usage();
    const record = await createAndStopA(1);
    await publishNext([b]);
    expect(b.service.ctx.publications.catalog!.watermark).to.not.equal(record.snapshot_watermark);
    const done = await finishedOnB(record.export_id);
    expect(done.status, done.error ?? '').to.equal('completed');
    expect(done.snapshot_watermark).to.equal(record.snapshot_watermark);
    expect(writtenByB.get(record.export_id)).to.deep.equal(done.files.slice(1).map((f) => f.n));
    expect(await usage()).to.deep.equal({ used: before.used + expected.length, reserved: 0 });
    expect((await exportCharges()).at(-1)).to.deep.equal({ status: 202, records: expected.length });
    await restartA();
    const fromA = await downloaded(a, done);
    expect(jobsOf(fromA)).to.deep.equal(expected);
    expect(jobsOf(await downloaded(b, done))).to.deep.equal(expected);
    // What the newer publication answers is not what the export holds.
    expect(await searched(b)).to.not.deep.equal(expected);
  });
});
