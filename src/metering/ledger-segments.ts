// The ledger's background work on its Parquet segments: compaction (settled rows out of the store into
// a segment), merging (many segments into one) and deleting the files merges replaced.
//
// Compaction never loses or doubles a row, wherever it is stopped: (1) transactions claim settled rows
// for a new segment ('writing'), CALL_ROWS a transaction; (2) the segment's file is written whole, in
// the data store (ledger-files.ts: a local file renamed into place, or an object uploaded), from its
// rows read CALL_ROWS values of seq a call; (3) one transaction deletes the claimed rows and marks the
// segment 'durable'.
// A segment left 'writing' is written again from the rows it had claimed, which are still in the store.
//
// Merging follows the same pattern: (1) one transaction creates a 'merging' segment and claims durable
// segments for it (they stay durable: readers go on reading them); (2) the merged file is written from
// theirs; (3) one transaction makes it durable and retires its inputs. A reader lists durable segments
// in one snapshot, so it sees the inputs or the merged segment, never both; it reads the files after
// that snapshot, so retired files stay for a grace period before they are deleted. A closed UTC day's
// segments become one, and a closed month's one (merge_target in ledger.sql says which and when): a
// year of analytics reads about 60 files rather than 366 or, unmerged, 500,000 (bench/README.md).
//
// One server at a time does this work: each step renews a lease in the store, and another server takes
// it over once the lease has lapsed. Claims also take the advisory lock they always took.

import { DuckDBTimestampTZValue, listValue, type DuckDBAppender } from '@duckdb/node-api';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { namedQueries } from '../db/sql-files.js';
import type { Queryable, StateStore } from '../db/state-store.js';
import type { QueryEngine } from '../db/engine.js';
import { LEVEL, type SegmentFiles, type SegmentRef } from './ledger-files.js';
import { COUNTED, readSegments } from './ledger-read.js';

const SQL = namedQueries('state/ledger.sql', [
  'begin_segment',
  'claim_rows',
  'set_rows',
  'writing',
  'segment_next',
  'segment_rows',
  'finish_segment',
  'take_lease',
  'release_lease',
  'merge_target',
  'begin_merge',
  'merging',
  'merge_inputs',
  'finish_merge',
  'retired_due',
  'forget_segment',
]);

/** Where a test stops the work, as a kill would: after each step of compaction, merging and deletion. */
export type Step = 'claimed' | 'partial' | 'written' | 'merge-claimed' | 'merge-partial' | 'merge-written' | 'deleted';
export type Crash = (step: Step) => void;

export interface SegmentOptions {
  /** The service clock: which UTC days have closed, and how old a row must be to be compacted. */
  clock: () => Date;
  /** Settled rows stay in the store this long after they occurred (0: none stay). */
  compactGraceMs: number;
  /** Replaced files stay this long after their merge, for readers that listed them before it. */
  retireGraceMs: number;
  /** The store is this process's alone (embedded): the lease is taken from any earlier holder at once. */
  alone: boolean;
  /** Whether closed months are merged into one segment too (the bench measures without). */
  mergeMonths: boolean;
}

/** Rows per compacted segment. */
const SEGMENT_ROWS = 200_000;
/**
 * Rows a call of compaction claims, or reads: the store's one thread answers nothing else meanwhile (a
 * settlement, a new key's lookup), so no call holds it long (bench/compaction.ts).
 */
const CALL_ROWS = 20_000;
/** Compaction segments of the open day merged together once there are this many (an hour at 60 s). */
export const OPEN_DAY_BATCH = 60;
/** A month is merged this many days after it closes: rows of its last days settle late (exports). */
export const MONTH_MERGE_DELAY_DAYS = 2;
/** The lease is renewed at every step; a holder silent this long is taken for dead. */
const LEASE_MS = 5 * 60_000;
/** Retired segments deleted between two renewals of the lease. */
const SWEEP_BATCH = 1000;
/** Dead runs' temporaries are looked for at most this often. */
const TEMPORARIES_SCAN_MS = 60 * 60_000;
const LOCK_KEY = 7_441_002;
const PARQUET = '(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000)';
type Append = (appender: DuckDBAppender, value: unknown) => void;
const bigint: Append = (a, v) => a.appendBigInt(BigInt(v as string | number | bigint));
const text: Append = (a, v) => a.appendVarchar(v as string);
const instant: Append = (a, v) => a.appendTimestampTZ(new DuckDBTimestampTZValue(BigInt(new Date(v as Date).getTime()) * 1000n));
const smallint: Append = (a, v) => (v === null ? a.appendNull() : a.appendSmallInt(Number(v)));
const boolean: Append = (a, v) => a.appendBoolean(v as boolean);
/** The columns of a segment file, in order (those of segment_rows), and how a store value is appended. */
const COLUMNS: [name: string, type: string, append: Append][] = [
  ['seq', 'BIGINT', bigint],
  ['request_id', 'VARCHAR', text],
  ['account_id', 'VARCHAR', text],
  ['api_key_id', 'VARCHAR', text],
  ['occurred_at', 'TIMESTAMPTZ', instant],
  ['method', 'VARCHAR', text],
  ['route', 'VARCHAR', text],
  ['route_class', 'VARCHAR', text],
  ['status', 'SMALLINT', smallint],
  ['records_charged', 'BIGINT', bigint],
  ['overage_micros', 'BIGINT', bigint],
  ['settlement_status', 'VARCHAR', text],
  ['counted', 'BOOLEAN', boolean],
];

const toDay = (d: Date) => d.toISOString().slice(0, 10);

export class LedgerSegments {
  /** This server's name on the lease: host, process, and this instance. */
  private readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private held = false;
  private scannedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: StateStore,
    private readonly engine: QueryEngine,
    private readonly files: SegmentFiles,
    private readonly logger: Logger,
    private readonly options: SegmentOptions,
  ) {}

  /** Takes or renews the lease on the background work; false while another server holds it. */
  async hold(): Promise<boolean> {
    const [row] = await this.store.query(SQL.take_lease, [this.holder, LEASE_MS, this.options.alone]);
    this.held = row !== undefined;
    return this.held;
  }

  /** Gives the lease up (a clean stop), so that another server takes the work over at once. */
  async release(): Promise<void> {
    if (this.held) await this.store.query(SQL.release_lease, [this.holder]);
    this.held = false;
  }

  /** Moves settled rows older than `graceMs` into segments until none is left; returns how many rows moved. */
  async compact(crash?: Crash, graceMs = this.options.compactGraceMs): Promise<number> {
    if (!(await this.hold())) return 0;
    let moved = 0;
    // Segments a stopped run left 'writing' first: their rows are still in the store.
    for (const s of await this.store.query<SegmentRef>(SQL.writing)) moved += await this.writeCompacted(s, crash);
    const before = graceMs > 0 ? new Date(this.options.clock().getTime() - graceMs) : null;
    while (await this.hold()) {
      const segment = await this.locked(async (tx) => {
        const [row] = await tx.query<{ segment_id: string; day: string }>(SQL.begin_segment, [before]);
        return row && { ...row, claimed: await this.claim(tx, row.segment_id, CALL_ROWS, before) };
      });
      if (!segment) break;
      // The rest of the segment's rows, a call at a time. A segment left with some of them (a stop, the
      // lease lost) is written with those: the others go to a later segment.
      let { claimed } = segment;
      while (claimed.took === CALL_ROWS && claimed.rows < SEGMENT_ROWS && (await this.hold()))
        claimed = await this.locked((tx) => this.claim(tx, segment.segment_id, Math.min(CALL_ROWS, SEGMENT_ROWS - claimed.rows), before));
      crash?.('claimed');
      moved += await this.writeCompacted({ segment_id: segment.segment_id, day: segment.day, level: LEVEL.compacted }, crash);
    }
    return moved;
  }

  /** A transaction under the advisory lock every claim of compaction and merging takes. */
  private locked<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.store.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
      return work(tx);
    });
  }

  /** Claims at most `most` more settled rows of the segment's day that occurred before `before`: how many it took, how many it holds. */
  private async claim(tx: Queryable, segmentId: string | number, most: number, before: Date | null) {
    const [row] = await tx.query<{ claimed: string; rows: string }>(SQL.claim_rows, [segmentId, most, before]);
    return { took: Number(row?.claimed ?? 0), rows: Number(row?.rows ?? 0) };
  }

  /** The first seq of the segment's rows in the store after `after` (none: null). */
  private async next(segmentId: string | number, after: number): Promise<number | null> {
    const [row] = await this.store.query<{ seq: string | null }>(SQL.segment_next, [segmentId, after]);
    return row?.seq == null ? null : Number(row.seq);
  }

  /**
   * The segment's rows in the store from seq `first` on, CALL_ROWS values of seq a call (each row its
   * columns in COLUMNS' order). A range without rows skips to the next row, so a segment whose seqs are
   * far apart (rows of its day settled late) costs a call or two a row, not one a range.
   */
  private async *pages(segmentId: string | number, first: number): AsyncGenerator<unknown[][]> {
    for (let after: number | null = first - 1; after !== null;) {
      const [page] = await this.store.query<{ rows: string | null }>(SQL.segment_rows, [segmentId, after, after + CALL_ROWS]);
      if (page?.rows) {
        yield JSON.parse(page.rows) as unknown[][];
        after += CALL_ROWS;
      } else {
        const next = await this.next(segmentId, after);
        after = next === null ? null : next - 1;
      }
    }
  }

  private async writeCompacted(segment: SegmentRef, crash?: Crash): Promise<number> {
    const first = await this.next(segment.segment_id, 0);
    // A claim never takes no rows: none means the segment was finished since it was listed (by a server
    // whose lease this one took over), and an empty file must not replace its file.
    if (first === null) return 0;
    const rows = this.pages(segment.segment_id, first);
    await this.files.write(
      segment,
      (temporary) => copyRows(this.engine, rows, temporary),
      () => crash?.('partial'),
    );
    crash?.('written');
    const [done] = await this.store.query<{ rows: string }>(SQL.finish_segment, [segment.segment_id]);
    if (!done) return 0;
    this.logger.debug({ segment: segment.segment_id, day: segment.day, rows: Number(done.rows) }, 'ledger segment durable');
    return Number(done.rows);
  }

  /**
   * Merges until nothing is left to merge: each closed UTC day into one segment, each month closed
   * MONTH_MERGE_DELAY_DAYS ago into one, again whenever rows of them arrive later, and the open day's
   * compaction segments by batches of OPEN_DAY_BATCH. Returns how many merged segments it made durable.
   */
  async merge(crash?: Crash): Promise<number> {
    if (!(await this.hold())) return 0;
    let merged = 0;
    for (const s of await this.store.query<SegmentRef & { rows: string }>(SQL.merging))
      merged += await this.writeMerged(s, Number(s.rows), crash);
    const today = toDay(this.options.clock());
    while (await this.hold()) {
      const claimed = await this.locked(async (tx) => {
        const [target] = await tx.query<{ day: string; scope: 'month' | 'day' | 'open' }>(SQL.merge_target, [
          today,
          OPEN_DAY_BATCH,
          MONTH_MERGE_DELAY_DAYS,
          this.options.mergeMonths,
        ]);
        if (!target) return undefined;
        const [row] = await tx.query<{ segment_id: string; rows: string }>(SQL.begin_merge, [target.day, target.scope]);
        await tx.query(SQL.set_rows, [row!.segment_id, row!.rows]);
        return {
          segment_id: row!.segment_id,
          day: target.day,
          level: target.scope === 'month' ? LEVEL.month : LEVEL.day,
          rows: Number(row!.rows),
        };
      });
      if (!claimed) break;
      crash?.('merge-claimed');
      merged += await this.writeMerged(claimed, claimed.rows, crash);
    }
    return merged;
  }

  private async writeMerged(segment: SegmentRef, rows: number, crash?: Crash): Promise<number> {
    const inputs = await this.store.query<SegmentRef>(SQL.merge_inputs, [segment.segment_id]);
    let range = { min: 0, max: 0 };
    const write = async (temporary: string) => {
      // A day's rows are sorted by account and seq, as compaction writes them; a month's days follow one
      // another, each sorted, rather than sorting a month of every account's rows in memory.
      const written = await this.files.read(inputs, (files) =>
        copyFiles(this.engine, files, temporary, Number(segment.level) !== LEVEL.month),
      );
      // The inputs' row counts were summed at the claim: a file that does not hold them all is not used.
      if (written.rows !== rows)
        throw new Error(
          `ledger merge ${segment.segment_id} of ${segment.day} wrote ${written.rows} rows where its ${inputs.length} segments hold ${rows}`,
        );
      range = written;
    };
    await this.files.write(segment, write, () => crash?.('merge-partial'));
    crash?.('merge-written');
    const retired = await this.store.query(SQL.finish_merge, [segment.segment_id, range.min, range.max]);
    if (retired.length === 0) return 0;
    this.logger.debug(
      { segment: segment.segment_id, day: segment.day, level: segment.level, rows, replaced: retired.length },
      'ledger segments merged',
    );
    return 1;
  }

  /** Deletes the segments retired more than the grace period ago, and dead runs' temporaries. */
  async sweep(crash?: Crash): Promise<number> {
    let deleted = 0;
    while (await this.hold()) {
      const due = await this.store.query<SegmentRef>(SQL.retired_due, [this.options.retireGraceMs, SWEEP_BATCH]);
      for (const s of due) {
        await this.files.delete(s);
        crash?.('deleted');
        await this.store.query(SQL.forget_segment, [s.segment_id]);
      }
      deleted += due.length;
      if (due.length < SWEEP_BATCH) break;
    }
    if (this.held && Date.now() - this.scannedAt >= TEMPORARIES_SCAN_MS) {
      this.scannedAt = Date.now();
      const removed = await this.files.removeDeadTemporaries(this.options.retireGraceMs);
      if (removed.length > 0) this.logger.info({ files: removed }, 'removed the temporaries of stopped ledger runs');
    }
    return deleted;
  }
}

/** Writes a segment's rows, page after page, to the Parquet file `path`, sorted by account and seq, without a temporary file. */
async function copyRows(engine: QueryEngine, pages: AsyncIterable<unknown[][]>, path: string): Promise<void> {
  await engine.withConnection(async (c) => {
    await c.run(`CREATE OR REPLACE TEMP TABLE ledger_segment_rows (${COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ')})`);
    try {
      const appender = await c.createAppender('ledger_segment_rows');
      try {
        for await (const rows of pages) {
          for (const row of rows) {
            COLUMNS.forEach(([, , append], i) => append(appender, row[i]));
            appender.endRow();
          }
        }
      } finally {
        appender.closeSync();
      }
      await c.run(`COPY (SELECT * FROM ledger_segment_rows ORDER BY account_id, seq) TO $path ${PARQUET}`, { path });
    } finally {
      await c.run('DROP TABLE IF EXISTS ledger_segment_rows');
    }
  });
}

/** Writes the rows of the segment files `files` to `path`, in their order or sorted by account and seq; returns what it wrote. */
async function copyFiles(
  engine: QueryEngine,
  files: string[],
  path: string,
  sorted: boolean,
): Promise<{ rows: number; min: number; max: number }> {
  return engine.withConnection(async (c) => {
    const order = sorted ? 'ORDER BY account_id, seq' : '';
    const columns = COLUMNS.map(([name]) => (name === 'counted' ? `${COUNTED} AS counted` : name)).join(', ');
    await c.run(`COPY (SELECT ${columns} FROM ${readSegments('$files')} ${order}) TO $path ${PARQUET}`, { files: listValue(files), path });
    const [[rows, min, max]] = (
      await c.runAndReadAll(`SELECT count(*), min(seq), max(seq) FROM ${readSegments('$path')}`, { path })
    ).getRows() as [[bigint, bigint, bigint]];
    return { rows: Number(rows), min: Number(min), max: Number(max) };
  });
}
