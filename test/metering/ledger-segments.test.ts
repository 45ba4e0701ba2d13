// The ledger's segments on the real store (PGlite) and DuckDB: merging per closed day, stopped at any
// step; late rows of a closed day; replaced files kept for a grace period; bounded reads; the
// compaction grace; dead runs' temporaries; one server at a time under the lease.
// TEST_STATE_STORE=postgres runs them on a fresh database of the test PostgreSQL server instead.

import { expect } from 'chai';
import { readdir, rm, stat, utimes, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import { migrate } from '../../src/db/migrate.js';
import { PgStore } from '../../src/db/pg-store.js';
import type { StateStore } from '../../src/db/state-store.js';
import { QueryEngine } from '../../src/db/engine.js';
import { Ledger, type LedgerOptions } from '../../src/metering/ledger.js';
import { OPEN_DAY_BATCH, type Step } from '../../src/metering/ledger-segments.js';
import { freshStore, releaseStore, tempDir } from '../support/app.js';
import { testPostgres } from '../support/postgres.js';

const DAY1 = '2026-11-20';
const DAY2 = '2026-11-21';
const TODAY = '2026-11-22';
const logger = pino({ level: 'silent' });
const onPostgres = process.env.TEST_STATE_STORE === 'postgres';
let databases = 0;

async function openStore(): Promise<StateStore> {
  if (!onPostgres) return freshStore();
  const store = await PgStore.open(await (await testPostgres()).database(`ledger_segments_${process.pid}_${++databases}`));
  await migrate(store);
  return store;
}

describe('ledger segments', function () {
  this.timeout(120_000);
  let engine: QueryEngine;
  let store: StateStore;
  let root: string;
  let dir: string;
  let now: Date;
  let ledger: Ledger;
  let requests = 0;

  const open = (options: LedgerOptions = {}) => new Ledger(store, engine, dir, logger, { clock: () => now, compactGraceMs: 0, ...options });

  before(async () => {
    engine = await QueryEngine.open({ timeoutMs: 30_000 });
  });
  after(() => engine.close());
  beforeEach(async () => {
    store = await openStore();
    root = await tempDir('ledger-segments');
    dir = join(root, 'ledger');
    now = new Date(`${TODAY}T12:00:00Z`);
    ledger = open();
  });
  afterEach(async () => {
    await releaseStore(store);
    await rm(root, { recursive: true, force: true });
  });

  /** `n` settled requests of `account`, one a second from `at`: a mix of classes, keys, errors and overage. */
  async function settle(account: string, at: string, n: number): Promise<void> {
    await store.query(
      `INSERT INTO ledger (request_id, account_id, api_key_id, occurred_at, method, route, route_class, status, records_charged, overage_micros, settlement_status)
       SELECT 'req_' || $1 || '_' || i, $2, 'key_' || (i % 2), $3::timestamptz + i * interval '1 second', 'GET', '/v1/jobs',
              (ARRAY['jobs_list', 'jobs_search', 'jobs_count'])[1 + i % 3], CASE WHEN i % 4 = 0 THEN 400 ELSE 200 END,
              CASE WHEN i % 4 = 0 THEN 0 ELSE i % 5 END, CASE WHEN i % 4 = 0 THEN 0 ELSE (i % 2) * 1000 END,
              CASE WHEN i % 4 = 0 THEN 'not_charged' ELSE 'included' END
       FROM generate_series(1, $4::int) AS i`,
      [++requests, account, at, n],
    );
  }

  /** `count` segments of `rows` requests of account A (and as many of B) on each day, compacted one by one. */
  async function segmentsOf(days: string[], count: number, rows: number): Promise<void> {
    for (const day of days) {
      for (let i = 0; i < count; i++) {
        await settle('acct_a', `${day}T0${i}:00:00Z`, rows);
        await settle('acct_b', `${day}T0${i}:30:00Z`, rows);
        await ledger.compact();
      }
    }
  }

  /** Every event of the account, paged seven at a time as GET /v1/usage/requests pages. */
  async function listAll(accountId: string, page = 7): Promise<number[]> {
    const highWater = await ledger.highWater();
    const seqs: number[] = [];
    let before = Number.POSITIVE_INFINITY;
    for (;;) {
      const events = await ledger.events(
        { accountId, start: null, end: null, routeClass: null, apiKeyId: null, highWater, capturedAt: now, before, exclude: '' },
        page + 1,
      );
      seqs.push(...events.slice(0, page).map((e) => e.seq));
      if (events.length <= page) return seqs;
      before = events[page - 1]!.seq;
    }
  }

  /** What both usage routes answer for account A: its whole listing and its analytics from `first`, plain and grouped both ways. */
  async function usage(first = DAY1) {
    const groups = [null, 'route_class', 'api_key_id'] as const;
    return { events: await listAll('acct_a'), daily: await Promise.all(groups.map((g) => ledger.daily('acct_a', first, TODAY, g))) };
  }

  const segments = () =>
    store.query<{ day: string; state: string; level: number }>(
      "SELECT to_char(day, 'YYYY-MM-DD') AS day, state, level::int AS level FROM ledger_segments ORDER BY segment_id",
    );
  const durable = async () => (await segments()).filter((s) => s.state === 'durable').map((s) => [s.day, s.level]);
  const durablePerDay = async () => {
    const perDay: Record<string, number> = {};
    for (const s of await segments()) if (s.state === 'durable') perDay[s.day] = (perDay[s.day] ?? 0) + 1;
    return perDay;
  };
  const files = async () => (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.parquet')).sort();
  const stopAt = (step: Step) => (at: Step) => {
    if (at === step) throw new Error(`stopped at ${at}`);
  };

  it('merges the segments of each closed UTC day into one, and both usage routes answer the same before and after', async () => {
    await segmentsOf([DAY1, DAY2, TODAY], 3, 10);
    const before = await usage();
    expect(before.events).to.have.length(90);
    expect(before.daily[0]!.map((d) => d.requests)).to.deep.equal([30, 30, 30]);

    expect(await ledger.merge()).to.equal(2);
    expect(await durablePerDay()).to.deep.equal({ [DAY1]: 1, [DAY2]: 1, [TODAY]: 3 });
    expect(await usage()).to.deep.equal(before);
    // Merged files have the columns compacted ones have, and no more.
    const columns = (file: string) =>
      engine.withConnection(async (c) =>
        (await c.runAndReadAll(`SELECT * FROM read_parquet('${join(dir, file)}', hive_partitioning = false) LIMIT 0`)).columnNames(),
      );
    const [first, ...rest] = await files();
    for (const file of rest) expect(await columns(file), file).to.deep.equal(await columns(first!));
    // One file per closed day, and the open day's segments.
    const read = ledger.filesRead;
    await ledger.daily('acct_a', DAY1, TODAY, null);
    expect(ledger.filesRead - read).to.equal(2 + 3);
    expect(await ledger.merge()).to.equal(0);
  });

  it('loses no row and counts none twice when a merge or its deletions are stopped after any step, and the next run finishes it', async () => {
    ledger = open({ retireGraceMs: 0 });
    const steps: Step[] = ['merge-claimed', 'merge-partial', 'merge-written', 'deleted'];
    const days = ['2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19'];
    await segmentsOf(days, 3, 6);
    const expected = await usage();
    // Each run first finishes what the stopped one left, so the later steps stop that same merge again.
    for (const step of steps) {
      const stop = stopAt(step);
      const run = step === 'deleted' ? ledger.merge().then(() => ledger.sweep({ crash: stop })) : ledger.merge({ crash: stop });
      await run.then(
        () => expect.fail(`not stopped at ${step}`),
        (e: Error) => expect(e.message).to.equal(`stopped at ${step}`),
      );
      expect(await usage(), step).to.deep.equal(expected);
    }
    await ledger.merge();
    await ledger.sweep();
    expect(await usage()).to.deep.equal(expected);
    expect(await durablePerDay()).to.deep.equal(Object.fromEntries(days.map((d) => [d, 1])));
    expect((await segments()).map((s) => s.state)).to.deep.equal(['durable', 'durable', 'durable', 'durable']);
    expect(await files()).to.have.length(4);
    expect((await readdir(dir, { recursive: true })).filter((f) => f.includes('.tmp-'))).to.deep.equal([]);
  });

  it('merges rows that arrive later for a closed day into that day again', async () => {
    await segmentsOf([DAY1], 2, 5);
    await ledger.merge();
    // An export admitted on DAY1 settles on TODAY: its row is compacted into a new segment of DAY1.
    await settle('acct_a', `${DAY1}T23:59:00Z`, 1);
    await ledger.compact();
    expect(await durablePerDay()).to.deep.equal({ [DAY1]: 2 });
    const before = await usage();
    expect(before.daily[0]!.map((d) => [d.date, d.requests])).to.deep.equal([[DAY1, 11]]);
    expect(await ledger.merge()).to.equal(1);
    expect(await durablePerDay()).to.deep.equal({ [DAY1]: 1 });
    expect(await usage()).to.deep.equal(before);
  });

  it('merges a month into one segment two days after it closes, and again when a late row of it arrives', async () => {
    now = new Date('2026-11-02T12:00:00Z');
    await segmentsOf(['2026-10-05', '2026-10-31'], 2, 5);
    const usageOfOctober = async () => ({
      ...(await usage('2026-10-01')),
      lastDay: await ledger.daily('acct_a', '2026-10-31', '2026-10-31', 'route_class'),
    });
    const before = await usageOfOctober();
    expect(await ledger.merge()).to.equal(2);
    expect(await durable()).to.deep.equal([
      ['2026-10-05', 1],
      ['2026-10-31', 1],
    ]);
    now = new Date('2026-11-03T00:00:00Z');
    expect(await ledger.merge()).to.equal(1);
    expect(await durable()).to.deep.equal([['2026-10-01', 2]]);
    expect(await usageOfOctober()).to.deep.equal(before);
    expect((await files()).filter((f) => f.startsWith('month=2026-10/'))).to.have.length(1);
    const read = ledger.filesRead;
    await ledger.daily('acct_a', '2026-10-01', TODAY, null);
    expect(ledger.filesRead - read).to.equal(1);
    // A request of October 31 settles on November 3 (an export): its own segment, then the month again.
    await settle('acct_a', '2026-10-31T23:59:00Z', 1);
    await ledger.compact();
    expect(await durable()).to.deep.equal([
      ['2026-10-01', 2],
      ['2026-10-31', 0],
    ]);
    const late = await usageOfOctober();
    expect(late.lastDay.reduce((n, d) => n + d.requests, 0)).to.equal(before.lastDay.reduce((n, d) => n + d.requests, 0) + 1);
    expect(await ledger.merge()).to.equal(1);
    expect(await durable()).to.deep.equal([['2026-10-01', 2]]);
    expect(await usageOfOctober()).to.deep.equal(late);
  });

  it("merges the open day's compaction segments once a batch of them has gathered, and no sooner", async () => {
    for (let i = 1; i < OPEN_DAY_BATCH; i++) {
      await settle('acct_a', `${TODAY}T00:${String(i).padStart(2, '0')}:00Z`, 1);
      await ledger.compact();
    }
    expect(await ledger.merge()).to.equal(0);
    await settle('acct_a', `${TODAY}T01:00:00Z`, 1);
    await ledger.compact();
    const before = await usage();
    expect(await ledger.merge()).to.equal(1);
    expect(await durable()).to.deep.equal([[TODAY, 1]]);
    expect(await usage()).to.deep.equal(before);
  });

  it('keeps the files a merge replaced for the grace period, for readers that listed them, then deletes them', async () => {
    await segmentsOf([DAY1], 3, 4);
    const replaced = await files();
    const expected = await usage();
    await ledger.merge();
    expect(await ledger.sweep()).to.equal(0);
    // A reader that listed the three segments before the merge still finds their files.
    expect(await files()).to.have.length(4);
    for (const file of replaced) expect((await stat(join(dir, file))).size).to.be.greaterThan(0);
    await store.query("UPDATE ledger_segments SET retired_at = retired_at - interval '11 minutes' WHERE state = 'retired'");
    expect(await ledger.sweep()).to.equal(3);
    expect(await files()).to.have.length(1);
    expect((await segments()).map((s) => s.state)).to.deep.equal(['durable']);
    expect(await usage()).to.deep.equal(expected);
  });

  it('reads segments newest first, only until the page is full, and none above the cursor', async () => {
    const days = ['2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', DAY1];
    await segmentsOf(days, 2, 10);
    const page = (limit: number, before = Number.POSITIVE_INFINITY, routeClass: string | null = null) =>
      ledger.events(
        {
          accountId: 'acct_a',
          start: null,
          end: null,
          routeClass,
          apiKeyId: null,
          highWater: Number.MAX_SAFE_INTEGER,
          capturedAt: now,
          before,
          exclude: '',
        },
        limit,
      );
    const cost = async (read: () => Promise<unknown>) => {
      const at = ledger.filesRead;
      await read();
      return ledger.filesRead - at;
    };
    expect(await cost(() => page(5))).to.equal(1);
    // 10 rows in the newest segment, then the next two: 30.
    expect(await cost(() => page(15))).to.equal(3);
    const all = await listAll('acct_a', 100);
    expect(all).to.have.length(100);
    // From a cursor at the top of the sixth newest segment: the five newer ones are not read.
    expect(await cost(() => page(5, all[50]))).to.equal(1);
    expect((await page(5, all[50])).map((e) => e.seq)).to.deep.equal(all.slice(51, 56));
    // A filter nothing matches has to look at every segment of the range.
    expect(await cost(() => page(5, Number.POSITIVE_INFINITY, 'exports'))).to.equal(10);
    // Rows still in the store that fill the page: no file at all.
    await settle('acct_a', `${TODAY}T10:00:00Z`, 5);
    expect(await cost(() => page(5))).to.equal(0);
  });

  it('compacts a day of more rows than one call of the store claims or reads into one segment that holds each row once', async () => {
    await settle('acct_a', `${DAY1}T00:00:00Z`, 45_000);
    // Rows still pending between them and the next settled ones: a stretch of seqs the segment does not hold.
    await store.query(
      `INSERT INTO ledger (request_id, account_id, api_key_id, occurred_at, method, route, route_class, settlement_status)
       SELECT 'req_pending_' || i, 'acct_c', 'key_c', '${DAY1}T13:00:00Z', 'GET', '/v1/jobs', 'jobs_list', 'pending'
       FROM generate_series(1, 25000) AS i`,
    );
    await settle('acct_b', `${DAY1}T00:00:00Z`, 10);
    const before = await Promise.all(['acct_a', 'acct_b'].map((a) => ledger.daily(a, DAY1, TODAY, 'route_class')));
    expect(await ledger.compact()).to.equal(45_010);
    expect((await segments()).map((s) => [s.day, s.state])).to.deep.equal([[DAY1, 'durable']]);
    const [left] = await store.query<{ n: number }>("SELECT count(*)::int AS n FROM ledger WHERE settlement_status <> 'pending'");
    expect(left!.n).to.equal(0);
    expect(await Promise.all(['acct_a', 'acct_b'].map((a) => ledger.daily(a, DAY1, TODAY, 'route_class')))).to.deep.equal(before);
    expect(before[0]!.reduce((sum, d) => sum + d.requests, 0)).to.equal(45_000);
  });

  it('leaves settled rows younger than the compaction grace period in the store', async () => {
    ledger = open({ compactGraceMs: 10 * 60_000 });
    await settle('acct_a', '2026-11-22T11:40:00Z', 3);
    await settle('acct_a', '2026-11-22T11:55:00Z', 2);
    expect(await ledger.compact()).to.equal(3);
    const [left] = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger');
    expect(left!.n).to.equal(2);
    now = new Date('2026-11-22T12:06:00Z');
    expect(await ledger.compact()).to.equal(2);
    await settle('acct_a', '2026-11-22T12:05:00Z', 1);
    expect(await ledger.compact({ graceMs: 0 })).to.equal(1);
  });

  it('takes the background work over at once on the embedded store from a process that died holding it', async function () {
    if (onPostgres) this.skip();
    await settle('acct_a', `${DAY1}T01:00:00Z`, 2);
    await ledger.compact({ crash: stopAt('claimed') }).catch(() => undefined);
    // The process restarts: a new ledger on the same store and folder.
    const restarted = open();
    expect(await restarted.compact()).to.equal(2);
  });

  it('vacuums the embedded ledger once compaction has removed a fifth of it, so the table stops growing', async function () {
    if (onPostgres) this.skip();
    const HOUR = 60 * 60_000;
    ledger = open({ compactGraceMs: HOUR });
    const pages = async () => Number((await store.query<{ pages: string }>("SELECT pg_relation_size('ledger') / 8192 AS pages"))[0]!.pages);
    // Every two hours 1,000 requests are settled and those of two hours before are compacted away:
    // the store holds one run's rows at a time, as a server's holds those of the grace period.
    const sizes: number[] = [];
    for (let run = 0; run < 6; run++) {
      now = new Date(Date.parse(`${DAY1}T00:00:00Z`) + run * 2 * HOUR);
      await settle('acct_a', new Date(now.getTime() - 40 * 60_000).toISOString(), 1_000);
      await ledger.maintain();
      expect(Number((await store.query<{ n: string }>('SELECT count(*) AS n FROM ledger'))[0]!.n)).to.equal(1_000);
      sizes.push(await pages());
    }
    // The space of the rows removed by a run is used again by the next (or given back, when it ends the
    // table): the table never holds more than two runs' rows (without the vacuum it held every run's).
    expect(sizes[1]).to.be.greaterThan(sizes[0]!);
    expect(Math.max(...sizes)).to.equal(sizes[1]);
    expect(await ledger.vacuum()).to.equal(false);
  });

  it('writes segments without temporary files, and removes the temporaries of a process that died', async () => {
    await mkdir(join(dir, `day=${DAY1}`), { recursive: true });
    const dead = [join(dir, '.segment-7-4242-0a1b2c3d.jsonl'), join(dir, `day=${DAY1}`, 'segment-7.parquet.tmp-4242-0a1b2c3d')];
    const live = join(dir, '.segment-8-4243-0a1b2c3d.jsonl');
    for (const file of [...dead, live]) await writeFile(file, '{"account_id":"acct_a"}\n');
    const hourAgo = new Date(Date.now() - 60 * 60_000);
    for (const file of dead) await utimes(file, hourAgo, hourAgo);
    await segmentsOf([DAY1, DAY2], 2, 3);
    await ledger.merge();
    await ledger.sweep();
    const left = await readdir(dir, { recursive: true });
    expect(left.filter((f) => f.endsWith('.jsonl') || f.includes('.tmp-'))).to.deep.equal(['.segment-8-4243-0a1b2c3d.jsonl']);
  });

  it('lets one of two servers on a store do the background work, and the other take it over once its lease lapses', async () => {
    // Two servers on one store, as on PostgreSQL (the embedded store belongs to one process).
    ledger = open({ alone: false });
    const other = open({ alone: false });
    await settle('acct_a', `${DAY1}T01:00:00Z`, 4);
    // The first server dies with a segment claimed.
    await ledger.compact({ crash: stopAt('claimed') }).catch(() => undefined);
    await settle('acct_a', `${DAY1}T02:00:00Z`, 4);
    expect(await other.compact()).to.equal(0);
    expect(await other.merge()).to.equal(0);
    await store.query("UPDATE ledger_lease SET expires_at = now() - interval '1 second'");
    expect(await other.compact()).to.equal(8);
    // The second dies in turn, merging; the first takes over once the lease has lapsed again.
    await other.merge({ crash: stopAt('merge-partial') }).catch(() => undefined);
    expect(await ledger.merge()).to.equal(0);
    await store.query("UPDATE ledger_lease SET expires_at = now() - interval '1 second'");
    expect(await ledger.merge()).to.equal(1);
    expect(await durablePerDay()).to.deep.equal({ [DAY1]: 1 });
    // A server that stops gives the lease up at once.
    await ledger.stopCompacting();
    await settle('acct_a', `${DAY2}T01:00:00Z`, 2);
    expect(await other.compact()).to.equal(2);
    expect((await usage()).daily[0]!.map((d) => [d.date, d.requests])).to.deep.equal([
      [DAY1, 8],
      [DAY2, 2],
    ]);
  });
});
