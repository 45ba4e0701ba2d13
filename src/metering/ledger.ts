// The request ledger (DESIGN.md 5 and 6): every admitted request is a row of the state store, written at
// admission and settled when it is answered. Settled rows move into day-partitioned Parquet segments
// under data/ledger/, merged into one per closed UTC day and month (ledger-segments.ts). The usage routes
// read the segments through DuckDB together with the rows still in the store, listing both in one
// snapshot of the store: a row is in exactly one place for them.

import type { Logger } from 'pino';
import { namedQueries } from '../db/sql-files.js';
import type { Queryable, StateStore } from '../db/state-store.js';
import { ApiError } from '../errors.js';
import type { QueryEngine } from '../jobs/engine.js';
import { segmentFile, type SegmentRef } from './ledger-files.js';
import { readDaily, readEvents, type SegmentDay } from './ledger-read.js';
import { LedgerSegments, type Crash } from './ledger-segments.js';

const SQL = namedQueries('state/ledger.sql', ['high_water', 'page', 'event_segments', 'durable_segments', 'daily']);

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

export interface LedgerOptions {
  /** The service clock: which UTC days have closed, and the age of rows for the compaction grace. */
  clock?: () => Date;
  /** Settled rows stay in the store this long after they occurred (0: none stay), so that a response
   * whose client left mid-body can still be refunded there. */
  compactGraceMs?: number;
  /** Files replaced by a merge stay this long, for readers that listed them before it. */
  retireGraceMs?: number;
  /**
   * Whether no other process uses the store, so that this one takes the background work's lease at once
   * from a holder that died; by default, when the store is the embedded one.
   */
  alone?: boolean;
  /** Whether closed months are merged into one segment as well as days (default true; the bench compares). */
  mergeMonths?: boolean;
}

export const COMPACT_GRACE_MS = 10 * 60_000;
export const RETIRE_GRACE_MS = 10 * 60_000;
/** A listing reads at most this many segment files in one query. */
const MAX_BATCH = 64;
const FIRST_DAY = '2000-01-01';

const toDay = (d: Date) => d.toISOString().slice(0, 10);

export class Ledger {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private readonly segments: LedgerSegments;
  private files = 0;

  constructor(
    private readonly store: StateStore,
    private readonly engine: QueryEngine,
    /** data/ledger */
    readonly dir: string,
    private readonly logger: Logger,
    options: LedgerOptions = {},
  ) {
    this.segments = new LedgerSegments(store, engine, dir, logger, {
      clock: options.clock ?? (() => new Date()),
      compactGraceMs: options.compactGraceMs ?? COMPACT_GRACE_MS,
      retireGraceMs: options.retireGraceMs ?? RETIRE_GRACE_MS,
      alone: options.alone ?? store.kind === 'pglite',
      mergeMonths: options.mergeMonths ?? true,
    });
  }

  /** How many segment files the usage reads have opened so far (what a read costs, for tests and the bench). */
  get filesRead(): number {
    return this.files;
  }

  async highWater(): Promise<number> {
    const [row] = await this.store.query<{ seq: string | number }>(SQL.high_water);
    return Number(row!.seq);
  }

  /**
   * Up to `limit` events of the filter, newest first, from the store and the durable segments. The
   * segments are read newest first, in growing batches, until no segment left can hold a row of the page.
   */
  async events(f: EventFilter, limit: number): Promise<LedgerEvent[]> {
    const before = Number.isFinite(f.before) ? f.before : Number.MAX_SAFE_INTEGER;
    const { stored, segments } = await this.consistent(async (tx) => ({
      stored: await tx.query<Record<string, unknown>>(SQL.page, [f.accountId, f.highWater, before, f.capturedAt, f.start, f.end, f.routeClass, f.apiKeyId, limit, f.exclude]),
      segments: await tx.query<SegmentRef & { max_seq: string | null }>(SQL.event_segments, [
        f.start ? toDay(f.start) : FIRST_DAY,
        toDay(f.end ?? f.capturedAt),
        Math.min(f.highWater, before - 1),
      ]),
    }));
    let events = stored.map(toEvent);
    let next = 0;
    for (let batch = 1; next < segments.length; batch = Math.min(batch * 2, MAX_BATCH)) {
      const newest = segments[next]!.max_seq;
      if (events.length >= limit && newest !== null && events[limit - 1]!.seq > Number(newest)) break;
      const files = segments.slice(next, next + batch).map((s) => segmentFile(this.dir, s));
      next += files.length;
      const read = await this.readSegments(files, () => readEvents(this.engine, files, { ...f, before }, limit));
      events = [...events, ...read.map(toEvent)].sort((a, b) => b.seq - a.seq).slice(0, limit);
    }
    return events;
  }

  /** Daily aggregates of an account from `first` to `last` (UTC days, inclusive), optionally per group. */
  async daily(accountId: string, first: string, last: string, groupBy: 'route_class' | 'api_key_id' | null): Promise<DailyRow[]> {
    const from = new Date(`${first}T00:00:00Z`);
    const to = new Date(new Date(`${last}T00:00:00Z`).getTime() + 86_400_000);
    const { stored, segments } = await this.consistent(async (tx) => ({
      stored: await tx.query<{ date: string; grp: string | null; requests: string; records: string; errors: string; overage_micros: string }>(SQL.daily, [accountId, from, to, groupBy]),
      segments: await tx.query<SegmentRef>(SQL.durable_segments, [first, last]),
    }));
    const days: SegmentDay[] = stored.map((r) => ({
      date: r.date,
      group: r.grp,
      requests: Number(r.requests),
      records: Number(r.records),
      errors: Number(r.errors),
      micros: Number(r.overage_micros),
    }));
    if (segments.length > 0) {
      const files = segments.map((s) => segmentFile(this.dir, s));
      days.push(...(await this.readSegments(files, () => readDaily(this.engine, files, accountId, from, to, groupBy))));
    }
    return sumDays(days, groupBy !== null);
  }

  /** Reads segment files; one that cannot be read makes the usage routes 503 service_unavailable. */
  private async readSegments<T>(files: string[], read: () => Promise<T>): Promise<T> {
    this.files += files.length;
    try {
      return await read();
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
   * `graceMs` overrides the compaction grace; `crash` lets tests stop it at each step, as a kill would.
   */
  compact(options: { crash?: Crash; graceMs?: number } = {}): Promise<number> {
    return this.segments.compact(options.crash, options.graceMs);
  }

  /** Merges each closed day's and month's segments into one (the open day's by batches); returns how many merges finished. */
  merge(options: { crash?: Crash } = {}): Promise<number> {
    return this.segments.merge(options.crash);
  }

  /** Deletes the files merges replaced once the grace period is over, and dead runs' temporaries. */
  sweep(options: { crash?: Crash } = {}): Promise<number> {
    return this.segments.sweep(options.crash);
  }

  /** One run of the background work: compaction, merging, deletion; each is retried on the next run if it fails. */
  async maintain(): Promise<void> {
    for (const [work, run] of [
      ['compaction', () => this.compact()],
      ['merging', () => this.merge()],
      ['deleting replaced files', () => this.sweep()],
    ] as const) {
      await run().catch((error: unknown) => this.logger.error({ err: error }, `ledger ${work} failed; it is retried on the next run`));
    }
  }

  /** Runs maintain() every `ms` until stop(); one run at a time. 0 turns it off (another replica does it). */
  startCompacting(ms: number): void {
    if (ms <= 0) return;
    const tick = () => {
      this.running = this.maintain().then(() => {
        if (this.timer !== null) this.timer = setTimeout(tick, ms);
      });
    };
    this.timer = setTimeout(tick, ms);
  }

  /** Stops the background work after the current run and gives up its lease. */
  async stopCompacting(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await this.segments.release().catch((error: unknown) => this.logger.warn({ err: error }, 'the ledger lease could not be given up; it lapses'));
  }
}

/** Adds up per-day (and group) figures from the store and the segments, in date then group order. */
function sumDays(days: SegmentDay[], grouped: boolean): DailyRow[] {
  const totals = new Map<string, SegmentDay>();
  for (const d of days) {
    const key = `${d.date}\u0000${d.group ?? ''}`;
    const t = totals.get(key) ?? { date: d.date, group: d.group, requests: 0, records: 0, errors: 0, micros: 0 };
    t.requests += d.requests;
    t.records += d.records;
    t.errors += d.errors;
    t.micros += d.micros;
    totals.set(key, t);
  }
  return [...totals.values()]
    .sort((a, b) => (a.date === b.date ? (a.group ?? '').localeCompare(b.group ?? '') : a.date < b.date ? -1 : 1))
    .map((t) => ({
      date: t.date,
      ...(grouped ? { group: t.group ?? '' } : {}),
      requests: t.requests,
      records: t.records,
      errors: t.errors,
      overage_usd: t.micros / 1e6,
    }));
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
