// The request ledger (DESIGN.md 5 and 6): every admitted request is a row of the state store, written at
// admission and settled when it is answered. The compactor moves settled rows into day-partitioned
// Parquet segments under data/ledger/; the usage routes read the segments through DuckDB together with
// the rows still in the store.
//
// Compaction never loses or doubles a row, wherever it is stopped: (1) one transaction claims settled
// rows for a new segment ('writing'); (2) the segment's file is written under a temporary name, fsynced
// and renamed into place; (3) one transaction deletes the claimed rows and marks the segment 'durable'.
// Readers read durable segments only, so a row is in exactly one place for them. A segment left
// 'writing' by a crash is written again from its rows, which are still in the store.

import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { fsyncPath } from '../catalog/files.js';
import { namedQueries } from '../db/sql-files.js';
import type { Queryable, StateStore } from '../db/state-store.js';
import type { DuckDBValue } from '@duckdb/node-api';
import { ApiError } from '../errors.js';
import type { QueryEngine } from '../jobs/engine.js';

const SQL = namedQueries('state/ledger.sql', ['high_water', 'page', 'durable_segments', 'daily', 'begin_segments', 'set_rows', 'writing', 'segment_rows', 'finish_segment']);

/** A usage request event (DESIGN.md 5), with its seq for paging. */
export interface LedgerEvent {
  seq: number;
  request_id: string;
  occurred_at: string;
  method: string;
  route: string;
  route_class: string;
  /** null while pending. */
  status: number | null;
  api_key_id: string;
  records_charged: number;
  settlement_status: string;
}

export interface EventFilter {
  accountId: string;
  start: Date | null;
  end: Date | null;
  routeClass: string | null;
  apiKeyId: string | null;
  /** Only rows admitted up to this seq and this instant (a cursor's frozen membership). */
  highWater: number;
  capturedAt: Date;
  /** Only rows before this seq (the cursor position); Infinity from the first. */
  before: number;
  /** The listing request's own row, left out. */
  exclude: string;
}

export interface DailyRow {
  date: string;
  group?: string;
  requests: number;
  records: number;
  errors: number;
  overage_usd: number;
}

/** Rows per Parquet segment. */
const SEGMENT_ROWS = 200_000;
const LOCK_KEY = 7_441_002;
const FIRST_DAY = '2000-01-01';

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;
const toDay = (d: Date) => d.toISOString().slice(0, 10);

export class Ledger {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: StateStore,
    private readonly engine: QueryEngine,
    /** data/ledger */
    readonly dir: string,
    private readonly logger: Logger,
  ) {}

  private segmentPath(id: number | string, day: string): string {
    return join(this.dir, `day=${day}`, `segment-${id}.parquet`);
  }

  async highWater(): Promise<number> {
    const [row] = await this.store.query<{ seq: string | number }>(SQL.high_water);
    return Number(row!.seq);
  }

  /** Up to `limit` events of the filter, newest first, from the store and the durable segments. */
  async events(f: EventFilter, limit: number): Promise<LedgerEvent[]> {
    const { stored, segments } = await this.consistent(async (tx) => ({
      stored: await tx.query<Record<string, unknown>>(SQL.page, [
        f.accountId,
        f.highWater,
        Number.isFinite(f.before) ? f.before : Number.MAX_SAFE_INTEGER,
        f.capturedAt,
        f.start,
        f.end,
        f.routeClass,
        f.apiKeyId,
        limit,
        f.exclude,
      ]),
      segments: await tx.query<{ segment_id: string; day: string }>(SQL.durable_segments, [f.start ? toDay(f.start) : FIRST_DAY, toDay(f.end ?? f.capturedAt)]),
    }));
    const events = stored.map(toEvent);
    if (segments.length > 0) {
      const files = segments.map((s) => quote(this.segmentPath(s.segment_id, s.day))).join(', ');
      const rows = await this.readSegments(
        `SELECT seq, request_id, epoch_ms(occurred_at) AS occurred_at, method, route, route_class, status, api_key_id, records_charged, settlement_status
         FROM read_parquet([${files}])
         WHERE account_id = $account AND seq <= $hw AND seq < $before AND occurred_at <= $captured
           AND ($start IS NULL OR occurred_at >= $start::TIMESTAMPTZ) AND ($end IS NULL OR occurred_at < $end::TIMESTAMPTZ)
           AND ($class IS NULL OR route_class = $class) AND ($key IS NULL OR api_key_id = $key)
         ORDER BY seq DESC LIMIT $limit`,
        {
          account: f.accountId,
          hw: BigInt(f.highWater),
          before: BigInt(Number.isFinite(f.before) ? f.before : Number.MAX_SAFE_INTEGER),
          captured: f.capturedAt.toISOString(),
          start: f.start?.toISOString() ?? null,
          end: f.end?.toISOString() ?? null,
          class: f.routeClass,
          key: f.apiKeyId,
          limit,
        },
      );
      const names = ['seq', 'request_id', 'occurred_at', 'method', 'route', 'route_class', 'status', 'api_key_id', 'records_charged', 'settlement_status'];
      for (const row of rows) events.push(toEvent(Object.fromEntries(names.map((n, i) => [n, row[i]]))));
    }
    return events.sort((a, b) => b.seq - a.seq).slice(0, limit);
  }

  /** Daily aggregates of an account from `first` to `last` (UTC days, inclusive), optionally per group. */
  async daily(accountId: string, first: string, last: string, groupBy: 'route_class' | 'api_key_id' | null): Promise<DailyRow[]> {
    const from = new Date(`${first}T00:00:00Z`);
    const to = new Date(new Date(`${last}T00:00:00Z`).getTime() + 86_400_000);
    const { stored, segments } = await this.consistent(async (tx) => ({
      stored: await tx.query<{ date: string; grp: string | null; requests: string; records: string; errors: string; overage_micros: string }>(SQL.daily, [accountId, from, to, groupBy]),
      segments: await tx.query<{ segment_id: string; day: string }>(SQL.durable_segments, [first, last]),
    }));
    const totals = new Map<string, { date: string; group: string | null; requests: number; records: number; errors: number; micros: number }>();
    const add = (date: string, group: string | null, requests: number, records: number, errors: number, micros: number) => {
      const key = `${date}\u0000${group ?? ''}`;
      const t = totals.get(key) ?? { date, group, requests: 0, records: 0, errors: 0, micros: 0 };
      t.requests += requests;
      t.records += records;
      t.errors += errors;
      t.micros += micros;
      totals.set(key, t);
    };
    for (const r of stored) add(r.date, r.grp, Number(r.requests), Number(r.records), Number(r.errors), Number(r.overage_micros));
    if (segments.length > 0) {
      const files = segments.map((s) => quote(this.segmentPath(s.segment_id, s.day))).join(', ');
      const group = groupBy === null ? 'NULL' : groupBy;
      const rows = await this.readSegments(
        `SELECT strftime(occurred_at AT TIME ZONE 'UTC', '%Y-%m-%d') AS date, ${group} AS grp, count(*), sum(records_charged),
                count(*) FILTER (WHERE status >= 400), sum(overage_micros)
         FROM read_parquet([${files}])
         WHERE account_id = $account
         GROUP BY ALL`,
        { account: accountId },
      );
      for (const [date, grp, requests, records, errors, micros] of rows) add(date as string, (grp as string | null) ?? null, Number(requests), Number(records), Number(errors), Number(micros));
    }
    return [...totals.values()]
      .sort((a, b) => (a.date === b.date ? (a.group ?? '').localeCompare(b.group ?? '') : a.date < b.date ? -1 : 1))
      .map((t) => ({
        date: t.date,
        ...(groupBy === null ? {} : { group: t.group ?? '' }),
        requests: t.requests,
        records: t.records,
        errors: t.errors,
        overage_usd: t.micros / 1e6,
      }));
  }

  /** A query over the segments; a segment that cannot be read makes the usage routes 503 service_unavailable. */
  private async readSegments(sql: string, params: Record<string, DuckDBValue>): Promise<unknown[][]> {
    try {
      return await this.engine.rows(sql, params);
    } catch (error) {
      if (error instanceof ApiError) throw error; // query_timeout
      this.logger.error({ err: error, dir: this.dir }, 'a ledger segment could not be read');
      throw new ApiError('service_unavailable', 'The usage ledger cannot be read right now; retry shortly.');
    }
  }

  /** Reads `work` from one snapshot of the store: rows leave it in the transaction that makes their segment durable. */
  private consistent<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.store.transaction(async (tx) => {
      if (this.store.kind === 'postgres') await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return work(tx);
    });
  }

  /**
   * Moves settled rows into Parquet segments until none is left to move; returns how many rows moved.
   * `crash` lets tests stop it at each step, as a kill would.
   */
  async compact(crash?: (step: 'claimed' | 'written' | 'partial') => void): Promise<number> {
    let moved = 0;
    // Segments a stopped run left 'writing' first: their rows are still in the store.
    for (const s of await this.store.query<{ segment_id: string; day: string }>(SQL.writing)) moved += await this.writeSegment(Number(s.segment_id), s.day, crash);
    for (;;) {
      const claimed = await this.store.transaction(async (tx) => {
        // One claimer at a time across replicas sharing the store.
        await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
        const [row] = await tx.query<{ segment_id: string; rows: string }>(SQL.begin_segments, [SEGMENT_ROWS]);
        if (row) await tx.query(SQL.set_rows, [row.segment_id, row.rows]);
        return row;
      });
      if (!claimed) return moved;
      crash?.('claimed');
      const [s] = await this.store.query<{ day: string }>("SELECT to_char(day, 'YYYY-MM-DD') AS day FROM ledger_segments WHERE segment_id = $1", [claimed.segment_id]);
      moved += await this.writeSegment(Number(claimed.segment_id), s!.day, crash);
    }
  }

  private async writeSegment(id: number, day: string, crash?: (step: 'claimed' | 'written' | 'partial') => void): Promise<number> {
    const path = this.segmentPath(id, day);
    const folder = join(this.dir, `day=${day}`);
    await mkdir(folder, { recursive: true });
    // What a run stopped mid-write left of this segment.
    for (const name of await readdir(folder)) if (name.startsWith(`segment-${id}.parquet.tmp-`)) await rm(join(folder, name), { force: true });
    const rows = await this.store.query<Record<string, unknown>>(SQL.segment_rows, [id]);
    const unique = `${process.pid}-${randomBytes(4).toString('hex')}`;
    const lines = join(this.dir, `.segment-${id}-${unique}.jsonl`);
    const tmp = `${path}.tmp-${unique}`;
    await writeFile(lines, rows.map((r) => JSON.stringify({ ...r, occurred_at: new Date(r.occurred_at as Date).toISOString() })).join('\n'));
    try {
      await this.engine.withConnection((c) =>
        c.run(
          `COPY (
             SELECT * FROM read_json(${quote(lines)}, format = 'newline_delimited', columns = {
               seq: 'BIGINT', request_id: 'VARCHAR', account_id: 'VARCHAR', api_key_id: 'VARCHAR', occurred_at: 'TIMESTAMPTZ',
               method: 'VARCHAR', route: 'VARCHAR', route_class: 'VARCHAR', status: 'SMALLINT', records_charged: 'BIGINT',
               overage_micros: 'BIGINT', settlement_status: 'VARCHAR'})
             ORDER BY account_id, seq
           ) TO ${quote(tmp)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000)`,
        ),
      );
    } finally {
      await rm(lines, { force: true });
    }
    crash?.('partial');
    await fsyncPath(tmp);
    await rename(tmp, path);
    await fsyncPath(join(this.dir, `day=${day}`));
    crash?.('written');
    const [done] = await this.store.query<{ rows: string }>(SQL.finish_segment, [id]);
    if (!done) return 0; // another compactor finished it first
    this.logger.debug({ segment: id, day, rows: Number(done.rows) }, 'ledger segment durable');
    return Number(done.rows);
  }

  /** Compacts every `ms` until stop(); one run at a time. 0 turns it off (another replica compacts). */
  startCompacting(ms: number): void {
    if (ms <= 0) return;
    const tick = () => {
      this.running = this.compact()
        .catch((error: unknown) => this.logger.error({ err: error }, 'ledger compaction failed; it is retried on the next run'))
        .then(() => {
          if (this.timer !== null) this.timer = setTimeout(tick, ms);
        });
    };
    this.timer = setTimeout(tick, ms);
  }

  async stopCompacting(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}

function toEvent(r: Record<string, unknown>): LedgerEvent {
  return {
    seq: Number(r.seq),
    request_id: r.request_id as string,
    occurred_at: new Date(typeof r.occurred_at === 'bigint' ? Number(r.occurred_at) : (r.occurred_at as string | Date)).toISOString(),
    method: r.method as string,
    route: r.route as string,
    route_class: r.route_class as string,
    status: r.status === null ? null : Number(r.status),
    api_key_id: r.api_key_id as string,
    records_charged: Number(r.records_charged),
    settlement_status: r.settlement_status as string,
  };
}
