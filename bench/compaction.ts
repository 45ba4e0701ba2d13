// The ledger's background work on the embedded store (issue 24): how long it holds the store's thread
// and the main thread, which the requests being answered share with it.
// `npm run bench:compaction -- [--rows 600000] [--rounds 2]`.
// A ledger of --rows settled rows in a store in its own thread, as a server opens it (the compaction
// grace's worth at 1,000 metered requests a second is 600,000), over 200 accounts, in one UTC day; its
// statistics are those of a small table (PGlite runs no autovacuum and so no autoanalyze: a server's
// table is analyzed only when a vacuum follows a compaction). Then one run of Ledger.maintain(), as a
// server runs it every minute (compaction, merging, deletion, the vacuum), every call of the store
// timed: the longest call is the longest a settlement waits behind it; and the main thread's longest
// stall (its event loop's delay), the longest a request waits. Each round on a new store.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { QueryEngine } from '../src/db/engine.js';
import { migrate } from '../src/db/migrate.js';
import { PgliteThreadStore } from '../src/db/pglite-thread-store.js';
import type { Queryable, StateStore } from '../src/db/state-store.js';
import { Ledger } from '../src/metering/ledger.js';
import { writeResults } from './results.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '600000' },
    rounds: { type: 'string', default: '2' },
  },
  strict: true,
});
const ROWS = Number(values.rows);
const DAY = Date.UTC(2026, 10, 2, 9);

/** A store whose every call (a transaction counts as one) is timed, under the first words of its statement. */
class TimedStore implements StateStore {
  readonly kind = 'pglite' as const;
  readonly calls: { what: string; ms: number }[] = [];
  constructor(private readonly inner: StateStore) {}

  private async timed<T>(what: string, work: () => Promise<T>): Promise<T> {
    const began = performance.now();
    try {
      return await work();
    } finally {
      this.calls.push({ what, ms: performance.now() - began });
    }
  }

  query<Row>(sql: string, params?: readonly unknown[]): Promise<Row[]> {
    return this.timed(sql.trim().split(/\s+/).slice(0, 4).join(' '), () => this.inner.query<Row>(sql, params));
  }
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.timed('a transaction', () => this.inner.transaction(work));
  }
  listen(channel: string, onNotice: (payload: string) => void, onLost: () => void) {
    return this.inner.listen(channel, onNotice, onLost);
  }
  close() {
    return this.inner.close();
  }
}

/** `count` settled rows of a GET /v1/jobs/{jobId} each, `from` the first, one a millisecond over 200 accounts. */
async function settledRows(store: StateStore, from: number, count: number, start: number): Promise<void> {
  await store.query(
    `INSERT INTO ledger (request_id, account_id, api_key_id, occurred_at, method, route, route_class, status, records_charged, settlement_status)
     SELECT 'req_bench_' || g, 'acct_bench_' || (g % 200), 'key_bench_' || (g % 200), $3::timestamptz + g * interval '1 millisecond',
            'GET', '/v1/jobs/{jobId}', 'jobs_get', 200, 1, 'included'
     FROM generate_series($1::bigint, $2::bigint) AS g`,
    [from, from + count - 1, new Date(start)],
  );
}

async function round(): Promise<Record<string, unknown>> {
  const root = await mkdtemp(join(tmpdir(), 'jps-bench-compaction-'));
  const inner = await PgliteThreadStore.open(join(root, 'state'));
  const engine = await QueryEngine.open({ timeoutMs: 600_000 });
  try {
    await migrate(inner);
    // The table as a server's first minutes leave it, analyzed then; the rows of ten minutes after.
    await settledRows(inner, 1, 1000, DAY);
    await inner.query('ANALYZE ledger');
    await settledRows(inner, 1001, ROWS - 1000, DAY);
    const store = new TimedStore(inner);
    const clock = () => new Date(DAY + ROWS + 60_000);
    const ledger = new Ledger(store, engine, join(root, 'ledger'), pino({ level: 'silent' }), { clock, compactGraceMs: 0 });
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const began = performance.now();
    await ledger.maintain();
    const seconds = (performance.now() - began) / 1000;
    loop.disable();
    const [left] = await inner.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger');
    if (left!.n !== 0) throw new Error(`${left!.n} rows of ${ROWS} left in the store after compaction`);
    const longest = store.calls.reduce((a, b) => (b.ms > a.ms ? b : a));
    const storeSeconds = store.calls.reduce((sum, c) => sum + c.ms, 0) / 1000;
    const kinds: Record<string, { calls: number; total_ms: number; longest_ms: number }> = {};
    for (const c of store.calls) {
      const k = (kinds[c.what] ??= { calls: 0, total_ms: 0, longest_ms: 0 });
      k.calls++;
      k.total_ms += c.ms;
      k.longest_ms = Math.max(k.longest_ms, c.ms);
    }
    const figures = {
      rows: ROWS,
      seconds,
      store_calls: store.calls.length,
      store_seconds: storeSeconds,
      longest_call_ms: longest.ms,
      longest_call: longest.what,
      main_thread_longest_stall_ms: loop.max / 1e6,
      calls: kinds,
    };
    console.log(
      `maintain  ${ROWS.toLocaleString('en-US')} rows in ${seconds.toFixed(1)} s: ${store.calls.length} calls of the store, ${storeSeconds.toFixed(1)} s in all, ` +
        `the longest ${longest.ms.toFixed(0)} ms (${longest.what}); the main thread's longest stall ${figures.main_thread_longest_stall_ms.toFixed(0)} ms`,
    );
    for (const [what, k] of Object.entries(kinds).sort((a, b) => b[1].total_ms - a[1].total_ms))
      console.log(
        `  ${what.padEnd(40)} ${String(k.calls).padStart(3)} calls, ${k.total_ms.toFixed(0).padStart(6)} ms, the longest ${k.longest_ms.toFixed(0)} ms`,
      );
    return figures;
  } finally {
    engine.close();
    await inner.close();
    await rm(root, { recursive: true, force: true });
  }
}

const rounds = [];
for (let i = 0; i < Number(values.rounds); i++) rounds.push(await round());
await writeResults('compaction', { at: new Date().toISOString(), rounds });
