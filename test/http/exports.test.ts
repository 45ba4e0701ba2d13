import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { publish } from '../../src/catalog/publish/publish.js';
import { startTestApp, tempDir, type TestApp } from '../support/app.js';

interface ExportRecord {
  export_id: string;
  status: string;
  format: string;
  snapshot_watermark: string;
  record_count: number | null;
  request: Record<string, unknown>;
  files: { n: number; records: number; bytes: number; sha256: string }[];
  error: string | null;
}
interface ErrorBody {
  error: { code: string; message: string };
}
interface Job {
  job_id: string;
  [field: string]: unknown;
}

/** Jobs per file in these tests: a small catalog still makes several files. */
const PER_FILE = 40;

describe('exports', function () {
  this.timeout(240_000);
  let app: TestApp;
  let key: string;
  let accountId: string;
  let corpus: string;
  let day = 0;
  /** Set by a test to stop the server after file n of the next export, as a crash would. */
  let crashAfter: number | null = null;
  let crashed: Promise<void> | null = null;

  before(async () => {
    const root = await tempDir('exports');
    corpus = join(root, 'corpus');
    await generateCorpus({ jobs: 300, seed: 5, days: 3, start: '2026-11-18' }, corpus, { workers: 0 });
    app = await startTestApp(
      {},
      {
        exportRunner: {
          fileRecords: PER_FILE,
          onFileWritten: (_id, n) => {
            if (n === crashAfter) {
              crashAfter = null;
              crashed = app.service.close();
            }
          },
        },
      },
    );
    ({ key, accountId } = await app.account({ plan: 'paid-5k' }));
    await publishNext();
  });
  after(() => app?.close());

  async function publishNext(): Promise<void> {
    day++;
    await publish({
      input: join(corpus, `day-00${day}`),
      snapshotsDir: app.config.snapshotsDir,
      dataDir: app.config.dataDir,
      quiet: true,
      memoryLimit: '1GB',
    });
    await app.service.watcher.check();
  }

  const create = async (body: unknown, as = key) => {
    const r = await app.api.post<ExportRecord>('/v1/jobs/exports', body, { key: as });
    expect(r.status, r.text).to.equal(202);
    return r.body;
  };
  const finished = async (id: string, as = key) => {
    await app.service.exportRunner.idle();
    const r = await app.api.get<ExportRecord>(`/v1/jobs/exports/${id}`, { key: as });
    expect(r.status, r.text).to.equal(200);
    return r.body;
  };
  // What the server settled in memory reaches the store within milliseconds: read once it has.
  const usage = async () => {
    await app.service.ctx.meter.idle();
    const [row] = await app.store.query<{ used: number; reserved: number }>(
      'SELECT records_used::int AS used, records_reserved::int AS reserved FROM usage_months WHERE account_id = $1',
      [accountId],
    );
    return row ?? { used: 0, reserved: 0 };
  };

  /** What paging through POST /v1/jobs/search with the same body returns. */
  async function searched(body: Record<string, unknown>): Promise<Job[]> {
    const jobs: Job[] = [];
    let cursor: string | null = null;
    do {
      const { max_records: max, format: _, ...rest } = body;
      const r: { status: number; text: string; body: { data: Job[]; next_cursor: string | null } } = await app.api.post(
        '/v1/jobs/search',
        { ...rest, limit: 250, ...(cursor ? { cursor } : {}) },
        { key },
      );
      expect(r.status, r.text).to.equal(200);
      jobs.push(...r.body.data);
      cursor = r.body.next_cursor;
      if (typeof max === 'number' && jobs.length >= max) return jobs.slice(0, max);
    } while (cursor);
    return jobs;
  }

  /** Downloads every file, checks its headers and checksum, and returns the jobs in file order. */
  async function downloaded(record: ExportRecord): Promise<Job[]> {
    const jobs: Job[] = [];
    for (const file of record.files) {
      const r = await app.api.download(`/v1/jobs/exports/${record.export_id}/files/${file.n}`, { key });
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.equal('application/gzip');
      expect(r.headers.get('content-disposition')).to.equal(`attachment; filename="jobs-${record.export_id}-${file.n}.jsonl.gz"`);
      expect(Number(r.headers.get('content-length'))).to.equal(file.bytes);
      expect(createHash('sha256').update(r.body).digest('hex')).to.equal(file.sha256);
      const lines = gunzipSync(r.body).toString('utf8').split('\n');
      expect(lines.pop()).to.equal('');
      expect(lines.length).to.equal(file.records);
      jobs.push(...lines.map((line) => JSON.parse(line) as Job));
    }
    return jobs;
  }

  it('writes files of the jobs that paging through POST /v1/jobs/search returns, job for job, and charges them once', async () => {
    const body = { currentness: ['current', 'uncertain'], description: 'experience' };
    const before = await usage();
    const record = await create(body);
    expect(['queued', 'running']).to.include(record.status);
    expect(record.request).to.include({ description: 'experience', max_records: 100000, format: 'jsonl', sort: 'relevance' });
    const done = await finished(record.export_id);
    expect(done.status).to.equal('completed');
    const charged = await usage();
    const expected = await searched(body);
    expect(expected.length).to.be.greaterThan(2 * PER_FILE);
    expect(done.record_count).to.equal(expected.length);
    expect(done.files.map((f) => f.records)).to.deep.equal(done.files.map((_, i) => Math.min(PER_FILE, expected.length - i * PER_FILE)));
    expect(await downloaded(done)).to.deep.equal(expected);
    expect(charged).to.deep.equal({ used: before.used + expected.length, reserved: 0 });
  });

  it('keeps the shape of fields and include, the sort, and max_records', async () => {
    const body = { company_linked: true, fields: ['title', 'company_id'], include: ['company'], sort: 'updated', max_records: 95 };
    const done = await finished((await create(body)).export_id);
    const expected = await searched(body);
    expect(expected).to.have.length(95);
    expect(done.files).to.have.length(3);
    expect(await downloaded(done)).to.deep.equal(expected);
    expect(Object.keys(expected[0]!).sort()).to.deep.equal(['company', 'company_id', 'job_id', 'title']);
  });

  it('serves a byte range of a file for resumed downloads, and 416 outside it', async () => {
    const [latest] = (await app.api.get<{ data: ExportRecord[] }>('/v1/jobs/exports', { key })).body.data;
    const path = `/v1/jobs/exports/${latest!.export_id}/files/1`;
    const whole = (await app.api.download(path, { key })).body;
    const part = await app.api.download(path, { key, headers: { range: 'bytes=100-' } });
    expect(part.status).to.equal(206);
    expect(part.headers.get('content-range')).to.equal(`bytes 100-${whole.length - 1}/${whole.length}`);
    expect(part.body.equals(whole.subarray(100))).to.equal(true);
    const outside = await app.api.download(path, { key, headers: { range: `bytes=${whole.length + 10}-` } });
    expect(outside.status).to.equal(416);
    // Settled as what the client got: the 416, not the 200 the file would have been.
    await app.service.ctx.meter.idle();
    const [row] = await app.store.query<{ status: number; settlement_status: string }>(
      'SELECT status, settlement_status FROM ledger WHERE request_id = $1',
      [outside.headers.get('x-request-id')],
    );
    expect(row).to.deep.equal({ status: 416, settlement_status: 'not_charged' });
  });

  it('answers 503 export_unavailable when this server cannot write or read export files', async () => {
    const [latest] = (await app.api.get<{ data: ExportRecord[] }>('/v1/jobs/exports', { key })).body.data;
    const dir = join(app.config.dataDir, 'exports', latest!.export_id);
    const path = join(dir, `jobs-${latest!.export_id}-2.jsonl.gz`);
    await rename(path, `${path}.away`);
    try {
      const lost = await app.api.download(`/v1/jobs/exports/${latest!.export_id}/files/2`, { key });
      expect(lost.status).to.equal(503);
      expect(JSON.parse(lost.body.toString('utf8'))).to.have.nested.property('error.code', 'export_unavailable');
    } finally {
      await rename(`${path}.away`, path);
    }
    // The exports folder replaced by a plain file: no export is queued that could never be written.
    const exportsDir = join(app.config.dataDir, 'exports');
    await rename(exportsDir, `${exportsDir}.away`);
    await writeFile(exportsDir, '');
    try {
      const refused = await app.api.post<ErrorBody>('/v1/jobs/exports', { max_records: 10 }, { key });
      expect(refused.status).to.equal(503);
      expect(refused.body.error.code).to.equal('export_unavailable');
    } finally {
      await rm(exportsDir);
      await rename(`${exportsDir}.away`, exportsDir);
    }
    expect((await app.api.download(`/v1/jobs/exports/${latest!.export_id}/files/2`, { key })).status).to.equal(200);
  });

  it('writes Parquet files with format parquet', async () => {
    const body = { title: 'manager', fields: ['title', 'employer_name'], sort: 'updated', format: 'parquet' };
    const done = await finished((await create(body)).export_id);
    expect(done.status).to.equal('completed');
    const expected = await searched(body);
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    const got: Job[] = [];
    for (const file of done.files) {
      const r = await app.api.download(`/v1/jobs/exports/${done.export_id}/files/${file.n}`, { key });
      expect(r.headers.get('content-type')).to.equal('application/vnd.apache.parquet');
      const path = join(app.config.dataDir, `check-${file.n}.parquet`);
      await writeFile(path, r.body);
      const rows = (await db.runAndReadAll(`SELECT job_id, title, employer_name FROM read_parquet('${path}')`)).getRowObjectsJson();
      got.push(...(rows as unknown as Job[]));
    }
    expect(got).to.deep.equal(expected);
  });

  it('lists the account exports newest first, and hides them from other accounts', async () => {
    const list = (await app.api.get<{ data: ExportRecord[] }>('/v1/jobs/exports', { key })).body.data;
    expect(list.length).to.equal(3);
    const other = await app.account();
    expect((await app.api.get<{ data: ExportRecord[] }>('/v1/jobs/exports', { key: other.key })).body.data).to.deep.equal([]);
    const id = list[0]!.export_id;
    expect((await app.api.get<ErrorBody>(`/v1/jobs/exports/${id}`, { key: other.key })).body.error.code).to.equal('export_not_found');
    expect((await app.api.download(`/v1/jobs/exports/${id}/files/1`, { key: other.key })).status).to.equal(404);
    expect((await app.api.download(`/v1/jobs/exports/${id}/files/99`, { key })).status).to.equal(404);
    expect((await app.api.get<ErrorBody>('/v1/jobs/exports/00000000-0000-4000-8000-000000000000', { key })).status).to.equal(404);
  });

  it('refuses a second export while one is queued or running (409), and one the allowance cannot cover (429)', async () => {
    app.service.exportRunner.pause();
    try {
      const first = await create({ max_records: 10 });
      const second = await app.api.post<ErrorBody>('/v1/jobs/exports', { max_records: 10 }, { key });
      expect(second.status).to.equal(409);
      expect(second.body.error.code).to.equal('export_in_progress');
      expect((await app.api.download(`/v1/jobs/exports/${first.export_id}/files/1`, { key })).status, 'not ready').to.equal(404);
    } finally {
      app.service.exportRunner.resume();
    }
    await app.service.exportRunner.idle();
    // A free account (1,000 records a month) that has already taken 990 this month.
    const free = await app.account({ plan: 'free' });
    await app.store.query('INSERT INTO usage_months (account_id, month, records_used) VALUES ($1, $2::date, 990)', [
      free.accountId,
      new Date().toISOString().slice(0, 8) + '01',
    ]);
    const tooMany = await app.api.post<ErrorBody>(
      '/v1/jobs/exports',
      { currentness: ['current', 'uncertain', 'not_current'] },
      { key: free.key },
    );
    expect(tooMany.status, tooMany.text).to.equal(429);
    expect(tooMany.body.error.code).to.equal('data_limit_exceeded');
    const small = await create({ max_records: 10 }, free.key);
    expect((await finished(small.export_id, free.key)).record_count).to.equal(10);
    await app.service.ctx.meter.idle();
    const [month] = await app.store.query<{ used: number }>('SELECT records_used::int AS used FROM usage_months WHERE account_id = $1', [
      free.accountId,
    ]);
    expect(month!.used).to.equal(1000);
  });

  it('refuses invalid requests with 400 naming the problem', async () => {
    const cases: [unknown, RegExp][] = [
      [{ limit: 10 }, /limit/],
      [{ cursor: 'abc' }, /cursor/],
      [{ max_records: 0 }, /max_records/],
      [{ max_records: 100001 }, /max_records/],
      [{ pay_min: 10, pay_max: 5 }, /pay_max/],
      [{ sort: 'relevance' }, /relevance/],
      [{ fields: ['title', 'salary'] }, /fields/],
      [{ format: 'csv' }, /format/],
      [{ format: 'parquet', include: ['company'] }, /include/],
    ];
    for (const [body, message] of cases) {
      const r = await app.api.post<ErrorBody>('/v1/jobs/exports', body, { key, unchecked: true });
      expect(r.status, JSON.stringify(body)).to.equal(400);
      expect(r.body.error.message, JSON.stringify(body)).to.match(message);
    }
  });

  /** On a shared PostgreSQL store another replica may hold a running export: a restarted runner waits out its lease. */
  const embeddedOnly = () => process.env.TEST_STATE_STORE === 'postgres';

  it('resumes after a crash where its listed files end, never serving a half-written file', async function () {
    if (embeddedOnly()) this.skip();
    const body = { currentness: ['current', 'uncertain'], sort: 'updated' };
    const before = await usage();
    crashAfter = 2;
    const record = await create(body);
    await app.restart(
      (async () => {
        while (!crashed) await new Promise((r) => setTimeout(r, 10));
        await crashed;
        crashed = null;
        // What a crash in the middle of file 3 leaves behind.
        await writeFile(join(app.config.dataDir, 'exports', record.export_id, '.tmp-3'), 'half a file');
        const [row] = await app.store.query<{ status: string; files: unknown[] }>(
          'SELECT status, files FROM exports WHERE export_id = $1',
          [record.export_id],
        );
        expect(row!.status).to.equal('running');
        expect(row!.files).to.have.length(2);
      })(),
    );
    const done = await finished(record.export_id);
    expect(done.status).to.equal('completed');
    expect(await usage()).to.deep.equal({ used: before.used + done.record_count!, reserved: 0 });
    expect(await downloaded(done)).to.deep.equal(await searched(body));
    expect((await readdir(join(app.config.dataDir, 'exports', record.export_id))).filter((f) => f.startsWith('.tmp'))).to.deep.equal([]);
  });

  it('completes an export interrupted by a restart after a newer publication on the snapshot it was created on', async function () {
    if (embeddedOnly()) this.skip();
    const body = { currentness: ['current', 'uncertain'], sort: 'updated' };
    const expected = await searched(body);
    const before = await usage();
    crashAfter = 1;
    const record = await create(body);
    await app.restart(
      (async () => {
        while (!crashed) await new Promise((r) => setTimeout(r, 10));
        await crashed;
        crashed = null;
        await publish({
          input: join(corpus, 'day-002'),
          snapshotsDir: app.config.snapshotsDir,
          dataDir: app.config.dataDir,
          quiet: true,
          memoryLimit: '1GB',
        });
      })(),
    );
    const done = await finished(record.export_id);
    expect(done.status).to.equal('completed');
    expect(done.snapshot_watermark).to.equal(record.snapshot_watermark);
    expect(app.service.ctx.publications.catalog!.watermark).to.not.equal(record.snapshot_watermark);
    expect(await usage()).to.deep.equal({ used: before.used + expected.length, reserved: 0 });
    expect(await downloaded(done)).to.deep.equal(expected);
    // What the newer publication answers is not what the export holds.
    expect(await searched(body)).to.not.deep.equal(expected);
  });
});
