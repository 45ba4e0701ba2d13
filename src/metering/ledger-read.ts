// The usage routes' queries over ledger segment files (DuckDB): one account's events, newest first, and
// its daily aggregates. The files are sorted by account and seq, so DuckDB skips the row groups of
// other accounts by their statistics.

import { listValue } from '@duckdb/node-api';
import type { QueryEngine } from '../db/engine.js';

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

/**
 * Segment files as one table. Not hive partitioning: the day=/month= folders would add a column of their
 * own. By name: files written before a column existed read it as NULL.
 */
export const readSegments = (files: string) => `read_parquet(${files}, hive_partitioning = false, union_by_name = true)`;

/**
 * Whether a row used a monthly request. Files from before the counted column was written hold no 429 that
 * kept its request nor a never-answered row, and the overage PUT used none then.
 */
export const COUNTED = "coalesce(counted, status IS DISTINCT FROM 429 AND NOT (route_class = 'account' AND method = 'PUT'))";

const EVENT_COLUMNS = [
  'seq',
  'request_id',
  'occurred_at',
  'method',
  'route',
  'route_class',
  'status',
  'api_key_id',
  'records_charged',
  'settlement_status',
] as const;

/** Up to `limit` rows of the filter in `files`, newest first (`before` finite), as objects keyed by EVENT_COLUMNS. */
export async function readEvents(
  engine: QueryEngine,
  files: string[],
  f: Omit<EventFilter, 'exclude'>,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const rows = await engine.rows(
    `SELECT seq, request_id, epoch_ms(occurred_at) AS occurred_at, method, route, route_class, status, api_key_id, records_charged, settlement_status
     FROM ${readSegments('$files')}
     WHERE account_id = $account AND seq <= $hw AND seq < $before AND occurred_at <= $captured
       AND ($start IS NULL OR occurred_at >= $start::TIMESTAMPTZ) AND ($end IS NULL OR occurred_at < $end::TIMESTAMPTZ)
       AND ($class IS NULL OR route_class = $class) AND ($key IS NULL OR api_key_id = $key)
     ORDER BY seq DESC LIMIT $limit`,
    {
      files: listValue(files),
      account: f.accountId,
      hw: BigInt(f.highWater),
      before: BigInt(f.before),
      captured: f.capturedAt.toISOString(),
      start: f.start?.toISOString() ?? null,
      end: f.end?.toISOString() ?? null,
      class: f.routeClass,
      key: f.apiKeyId,
      limit,
    },
  );
  return rows.map((row) => Object.fromEntries(EVENT_COLUMNS.map((name, i) => [name, row[i]])));
}

/** One account's figures of a UTC day (and group). */
export interface SegmentDay {
  date: string;
  group: string | null;
  requests: number;
  records: number;
  errors: number;
  /** Requests answered 429 (ledger-read.ts: data_limit_exceeded; the store adds those refused at admission). */
  refused: number;
  micros: number;
}

/** The only groupings a daily read knows: the column name goes into the SQL, so it comes from this list. */
const GROUPS = { route_class: 'route_class', api_key_id: 'api_key_id' } as const;

/** Per UTC day (and group) of one account's rows in `files` from `from` (inclusive) to `to` (exclusive). */
export async function readDaily(
  engine: QueryEngine,
  files: string[],
  accountId: string,
  from: Date,
  to: Date,
  groupBy: keyof typeof GROUPS | null,
): Promise<SegmentDay[]> {
  const group = groupBy === null ? 'NULL' : GROUPS[groupBy];
  const rows = await engine.rows(
    `SELECT strftime(occurred_at AT TIME ZONE 'UTC', '%Y-%m-%d') AS date, ${group} AS grp, count(*) FILTER (WHERE ${COUNTED}), sum(records_charged),
            count(*) FILTER (WHERE status >= 400), count(*) FILTER (WHERE status = 429), sum(overage_micros)
     FROM ${readSegments('$files')}
     WHERE account_id = $account AND occurred_at >= $from::TIMESTAMPTZ AND occurred_at < $to::TIMESTAMPTZ
     GROUP BY ALL`,
    { files: listValue(files), account: accountId, from: from.toISOString(), to: to.toISOString() },
  );
  return rows.map(([date, grp, requests, records, errors, refused, micros]) => ({
    date: date as string,
    group: (grp as string | null) ?? null,
    requests: Number(requests),
    records: Number(records),
    errors: Number(errors),
    refused: Number(refused),
    micros: Number(micros),
  }));
}
