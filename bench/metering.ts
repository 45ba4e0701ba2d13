// The metering benchmarks of issue 6: `npm run bench:metering -- [--rows 10000000] [--seconds 10]`.
// 1. admissions: how many requests a second the embedded store (PGlite on disk) admits and settles,
//    each one admission and one settlement charging one record, as the server does for GET /v1/jobs/{id},
//    from 4 concurrent callers over 200 accounts;
// 2. analytics: GET /v1/usage/analytics's work (Ledger.daily) for one account, over a ledger of --rows
//    rows in day-partitioned Parquet segments (30 days, 1,000 accounts) plus rows still in the store.
// The per-request overhead on the HTTP path is the meter column of `npm run bench` (Server-Timing).
// It prints the figures and writes them as JSON under bench/results/.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { migrate } from '../src/db/migrate.js';
import { PgliteStore } from '../src/db/pglite-store.js';
import { QueryEngine } from '../src/jobs/engine.js';
import { createAccount, findAccount } from '../src/metering/accounts.js';
import { issueKey, type Caller } from '../src/metering/keys.js';
import { Ledger } from '../src/metering/ledger.js';
import { Meter } from '../src/metering/meter.js';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '10000000' }, seconds: { type: 'string', default: '10' } },
  strict: true,
});
const rows = Number(values.rows);
const seconds = Number(values.seconds);
const logger = pino({ level: 'silent' });
const root = await mkdtemp(join(tmpdir(), 'jps-bench-metering-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!;

try {
  const store = await PgliteStore.open(join(root, 'state'));
  await migrate(store);
  const callers: Caller[] = [];
  for (let i = 0; i < 200; i++) {
    const account = await createAccount(store, { plan: 'paid-500k' });
    const key = await issueKey(store, account.account_id);
    callers.push({ keyId: key.key_id, account: (await findAccount(store, account.account_id))! });
  }

  // 1. Admissions a second: admit + settle (one record), 4 callers, round robin over the accounts.
  // The clock moves a minute per 60 requests of an account so that no window fills up.
  let n = 0;
  const clock = () => new Date(Date.UTC(2026, 10, 2) + Math.floor(n / callers.length / 50) * 60_000);
  const meter = new Meter(store, clock, logger);
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < until) {
        const caller = callers[n % callers.length]!;
        const requestId = `req_bench_${n++}`;
        const t0 = performance.now();
        const { ticket, refusal } = await meter.admit(caller, { requestId, method: 'GET', route: '/v1/jobs/{jobId}', routeClass: 'jobs_get', metered: true });
        if (refusal) throw new Error(`refused: ${refusal}`);
        if (!(await meter.settle(ticket, { status: 200, records: 1 }))) throw new Error('not charged');
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const admitted = latencies.length / ((performance.now() - started) / 1000);
  const [ledgerRows] = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger');
  const [charged] = await store.query<{ n: number }>('SELECT sum(records_used)::int AS n FROM usage_months');
  if (ledgerRows!.n !== latencies.length || charged!.n !== latencies.length) throw new Error(`ledger ${ledgerRows!.n} rows, ${charged!.n} records charged, for ${latencies.length} requests`);
  console.log(`admissions  ${admitted.toFixed(0)} admitted and settled a second (embedded store, 4 callers); admit+settle median ${median(latencies).toFixed(3)} ms, p99 ${p99(latencies).toFixed(3)} ms`);

  // 2. Analytics over `rows` ledger rows: Parquet segments written by DuckDB in the compactor's layout,
  // registered as durable, plus the rows of part 1 still in the store.
  const engine = await QueryEngine.open({ timeoutMs: 600_000 });
  const ledgerDir = join(root, 'ledger');
  const accounts = callers.slice(0, 1).map((c) => c.account.account_id);
  const days = 30;
  const perDay = Math.ceil(rows / days);
  const t0 = performance.now();
  for (let d = 0; d < days; d++) {
    const day = new Date(Date.UTC(2026, 9, 1 + d)).toISOString().slice(0, 10);
    const [segment] = await store.query<{ segment_id: string }>("INSERT INTO ledger_segments (day, state, rows) VALUES ($1::date, 'durable', $2) RETURNING segment_id", [day, perDay]);
    await mkdir(join(ledgerDir, `day=${day}`), { recursive: true });
    const path = join(ledgerDir, `day=${day}`, `segment-${segment!.segment_id}.parquet`);
    // One account in a thousand is the measured one; the rest are the other 999 accounts.
    await engine.withConnection((c) =>
      c.run(
        `COPY (
           SELECT (${d} * ${perDay} + i)::BIGINT AS seq, 'req_' || (${d} * ${perDay} + i) AS request_id,
                  CASE WHEN i % 1000 = 0 THEN '${accounts[0]}' ELSE 'acct_other_' || (i % 1000) END AS account_id,
                  'key' || (i % 3) AS api_key_id,
                  TIMESTAMPTZ '${day} 00:00:00+00' + to_milliseconds((i * 86399999 // ${perDay})::BIGINT) AS occurred_at,
                  'GET' AS method, '/v1/jobs' AS route, ['jobs_list', 'jobs_search', 'jobs_get', 'jobs_count'][1 + i % 4] AS route_class,
                  (CASE WHEN i % 50 = 0 THEN 400 ELSE 200 END)::SMALLINT AS status, (i % 51)::BIGINT AS records_charged,
                  0::BIGINT AS overage_micros, 'included' AS settlement_status
           FROM range(${perDay}) t(i)
           ORDER BY account_id, seq
         ) TO '${path}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000)`,
      ),
    );
  }
  const writeSeconds = (performance.now() - t0) / 1000;
  const ledger = new Ledger(store, engine, ledgerDir, logger);
  const times: number[] = [];
  let result: Awaited<ReturnType<Ledger['daily']>> = [];
  for (let run = 0; run < 21; run++) {
    const t = performance.now();
    result = await ledger.daily(accounts[0]!, '2026-10-01', '2026-11-30', run % 2 === 0 ? null : 'route_class');
    times.push(performance.now() - t);
  }
  const total = result.reduce((sum, r) => sum + r.requests, 0);
  console.log(
    `analytics   ${rows.toLocaleString('en-US')} ledger rows in ${days} daily segments (written in ${writeSeconds.toFixed(1)} s): ` +
      `one account's ${total.toLocaleString('en-US')} requests over 61 days, median ${median(times).toFixed(1)} ms, p99 ${p99(times).toFixed(1)} ms (21 runs)`,
  );
  engine.close();
  await store.close();

  await mkdir(new URL('./results/', import.meta.url), { recursive: true });
  const file = new URL(`./results/metering-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, import.meta.url);
  await writeFile(
    file,
    JSON.stringify(
      {
        at: new Date().toISOString(),
        admissions: { per_second: admitted, median_ms: median(latencies), p99_ms: p99(latencies), callers: 4, accounts: callers.length },
        analytics: { ledger_rows: rows, median_ms: median(times), p99_ms: p99(times), runs: times.length, account_requests: total },
      },
      null,
      2,
    ),
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
