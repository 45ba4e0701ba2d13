// The request ledger (DESIGN.md 5 and 6): every admitted request is a row of the state store, written at
// admission and settled when it is answered. Settled rows move into day-partitioned Parquet segments in
// the data store (ledger/ in the object store, or data/ledger/ on one node: ledger-files.ts), merged into
// one per closed UTC day and month (ledger-segments.ts). The usage routes of any node read the segments
// through DuckDB together with the rows still in the store, listing both in one snapshot of the store: a
// row is in exactly one place for them.

import type { Logger } from 'pino';
import { namedQueries } from '../db/sql-files.js';
import type { Queryable, StateStore } from '../db/state-store.js';
import { ApiError } from '../errors.js';
import type { QueryEngine } from '../db/engine.js';
import { SegmentFiles, type LedgerPlace, type SegmentRef } from './ledger-files.js';
import { readDaily, readEvents, type EventFilter, type SegmentDay } from './ledger-read.js';
import { LedgerSegments, type Crash } from './ledger-segments.js';

export type { EventFilter } from './ledger-read.js';

const SQL = namedQueries('state/ledger.sql', [
  'high_water',
  'page',
  'event_segments',
  'durable_segments',
  'daily',
  'known_segments',
  'vacuum_due',
  'vacuum',
]);

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

export interface DailyRow {
  date: string;
  group?: string;
  requests: number;
  records: number;
  errors: number;
  refused: number;
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
/** A node whose reads copy segments into its cache prunes it at most this often (its ledger runs do too). */
const CACHE_PRUNE_MS = 10 * 60_000;
const FIRST_DAY = '2000-01-01';

const toDay = (d: Date) => d.toISOString().slice(0, 10);

export class Ledger {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private readonly segments: LedgerSegments;
  private readonly files: SegmentFiles;
  private opened = 0;
  private prunedAt = Date.now();
  /** Rows compaction removed from the store since its last vacuum (embedded store). */
  private removed = 0;

  constructor(
    private readonly store: StateStore,
    private readonly engine: QueryEngine,
    /** ctx.stores (ledger/ in stores.data), or a ledger folder. */
    place: LedgerPlace,
    private readonly logger: Logger,
    options: LedgerOptions = {},
  ) {
    this.files = SegmentFiles.at(place);
    this.segments = new LedgerSegments(store, engine, this.files, logger, {
      clock: options.clock ?? (() => new Date()),
      compactGraceMs: options.compactGraceMs ?? COMPACT_GRACE_MS,
      retireGraceMs: options.retireGraceMs ?? RETIRE_GRACE_MS,
      alone: options.alone ?? store.kind === 'pglite',
      mergeMonths: options.mergeMonths ?? true,
    });
  }

  /** How many segment files the usage reads have opened so far (what a read costs, for tests and the bench). */
  get filesRead(): number {
    return this.opened;
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
      stored: await tx.query<Record<string, unknown>>(SQL.page, [
        f.accountId,
        f.highWater,
        before,
        f.capturedAt,
        f.start,
        f.end,
        f.routeClass,
        f.apiKeyId,
        limit,
        f.exclude,
      ]),
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
      const some = segments.slice(next, next + batch);
      next += some.length;
      const read = await this.readSegments(some, (files) => readEvents(this.engine, files, { ...f, before }, limit));
      events = [...events, ...read.map(toEvent)].sort((a, b) => b.seq - a.seq).slice(0, limit);
    }
    return events;
  }

  /** Daily aggregates of an account from `first` to `last` (UTC days, inclusive), optionally per group. */
  async daily(accountId: string, first: string, last: string, groupBy: 'route_class' | 'api_key_id' | null): Promise<DailyRow[]> {
    const from = new Date(`${first}T00:00:00Z`);
    const to = new Date(new Date(`${last}T00:00:00Z`).getTime() + 86_400_000);
    const { stored, segments } = await this.consistent(async (tx) => ({
      stored: await tx.query<{
        date: string;
        grp: string | null;
        requests: string;
        records: string;
        errors: string;
        refused: string;
        overage_micros: string;
      }>(SQL.daily, [accountId, from, to, groupBy]),
      segments: await tx.query<SegmentRef>(SQL.durable_segments, [first, last]),
    }));
    const days: SegmentDay[] = stored.map((r) => ({
      date: r.date,
      group: r.grp,
      requests: Number(r.requests),
      records: Number(r.records),
      errors: Number(r.errors),
      refused: Number(r.refused),
      micros: Number(r.overage_micros),
    }));
    if (segments.length > 0)
      days.push(...(await this.readSegments(segments, (files) => readDaily(this.engine, files, accountId, from, to, groupBy))));
    return sumDays(days, groupBy !== null);
  }

  /** Reads segments' files; one that cannot be read makes the usage routes 503 service_unavailable. */
  private async readSegments<T>(segments: SegmentRef[], read: (files: string[]) => Promise<T>): Promise<T> {
    this.opened += segments.length;
    let result: T;
    try {
      result = await this.files.read(segments, read);
    } catch (error) {
      if (error instanceof ApiError) throw error; // query_timeout
      this.logger.error({ err: error, segments: this.files.location }, 'a ledger segment could not be read');
      throw new ApiError('service_unavailable', 'The usage ledger cannot be read right now; retry shortly.');
    }
    // A node that does not run the ledger's work (--ledger-compact-ms 0) prunes its cache here.
    if (Date.now() - this.prunedAt >= CACHE_PRUNE_MS)
      await this.pruneCache().catch((error: unknown) => this.logger.warn({ err: error }, 'the ledger cache could not be pruned'));
    return result;
  }

  /** Removes this node's cached copies of segments the store no longer holds (ledger-files.ts). */
  private async pruneCache(): Promise<void> {
    this.prunedAt = Date.now();
    if (!this.files.cached) return;
    const known = await this.store.query<{ segment_id: string | number }>(SQL.known_segments);
    const removed = await this.files.prune(new Set(known.map((s) => String(s.segment_id))));
    if (removed.length > 0) this.logger.debug({ files: removed.length }, 'ledger cache pruned');
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

  /**
   * Deletes the segments merges replaced once the grace period is over, and dead runs' temporaries (on
   * the lease); then, on every node, the cached copies of the segments no longer in the store.
   */
  async sweep(options: { crash?: Crash } = {}): Promise<number> {
    const deleted = await this.segments.sweep(options.crash);
    await this.pruneCache();
    return deleted;
  }

  /**
   * One run of the background work: compaction, merging, deletion, then on the embedded store a vacuum
   * of the ledger when due; each is retried on the next run if it fails.
   */
  async maintain(): Promise<void> {
    for (const [work, run] of [
      ['compaction', async () => (this.removed += await this.compact())],
      ['merging', () => this.merge()],
      ['deleting replaced files', () => this.sweep()],
      ['vacuum', () => this.vacuum()],
    ] as const) {
      await run().catch((error: unknown) => this.logger.error({ err: error }, `ledger ${work} failed; it is retried on the next run`));
    }
  }

  /**
   * Vacuums the ledger table of the embedded store once compaction has removed enough of its rows
   * (vacuum_due): PGlite runs no autovacuum, and without it the space of removed rows is never used
   * again, so the table and its indexes would grow with every request ever served. A shared PostgreSQL
   * server vacuums itself. Returns whether it vacuumed.
   */
  async vacuum(): Promise<boolean> {
    if (this.store.kind !== 'pglite' || this.removed === 0) return false;
    const [row] = await this.store.query<{ due: boolean }>(SQL.vacuum_due, [this.removed]);
    if (!row?.due) return false;
    const began = performance.now();
    await this.store.query(SQL.vacuum);
    this.logger.debug({ rows: this.removed, ms: Math.round(performance.now() - began) }, 'ledger vacuumed');
    this.removed = 0;
    return true;
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
    await this.segments
      .release()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'the ledger lease could not be given up; it lapses'));
  }
}

/** Adds up per-day (and group) figures from the store and the segments, in date then group order. */
function sumDays(days: SegmentDay[], grouped: boolean): DailyRow[] {
  const totals = new Map<string, SegmentDay>();
  for (const d of days) {
    const key = `${d.date}\u0000${d.group ?? ''}`;
    const t = totals.get(key) ?? { date: d.date, group: d.group, requests: 0, records: 0, errors: 0, refused: 0, micros: 0 };
    t.requests += d.requests;
    t.records += d.records;
    t.errors += d.errors;
    t.refused += d.refused;
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
      refused: t.refused,
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
