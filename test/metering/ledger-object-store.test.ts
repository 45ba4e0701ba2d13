// The ledger's segments in an S3-compatible object store (s3rver) under two replicas sharing one
// PostgreSQL store: compaction by one replica writes objects, the other answers both usage routes from
// them with its own empty data folder, one replica at a time does the work, and a replica's cache can be
// deleted or damaged at any time. On one node, without an object store, the segments stay in data/ledger.

import { expect } from 'chai';
import { readdir, rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import type { PgStore } from '../../src/db/pg-store.js';
import { issueKey } from '../../src/metering/keys.js';
import type { Step } from '../../src/metering/ledger-segments.js';
import { freshPostgresStore, startTestApp, type TestApp } from '../support/app.js';
import { startS3, useS3Environment, type TestS3 } from '../support/s3.js';

interface UsageEvent {
  request_id: string;
  occurred_at: string;
  route_class: string;
  status: number | null;
  api_key_id: string;
  records_charged: number;
}
interface Analytics {
  data: { date: string; group?: string; requests: number; records: number; errors: number; overage_usd: number }[];
}

const DAY1 = '2026-11-20';
const DAY2 = '2026-11-21';
const TODAY = '2026-11-22';
const NOW = new Date(`${TODAY}T12:00:00Z`);
/** When the metered requests are made: two on each closed day, one on the open day, before NOW. */
const TIMES = [`${DAY1}T01:00:00Z`, `${DAY1}T13:00:00Z`, `${DAY2}T01:00:00Z`, `${DAY2}T13:00:00Z`, `${TODAY}T01:00:00Z`];
/** Compaction graces that split each closed day into two segments: rows before 06:00 of DAY1, then of DAY2, then all. */
const GRACES = [NOW.getTime() - Date.parse(`${DAY1}T06:00:00Z`), NOW.getTime() - Date.parse(`${DAY2}T06:00:00Z`), 0];

describe('ledger segments in an object store, read by every replica', function () {
  this.timeout(180_000);
  let s3: TestS3;
  let restoreEnvironment: () => void;
  let store: PgStore;
  let a: TestApp;
  let b: TestApp;
  let prefix: string;
  let tests = 0;
  /** The account's key that makes the metered requests, and the one that reads its usage. */
  let caller: { accountId: string; key: string; keyId: string };
  let reader: { key: string; keyId: string };

  before(async () => {
    s3 = await startS3();
    restoreEnvironment = useS3Environment(s3);
  });
  after(async () => {
    restoreEnvironment();
    await s3.stop();
  });
  beforeEach(async () => {
    prefix = `ledger-${++tests}`;
    store = await freshPostgresStore();
    a = await startTestApp({ objectStore: s3.url(prefix) }, { store });
    b = await startTestApp({ objectStore: s3.url(prefix) }, { store });
    caller = await a.account({ plan: 'paid-25k' });
    const second = await issueKey(store, caller.accountId);
    reader = { key: second.key, keyId: second.key_id };
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await store.close();
  });

  const ledgerOf = (app: TestApp) => app.service.ctx.ledger;
  const cacheOf = (app: TestApp) => join(app.config.dataDir, 'cache', 'ledger');
  const parquetIn = async (dir: string) =>
    (await readdir(dir, { recursive: true }).catch(() => [] as string[])).filter((f) => f.endsWith('.parquet')).sort();
  const bucketKeys = async () => (await s3.store(prefix).list('ledger/')).map((o) => o.key);
  /** The keys of the segments the state store lists in `states`. */
  const segmentKeys = async (...states: string[]) =>
    (
      await store.query<{ key: string }>(
        `SELECT CASE WHEN level = 2 THEN 'ledger/month=' || to_char(day, 'YYYY-MM') ELSE 'ledger/day=' || to_char(day, 'YYYY-MM-DD') END || '/segment-' || segment_id || '.parquet' AS key
         FROM ledger_segments WHERE state = ANY($1) ORDER BY key`,
        [states],
      )
    ).map((s) => s.key);

  /** Metered requests of the caller at each of TIMES, spread over both replicas, settled; the clocks then at NOW. */
  async function traffic(): Promise<void> {
    for (const [i, at] of TIMES.entries()) {
      for (const app of [a, b]) {
        app.setNow(new Date(at));
        await app.api.get('/v1/jobs/exports', { key: caller.key });
        await app.api.get(`/v1/jobs/exports/exp_missing_${i}`, { key: caller.key });
        await app.service.ctx.meter.idle();
      }
    }
    a.setNow(NOW);
    b.setNow(NOW);
  }

  /** The caller's rows in the state store, newest first. */
  const ledgerRows = async () =>
    (
      await store.query<{ request_id: string }>('SELECT request_id FROM ledger WHERE api_key_id = $1 ORDER BY seq DESC', [caller.keyId])
    ).map((r) => r.request_id);

  /** What both usage routes of `app` answer about the caller's requests (the reader's own calls left out). */
  async function usage(app: TestApp) {
    const events: UsageEvent[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `api_key_id=${caller.keyId}&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await app.api.get<{ data: UsageEvent[]; next_cursor: string | null }>(`/v1/usage/requests?${query}`, {
        key: reader.key,
      });
      expect(page.status).to.equal(200);
      events.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor);
    const analytics = async (groupBy: string, leaveOut: string) => {
      const answer = await app.api.get<Analytics>(`/v1/usage/analytics?start=${DAY1}&end=${TODAY}&group_by=${groupBy}`, {
        key: reader.key,
      });
      expect(answer.status).to.equal(200);
      return answer.body.data.filter((r) => r.group !== leaveOut);
    };
    return { events, byClass: await analytics('route_class', 'usage'), byKey: await analytics('api_key_id', reader.keyId) };
  }

  /** Compacts on `app` in three runs, so that each closed day has two segments and the open day one. */
  async function compactInSteps(app: TestApp): Promise<number> {
    let moved = 0;
    for (const graceMs of GRACES) moved += await ledgerOf(app).compact({ graceMs });
    return moved;
  }

  it('writes compacted and merged segments as objects, and another replica with an empty data folder answers both usage routes as the ledger did', async () => {
    await traffic();
    const rows = await ledgerRows();
    expect(rows).to.have.length(TIMES.length * 4);
    const expected = await usage(b);
    expect(expected.events.map((e) => e.request_id)).to.deep.equal(rows);
    expect(expected.byClass.map((r) => [r.date, r.requests])).to.deep.equal([
      [DAY1, 8],
      [DAY2, 8],
      [TODAY, 4],
    ]);

    expect(await compactInSteps(a)).to.be.at.least(rows.length);
    expect(await ledgerRows()).to.deep.equal([]);
    const compacted = await segmentKeys('durable');
    expect(compacted).to.have.length(5);
    expect(await bucketKeys()).to.deep.equal(compacted);
    // Nothing in the data folders: A's segments are in its cache, B has none yet.
    expect(await parquetIn(join(a.config.dataDir, 'ledger'))).to.deep.equal([]);
    expect(await parquetIn(cacheOf(b))).to.deep.equal([]);
    expect(await usage(b)).to.deep.equal(expected);
    expect(await parquetIn(cacheOf(b))).to.have.length(5);

    expect(await ledgerOf(a).merge()).to.equal(2);
    expect(await segmentKeys('durable')).to.have.length(3);
    expect(await bucketKeys()).to.deep.equal(await segmentKeys('durable', 'retired'));
    expect(await usage(b)).to.deep.equal(expected);
    expect(await usage(a)).to.deep.equal(expected);

    // Past the grace period, the replaced segments leave the bucket, the compacting replica's cache, and
    // the other replica's cache when it sweeps (without the lease: it only prunes its own copies).
    await store.query("UPDATE ledger_segments SET retired_at = retired_at - interval '11 minutes' WHERE state = 'retired'");
    expect(await ledgerOf(a).sweep()).to.equal(4);
    const durable = await segmentKeys('durable');
    expect(await bucketKeys()).to.deep.equal(durable);
    const asCached = (keys: string[]) => keys.map((k) => k.slice('ledger/'.length)).sort();
    expect(await parquetIn(cacheOf(a))).to.deep.equal(asCached(durable));
    expect(await parquetIn(cacheOf(b))).to.have.length(5 + 2);
    expect(await ledgerOf(b).sweep()).to.equal(0);
    expect(await parquetIn(cacheOf(b))).to.deep.equal(asCached(durable));
    expect(await usage(b)).to.deep.equal(expected);
  });

  it('lets one of two replicas compacting and merging at once do the work, and counts every row once', async () => {
    await traffic();
    const expected = await usage(a);
    // The caller's rows and the reader's calls that made `expected`.
    const [inStore] = await store.query<{ rows: number }>('SELECT count(*)::int AS rows FROM ledger');
    const total = inStore!.rows;
    const moved: number[][] = [];
    for (const graceMs of GRACES) moved.push(await Promise.all([ledgerOf(a).compact({ graceMs }), ledgerOf(b).compact({ graceMs })]));
    // The replica that took the lease first keeps it: the other moves nothing.
    const byReplica = [0, 1].map((r) => moved.reduce((n, run) => n + run[r]!, 0));
    expect(byReplica.sort((x, y) => x - y)).to.deep.equal([0, total]);
    const merged = await Promise.all([ledgerOf(a).merge(), ledgerOf(b).merge()]);
    expect(merged.sort()).to.deep.equal([0, 2]);
    expect(await ledgerRows()).to.deep.equal([]);
    const [held] = await store.query<{ rows: number }>("SELECT sum(rows)::int AS rows FROM ledger_segments WHERE state = 'durable'");
    expect(held!.rows).to.equal(total);
    expect(await bucketKeys()).to.deep.equal(await segmentKeys('durable', 'retired'));
    expect(await usage(a)).to.deep.equal(expected);
    expect(await usage(b)).to.deep.equal(expected);
  });

  it('loses no row and counts none twice when a replica stops after any step of compaction and another takes its lease over', async () => {
    await traffic();
    const expected = await usage(b);
    const lapse = () => store.query("UPDATE ledger_lease SET expires_at = now() - interval '1 second'");
    for (const [i, step] of (['claimed', 'partial', 'written'] as Step[]).entries()) {
      const stop = (at: Step) => {
        if (at === step) throw new Error(`stopped at ${at}`);
      };
      await lapse();
      await ledgerOf(a)
        .compact({ crash: stop, graceMs: GRACES[i] })
        .then(
          () => expect.fail(`not stopped at ${step}`),
          (e: Error) => expect(e.message).to.equal(`stopped at ${step}`),
        );
      expect(await usage(b), step).to.deep.equal(expected);
      await lapse();
      expect(await ledgerOf(b).compact({ graceMs: GRACES[i] }), step).to.be.greaterThan(0);
      expect(await usage(a), step).to.deep.equal(expected);
    }
    expect(await ledgerRows()).to.deep.equal([]);
    expect(await bucketKeys()).to.deep.equal(await segmentKeys('durable'));
  });

  it("answers the same when a replica's cache folder is deleted or a cached copy is cut short, and merges from the store alone", async () => {
    await traffic();
    const expected = await usage(b);
    await compactInSteps(a);
    expect(await usage(b)).to.deep.equal(expected);

    await rm(cacheOf(b), { recursive: true, force: true });
    expect(await usage(b)).to.deep.equal(expected);
    const [first] = await parquetIn(cacheOf(b));
    await truncate(join(cacheOf(b), first!), 100);
    expect(await usage(b)).to.deep.equal(expected);

    // The compacting replica merges segments it no longer has a copy of.
    await rm(cacheOf(a), { recursive: true, force: true });
    expect(await ledgerOf(a).merge()).to.equal(2);
    expect(await usage(b)).to.deep.equal(expected);
    await rm(cacheOf(b), { recursive: true, force: true });
    expect(await usage(b)).to.deep.equal(expected);
  });
});

describe('ledger segments on a single node, without an object store', function () {
  this.timeout(60_000);

  it('writes and reads the segments in place under data/ledger, copying nothing into a cache', async () => {
    const app = await startTestApp();
    try {
      const { key } = await app.account({ plan: 'paid-25k' });
      app.setNow(new Date(`${DAY1}T01:00:00Z`));
      await app.api.get('/v1/jobs/exports', { key });
      await app.api.get('/v1/jobs/exports/exp_missing', { key });
      await app.service.ctx.meter.idle();
      app.setNow(NOW);
      const analytics = async () =>
        (await app.api.get<Analytics>(`/v1/usage/analytics?start=${DAY1}&end=${DAY1}&group_by=route_class`, { key })).body.data;
      const expected = await analytics();
      expect(expected.map((r) => [r.date, r.group, r.requests, r.errors])).to.deep.equal([[DAY1, 'exports', 2, 1]]);
      expect(await app.service.ctx.ledger.compact({ graceMs: 0 })).to.be.greaterThan(0);
      const files = (await readdir(join(app.config.dataDir, 'ledger'), { recursive: true })).filter((f) => f.endsWith('.parquet'));
      expect(files.some((f) => f.startsWith(`day=${DAY1}/segment-`))).to.equal(true);
      expect(await analytics()).to.deep.equal(expected);
      expect(await readdir(join(app.config.dataDir, 'cache', 'ledger')).catch(() => [])).to.deep.equal([]);
    } finally {
      await app.close();
    }
  });
});
