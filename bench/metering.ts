// The metering benchmarks of issues 6 and 17:
// `npm run bench:metering -- [--rows 10000000] [--seconds 10] [--year-segments 24] [--year-rows 100] [--year-only]`.
// 1. admissions: how many requests a second the embedded store (PGlite on disk) admits and settles,
//    each one admission and one settlement charging one record, as the server does for GET /v1/jobs/{id},
//    from 4 concurrent callers over 200 accounts, three ways side by side (each in the store, from leases,
//    journaled: ADR 0013);
// 2. analytics: GET /v1/usage/analytics's work (Ledger.daily) for one account, over a ledger of --rows
//    rows in day-partitioned Parquet segments (30 days, 1,000 accounts) plus rows still in the store;
// 3. a year of segments: both usage routes' work (Ledger.events' first page, Ledger.daily over the year
//    and over the month) on 366 days of --year-segments small segments a day of --year-rows rows each,
//    20 accounts, as 60-second compaction leaves them; then after merging each closed day into one
//    segment, and after merging each closed month into one as well.
// 4. settlement calls (`--settle-only` for this part and the next alone): one call of the store settling
//    n journaled settlements together (n = 1, 5, 25, 100; ADR 0013 "A batch of journaled settlements at
//    once"), the median of 30 calls of each size, three rounds.
// 5. the two ways a batch of journaled settlements is settled, side by side on the same batches of 100
//    (3 accounts), on a store grown to --settle-accounts accounts with their months and windows and
//    --settle-ledger ledger rows: counted (meter_settle_counted) and joined (meter_settle_journaled), each
//    call rolled back; the median of 15 calls of each, three rounds (ADR 0013, "Journaled batches
//    counted, not joined").
// The per-request overhead on the HTTP path is the meter column of `npm run bench` (Server-Timing).
// It prints the figures and writes them as JSON under bench/results/.

import { mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { migrate } from '../src/db/migrate.js';
import { PgliteStore } from '../src/db/pglite-store.js';
import { QueryEngine } from '../src/db/engine.js';
import { createAccount, findAccount } from '../src/metering/accounts.js';
import { issueKey, type Caller } from '../src/metering/keys.js';
import { Ledger } from '../src/metering/ledger.js';
import { segmentFile } from '../src/metering/ledger-files.js';
import { Meter } from '../src/metering/meter.js';
import { MeterJournal, settleCounted, settleJournaled } from '../src/metering/journal.js';
import { writeResults } from './results.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '10000000' },
    seconds: { type: 'string', default: '10' },
    'year-segments': { type: 'string', default: '24' },
    'year-rows': { type: 'string', default: '100' },
    'year-only': { type: 'boolean', default: false },
    'settle-only': { type: 'boolean', default: false },
    'settle-accounts': { type: 'string', default: '20000' },
    'settle-ledger': { type: 'string', default: '80000' },
  },
  strict: true,
});
const logger = pino({ level: process.env.BENCH_LOG ?? 'silent' });
const root = await mkdtemp(join(tmpdir(), 'jps-bench-metering-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!;
const PARQUET = '(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000)';

let admissionRuns = 0;

/** `count` accounts of the paid-500k plan, each with a key. */
async function paidCallers(store: PgliteStore, count: number): Promise<Caller[]> {
  const callers: Caller[] = [];
  for (let i = 0; i < count; i++) {
    const account = await createAccount(store, { plan: 'paid-500k' });
    const key = await issueKey(store, account.account_id);
    callers.push({ keyId: key.key_id, account: (await findAccount(store, account.account_id))! });
  }
  return callers;
}

/** One GET /v1/jobs/{jobId} of `caller` admitted and settled, charging one record. */
async function jobById(meter: Meter, caller: Caller, requestId: string): Promise<void> {
  const { ticket, refusal } = await meter.admit(caller, {
    requestId,
    method: 'GET',
    route: '/v1/jobs/{jobId}',
    routeClass: 'jobs_get',
    windowed: true,
  });
  if (refusal) throw new Error(`refused: ${refusal}`);
  if (!(await meter.settle(ticket, { status: 200, records: 1 }))) throw new Error('not charged');
}

/** How requests are admitted and settled (ADR 0013). */
type Way = 'exact' | 'leased' | 'journaled';

/**
 * 1. Admissions a second: admit + settle (one record), 4 callers, 50 requests of each of 200 accounts in
 * turn (a client's burst). `exact`: each in the store (as on a shared store); `leased`: from a lease of
 * the window held in memory, one store call a request; `journaled`: as a server on the embedded store
 * does, the records charged in memory, journaled, and settled in the store by batches.
 */
async function admissions(store: PgliteStore, seconds: number, way: Way) {
  const callers = await paidCallers(store, 200);
  const RUN = 50;
  const tag = `${way[0]}${++admissionRuns}`;
  // The clock moves a minute once every account has had its run, so that no window fills up.
  let n = 0;
  const clock = () => new Date(Date.UTC(2026, 10, 2) + Math.floor(n / (callers.length * RUN)) * 60_000);
  const journal = way === 'journaled' ? new MeterJournal(join(root, `journal-${tag}`), 1) : undefined;
  const meter = new Meter(store, clock, logger, null, { leases: way !== 'exact', journal });
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < until) {
        const caller = callers[Math.floor(n / RUN) % callers.length]!;
        const requestId = `req_bench_${tag}_${n++}`;
        const t0 = performance.now();
        await jobById(meter, caller, requestId);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const perSecond = latencies.length / ((performance.now() - started) / 1000);
  await meter.stop();
  // Journaled settlements may still be on their way to the store when the callers stop: counted until all are in.
  const storedPerSecond = latencies.length / ((performance.now() - started) / 1000);
  const ids = callers.map((c) => c.account.account_id);
  const [ledgerRows] = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger WHERE account_id = ANY($1)', [ids]);
  const [charged] = await store.query<{ n: number }>('SELECT sum(records_used)::int AS n FROM usage_months WHERE account_id = ANY($1)', [
    ids,
  ]);
  if (ledgerRows!.n !== latencies.length || charged!.n !== latencies.length)
    throw new Error(`ledger ${ledgerRows!.n} rows, ${charged!.n} records charged, for ${latencies.length} requests`);
  console.log(
    `admissions  ${way.padEnd(9)} ${perSecond.toFixed(0)} admitted and settled a second (embedded store, 4 callers), ${storedPerSecond.toFixed(0)} a second until all are in the store; admit+settle median ${median(latencies).toFixed(3)} ms, p99 ${p99(latencies).toFixed(3)} ms`,
  );
  return {
    accountId: callers[0]!.account.account_id,
    figures: {
      per_second: perSecond,
      stored_per_second: storedPerSecond,
      median_ms: median(latencies),
      p99_ms: p99(latencies),
      callers: 4,
      accounts: callers.length,
    },
  };
}

/**
 * 2. Analytics over `rows` ledger rows: Parquet segments written by DuckDB in the compactor's layout,
 * registered as durable, plus the rows of part 1 still in the store.
 */
async function analytics(store: PgliteStore, engine: QueryEngine, accountId: string, rows: number) {
  const ledgerDir = join(root, 'ledger');
  const days = 30;
  const perDay = Math.ceil(rows / days);
  const t0 = performance.now();
  for (let d = 0; d < days; d++) {
    const day = new Date(Date.UTC(2026, 9, 1 + d)).toISOString().slice(0, 10);
    const [segment] = await store.query<{ segment_id: string }>(
      "INSERT INTO ledger_segments (day, state, rows) VALUES ($1::date, 'durable', $2) RETURNING segment_id",
      [day, perDay],
    );
    await mkdir(join(ledgerDir, `day=${day}`), { recursive: true });
    const path = segmentFile(ledgerDir, { segment_id: segment!.segment_id, day, level: 0 });
    // One account in a thousand is the measured one; the rest are the other 999 accounts.
    await engine.withConnection((c) =>
      c.run(
        `COPY (
           SELECT (${d} * ${perDay} + i)::BIGINT AS seq, 'req_' || (${d} * ${perDay} + i) AS request_id,
                  CASE WHEN i % 1000 = 0 THEN '${accountId}' ELSE 'acct_other_' || (i % 1000) END AS account_id,
                  'key' || (i % 3) AS api_key_id,
                  TIMESTAMPTZ '${day} 00:00:00+00' + to_milliseconds((i * 86399999 // ${perDay})::BIGINT) AS occurred_at,
                  'GET' AS method, '/v1/jobs' AS route, ['jobs_list', 'jobs_search', 'jobs_get', 'jobs_count'][1 + i % 4] AS route_class,
                  (CASE WHEN i % 50 = 0 THEN 400 ELSE 200 END)::SMALLINT AS status, (i % 51)::BIGINT AS records_charged,
                  0::BIGINT AS overage_micros, 'included' AS settlement_status, true AS counted
           FROM range(${perDay}) t(i)
           ORDER BY account_id, seq
         ) TO $path ${PARQUET}`,
        { path },
      ),
    );
  }
  const writeSeconds = (performance.now() - t0) / 1000;
  const ledger = new Ledger(store, engine, ledgerDir, logger);
  const times: number[] = [];
  let result: Awaited<ReturnType<Ledger['daily']>> = [];
  for (let run = 0; run < 21; run++) {
    const t = performance.now();
    result = await ledger.daily(accountId, '2026-10-01', '2026-11-30', run % 2 === 0 ? null : 'route_class');
    times.push(performance.now() - t);
  }
  const total = result.reduce((sum, r) => sum + r.requests, 0);
  console.log(
    `analytics   ${rows.toLocaleString('en-US')} ledger rows in ${days} daily segments (written in ${writeSeconds.toFixed(1)} s): ` +
      `one account's ${total.toLocaleString('en-US')} requests over 61 days, median ${median(times).toFixed(1)} ms, p99 ${p99(times).toFixed(1)} ms (21 runs)`,
  );
  return { ledger_rows: rows, median_ms: median(times), p99_ms: p99(times), runs: times.length, account_requests: total };
}

const TODAY = '2026-11-23';
const YEAR_DAYS = 366;
const YEAR_ACCOUNTS = 20;
const MEASURED = 'acct_0';

/**
 * Registers `days` × `perDay` durable segments of `rowsPer` rows each from day `first`, and writes their
 * files: one COPY into a folder per segment (one thread: one file each), each then renamed into the
 * ledger's layout. A segment's rows fall in its slice of the day, as a compaction a minute would cut them.
 */
async function writeYear(store: PgliteStore, dir: string, first: string, perDay: number, rowsPer: number): Promise<number> {
  const count = YEAR_DAYS * perDay;
  const segments = await store.query<{ segment_id: string; day: string; min_seq: string }>(
    `INSERT INTO ledger_segments (day, state, rows, level, min_seq, max_seq)
     SELECT $1::date + (g / $2::int), 'durable', $3::bigint, 0, g * $3::bigint + 1, (g + 1) * $3::bigint FROM generate_series(0, $4::int - 1) AS g ORDER BY g
     RETURNING segment_id, to_char(day, 'YYYY-MM-DD') AS day, min_seq`,
    [first, perDay, rowsPer, count],
  );
  const stage = join(root, 'year-stage');
  const writer = await QueryEngine.open({ threads: 1, connections: 1, timeoutMs: 3_600_000 });
  const slice = Math.floor(86_400_000 / perDay);
  try {
    await writer.withConnection((c) =>
      c.run(
        `COPY (
           SELECT i // ${rowsPer} AS g, (i + 1)::BIGINT AS seq, 'req_' || i AS request_id, 'acct_' || (i % ${YEAR_ACCOUNTS}) AS account_id,
                  'key_' || (i % 3) AS api_key_id,
                  $first::TIMESTAMPTZ + to_milliseconds(((i // ${rowsPer}) // ${perDay} * 86400000 + (i // ${rowsPer}) % ${perDay} * ${slice} + i % ${rowsPer} * ${Math.floor(slice / rowsPer)})::BIGINT) AS occurred_at,
                  'GET' AS method, '/v1/jobs' AS route, ['jobs_list', 'jobs_search', 'jobs_get', 'jobs_count'][1 + i % 4] AS route_class,
                  (CASE WHEN i % 50 = 0 THEN 400 ELSE 200 END)::SMALLINT AS status, (i % 51)::BIGINT AS records_charged,
                  (i % 7 * 100)::BIGINT AS overage_micros, 'included' AS settlement_status, true AS counted
           FROM range(${count * rowsPer}) t(i)
           ORDER BY g, account_id, seq
         ) TO $stage (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (g))`,
        { first: `${first} 00:00:00+00`, stage },
      ),
    );
  } finally {
    writer.close();
  }
  for (const s of segments) {
    const folder = join(stage, `g=${(Number(s.min_seq) - 1) / rowsPer}`);
    const written = await readdir(folder);
    if (written.length !== 1) throw new Error(`${folder} holds ${written.length} files, not one`);
    const path = segmentFile(dir, { ...s, level: 0 });
    await mkdir(join(path, '..'), { recursive: true });
    await rename(join(folder, written[0]!), path);
  }
  await rm(stage, { recursive: true, force: true });
  return count;
}

/** Median time of `runs` calls of `work`, and how many segment files one call read. */
async function timed(runs: number, work: (run: number) => Promise<unknown>, filesRead: () => number = () => 0) {
  const times: number[] = [];
  let files = 0;
  for (let run = 0; run < runs; run++) {
    const read = filesRead();
    const t = performance.now();
    await work(run);
    times.push(performance.now() - t);
    files = filesRead() - read;
  }
  return { median_ms: median(times), files, runs };
}

/** Both usage routes' work for the measured account, as GET /v1/usage/requests and /analytics call it. */
async function usageCalls(ledger: Ledger, first: string, slowRuns: number) {
  const capturedAt = new Date(`${TODAY}T23:59:00Z`);
  const page = (routeClass: string | null) =>
    ledger.events(
      {
        accountId: MEASURED,
        start: null,
        end: null,
        routeClass,
        apiKeyId: null,
        highWater: Number.MAX_SAFE_INTEGER,
        capturedAt,
        before: Number.POSITIVE_INFINITY,
        exclude: '',
      },
      51,
    );
  const files = () => ledger.filesRead;
  const year = (run: number) => ledger.daily(MEASURED, first, TODAY, run % 2 === 0 ? null : 'route_class');
  return {
    answer: JSON.stringify([await page(null), await year(0), await year(1)]),
    events_first_page: await timed(21, () => page(null), files),
    events_no_match: await timed(slowRuns, () => page('exports'), files),
    daily_year: await timed(slowRuns, year, files),
    daily_month: await timed(
      21,
      (run) => ledger.daily(MEASURED, `${TODAY.slice(0, 8)}01`, TODAY, run % 2 === 0 ? null : 'route_class'),
      files,
    ),
  };
}

/** Merges with `ledger` and deletes what it replaced; prints and returns what it did. */
async function mergeAll(ledger: Ledger, what: string) {
  let t = performance.now();
  const merges = await ledger.merge();
  const seconds = (performance.now() - t) / 1000;
  t = performance.now();
  const deleted = await ledger.sweep();
  console.log(
    `year        ${what}: ${merges} merges in ${seconds.toFixed(1)} s; ${deleted.toLocaleString('en-US')} replaced files deleted in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  return { merges, seconds, deleted };
}

/**
 * 3. A year of small segments: the usage routes' work before merging, after merging each closed day into
 * one segment, and after merging each closed month into one as well (the default), in one run.
 */
async function yearOfSegments(perDay: number, rowsPer: number) {
  const store = await PgliteStore.open(join(root, 'year-state'));
  await migrate(store);
  const engine = await QueryEngine.open({ timeoutMs: 600_000 });
  const dir = join(root, 'year-ledger');
  const first = new Date(Date.parse(`${TODAY}T00:00:00Z`) - (YEAR_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const t = performance.now();
  const count = await writeYear(store, dir, first, perDay, rowsPer);
  console.log(
    `year        ${YEAR_DAYS} days (${first} to ${TODAY}, the last one open) of ${perDay} segments of ${rowsPer} rows, ${YEAR_ACCOUNTS} accounts: ` +
      `${count.toLocaleString('en-US')} segments, ${(count * rowsPer).toLocaleString('en-US')} rows, written in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  // Files a merge replaces are deleted at once: nothing else reads them here.
  const clock = () => new Date(`${TODAY}T23:59:00Z`);
  const days = new Ledger(store, engine, dir, logger, { clock, retireGraceMs: 0, mergeMonths: false });
  const before = await usageCalls(days, first, 3);
  print('before merging', before);
  const dayMerges = await mergeAll(days, 'merging days');
  const afterDays = await usageCalls(days, first, 21);
  print('one segment per closed day', afterDays);
  const months = new Ledger(store, engine, dir, logger, { clock, retireGraceMs: 0 });
  const monthMerges = await mergeAll(months, 'merging months');
  const afterMonths = await usageCalls(months, first, 21);
  print('and per closed month', afterMonths);
  if (afterDays.answer !== before.answer || afterMonths.answer !== before.answer)
    throw new Error('the usage calls answer differently after merging');
  engine.close();
  await store.close();
  const figures = ({ answer: _, ...calls }: typeof before) => calls;
  return {
    segments: count,
    rows: count * rowsPer,
    segments_per_day: perDay,
    rows_per_segment: rowsPer,
    before: figures(before),
    day_merges: dayMerges,
    after_days: figures(afterDays),
    month_merges: monthMerges,
    after_months: figures(afterMonths),
  };
}

/**
 * 4. What one call of the store costs settling n journaled settlements together: n requests admitted
 * and settled in memory at once, then `Meter.idle` sends them in one call, timed alone.
 */
async function settlementCalls() {
  const store = await PgliteStore.open(join(root, 'settle-state'));
  await migrate(store);
  const callers = await paidCallers(store, 20);
  // The calls that settle a batch, timed where the meter makes them.
  const timed: { ms: number; rows: number }[] = [];
  const query = store.query.bind(store);
  store.query = async <Row>(sql: string, params?: readonly unknown[]): Promise<Row[]> => {
    const started = performance.now();
    const rows = await query<Row>(sql, params);
    // A batch journaled alone is counted (meter_settle_counted: a column an array); else joined (its rows as JSON).
    if (sql.includes('meter_settle_counted')) timed.push({ ms: performance.now() - started, rows: (params![0] as unknown[]).length });
    else if (sql.includes('meter_settle_journaled'))
      timed.push({ ms: performance.now() - started, rows: (JSON.parse(params![0] as string) as unknown[]).length });
    return rows;
  };
  let n = 0;
  // Each call in a minute of its own: no window fills up.
  let calls = 0;
  const clock = () => new Date(Date.UTC(2026, 10, 2) + calls * 60_000);
  const meter = new Meter(store, clock, logger, null, { leases: true, journal: new MeterJournal(join(root, 'journal-settle'), 1) });
  const figures: Record<string, number[]> = {};
  for (let round = 0; round < 3; round++) {
    for (const size of [1, 5, 25, 100]) {
      timed.length = 0;
      for (let call = 0; call < 30; call++, calls++) {
        // Runs of 50 requests an account (as the HTTP bench's clients send them), within its window of 60.
        await Promise.all(
          Array.from({ length: size }, async (_, i) => {
            await jobById(meter, callers[(call + Math.floor(i / 50)) % callers.length]!, `req_bench_settle_${n++}`);
          }),
        );
        await meter.idle();
      }
      if (timed.some((call) => call.rows !== size)) throw new Error(`a call of ${size} settlements was split`);
      const ms = median(timed.map((call) => call.ms));
      (figures[`rows_${size}_median_ms`] ??= []).push(ms);
      console.log(
        `settle      one call of ${String(size).padStart(3)} journaled settlements: median ${ms.toFixed(2)} ms, ${(ms / size).toFixed(3)} ms a row`,
      );
    }
  }
  await meter.stop();
  await store.close();
  return figures;
}

/** `accounts` accounts more, each with its month and window, and `ledgerRows` ledger rows spread over them. */
async function growStore(store: PgliteStore, accounts: number, ledgerRows: number, month: string, window: Date): Promise<void> {
  await store.query(`INSERT INTO accounts (account_id, plan) SELECT 'acct_fill_' || g, 'paid-5k' FROM generate_series(1, $1::int) g`, [
    accounts,
  ]);
  await store.query(
    `INSERT INTO usage_months (account_id, month, requests_granted) SELECT 'acct_fill_' || g, $2::date, 1000 FROM generate_series(1, $1::int) g`,
    [accounts, month],
  );
  await store.query(
    `INSERT INTO rate_windows (account_id, window_start, used) SELECT 'acct_fill_' || g, $2, 1 FROM generate_series(1, $1::int) g`,
    [accounts, window],
  );
  await store.query(
    `INSERT INTO ledger (request_id, account_id, api_key_id, occurred_at, method, route, route_class, status, settlement_status, counted)
     SELECT 'req_fill_' || g, 'acct_fill_' || (g % $2::int + 1), 'key', $3, 'GET', '/v1/jobs/{jobId}', 'jobs_get', 200, 'included', true
     FROM generate_series(1, $1::int) g`,
    [ledgerRows, Math.max(1, accounts), window],
  );
}

/**
 * 5. A batch of 100 journaled settlements (3 accounts, 1 record each) settled counted and joined, side by
 * side, on a store of `accounts` accounts (each with its month and window) and `ledgerRows` ledger rows;
 * each call in a transaction rolled back, so both ways see the same store.
 */
async function settleWays(accounts: number, ledgerRows: number) {
  const store = await PgliteStore.open(join(root, 'ways-state'));
  await migrate(store);
  const callers = await paidCallers(store, 3);
  const month = '2026-11-01';
  const at = new Date(Date.UTC(2026, 10, 2, 10));
  const window = new Date(Date.UTC(2026, 10, 2, 10));
  for (const caller of callers)
    await store.query('INSERT INTO usage_months (account_id, month, requests_granted) VALUES ($1, $2, 1000000000)', [
      caller.account.account_id,
      month,
    ]);
  await growStore(store, accounts, ledgerRows, month, window);
  let n = 0;
  const batch = () =>
    Array.from({ length: 100 }, (_, i) => {
      const caller = callers[Math.floor(i / 34)]!;
      return {
        p_request: `req_ways_${n++}`,
        p_account: caller.account.account_id,
        p_key: caller.keyId,
        p_at: at,
        p_method: 'GET',
        p_route: '/v1/jobs/{jobId}',
        p_class: 'jobs_get',
        p_node: null,
        p_window: window,
        p_month: month,
        p_status: 200,
        p_records: 1,
        p_allowance: 500_000,
        p_force: true,
        p_void: false,
        p_overage_enabled: false,
        p_price: null,
        p_limit_cents: null,
      };
    });
  const rolledBack = async (settle: () => Promise<unknown>): Promise<number> => {
    await store.query('BEGIN');
    const started = performance.now();
    await settle();
    const ms = performance.now() - started;
    await store.query('ROLLBACK');
    return ms;
  };
  const figures: Record<string, number[]> = { counted_median_ms: [], joined_median_ms: [] };
  for (let round = 0; round < 3; round++) {
    const counted: number[] = [];
    const joined: number[] = [];
    for (let call = 0; call < 15; call++) {
      counted.push(
        await rolledBack(async () => {
          if (!(await settleCounted(store, batch(), undefined))) throw new Error('a batch of journaled settlements was not counted');
        }),
      );
      joined.push(await rolledBack(() => settleJournaled(store, batch(), undefined)));
    }
    figures.counted_median_ms!.push(median(counted));
    figures.joined_median_ms!.push(median(joined));
    console.log(
      `ways        100 journaled settlements, ${accounts.toLocaleString('en-US')} accounts, ${ledgerRows.toLocaleString('en-US')} ledger rows: ` +
        `counted ${median(counted).toFixed(2)} ms, joined ${median(joined).toFixed(2)} ms`,
    );
  }
  await store.close();
  return { accounts, ledger_rows: ledgerRows, ...figures };
}

function print(when: string, calls: Awaited<ReturnType<typeof usageCalls>>): void {
  const one = (name: string, f: { median_ms: number; files: number; runs: number }) =>
    `${name} ${f.median_ms.toFixed(1)} ms (${f.files.toLocaleString('en-US')} files, ${f.runs} runs)`;
  console.log(
    `year        ${when}: ` +
      [
        one('events first page', calls.events_first_page),
        one('events matching nothing', calls.events_no_match),
        one('analytics of the year', calls.daily_year),
        one('analytics of the month', calls.daily_month),
      ].join('; '),
  );
}

try {
  const results: Record<string, unknown> = { at: new Date().toISOString() };
  if (!values['year-only']) results.settlement_calls = await settlementCalls();
  if (!values['year-only']) results.settlement_ways = await settleWays(Number(values['settle-accounts']), Number(values['settle-ledger']));
  if (!values['year-only'] && !values['settle-only']) {
    const store = await PgliteStore.open(join(root, 'state'));
    await migrate(store);
    // Each request in the store, from leases, and journaled, twice in turn: side by side on one store.
    const runs: Record<Way, unknown[]> = { exact: [], leased: [], journaled: [] };
    let measured: { accountId: string } | undefined;
    for (let round = 0; round < 2; round++) {
      for (const way of ['exact', 'leased', 'journaled'] as const) {
        const run = await admissions(store, Number(values.seconds), way);
        runs[way].push(run.figures);
        measured ??= run;
      }
    }
    results.admissions = runs;
    const engine = await QueryEngine.open({ timeoutMs: 600_000 });
    results.analytics = await analytics(store, engine, measured!.accountId, Number(values.rows));
    engine.close();
    await store.close();
  }
  if (!values['settle-only']) results.year = await yearOfSegments(Number(values['year-segments']), Number(values['year-rows']));
  await writeResults('metering', results);
} finally {
  await rm(root, { recursive: true, force: true });
}
