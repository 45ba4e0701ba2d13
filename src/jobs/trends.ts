// GET /v1/jobs/trends (docs/adr/0012-trends.md): for each day or ISO week of a range, the count GET
// /v1/jobs/count would have answered at the last publication of that interval, exact, from the versions
// the publication carries (src/jobs/trends-view.ts). One pass over the matching versions (two for a group
// of thousands of values): each adds one from the first publication it holds at to the last, as +1 and -1
// at its ends summed in order, to the total and to the groups it counts in (src/jobs/trend-groups.ts).

import { ApiError, invalidRequest } from '../errors.js';
import type { QueryEngine } from '../db/engine.js';
import { FilterCache } from './filter-cache.js';
import { filterCondition } from './filter-sql.js';
import type { JobFilters } from './filters.js';
import type { GroupBy } from './groups.js';
import { textDocs } from './service.js';
import type { JobsSnapshot } from './snapshot.js';
import type { GroupColumn } from './trend-groups.js';
import type { TrendsView } from './trends-view.js';

export const INTERVALS = ['day', 'week'] as const;
export type Interval = (typeof INTERVALS)[number];

/** The most points a trend answers: a quarter of days, a year of weeks. */
export const MAX_POINTS: Record<Interval, number> = { day: 92, week: 53 };

/**
 * Filters a trend cannot answer: what reads restamp without any change (a posting's source's last complete
 * read, its latest application check; the job's last verified read and the days open up to it) is not kept
 * per publication in the versions.
 */
export const READ_STAMP_FILTERS = [
  'last_fetch_since',
  'last_fetch_until',
  'application_check_since',
  'verified_since',
  'verified_until',
  'days_open_min',
  'days_open_max',
] as const;

export interface TrendRequest {
  interval: Interval;
  /** Plain dates (UTC days); null: the default (rangeOf). */
  start: string | null;
  end: string | null;
  groupBy?: GroupBy;
}

export interface TrendPoint {
  /** The interval's first day (a week's Monday). */
  start: string;
  /** The publication the point reads: the interval's last one within the range; null when it has none. */
  publication_watermark: string | null;
  count: number | null;
  groups?: { value: string | null; count: number }[] | null;
}

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const msOf = (date: string) => Date.parse(`${date}T00:00:00Z`);
/** The Monday of the ISO week holding `ms` (a UTC day start). */
const monday = (ms: number) => ms - ((new Date(ms).getUTCDay() + 6) % 7) * DAY_MS;

/** Reads interval, start and end (each optional); 400 invalid_request naming what is wrong. */
export function readTrendRequest(input: Record<string, unknown>, groupBy: GroupBy | undefined): TrendRequest {
  const interval = input.interval ?? 'day';
  if (!(INTERVALS as readonly unknown[]).includes(interval)) throw invalidRequest('interval must be day or week.');
  const date = (name: 'start' | 'end') => {
    const value = input[name];
    if (value === undefined) return null;
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || day(msOf(value)) !== value)
      throw invalidRequest(`${name} must be a date (2026-11-20).`);
    return value;
  };
  const request: TrendRequest = { interval: interval as Interval, start: date('start'), end: date('end'), groupBy };
  if (request.start && request.end) checkRange(request.interval, request.start, request.end);
  return request;
}

function checkRange(interval: Interval, start: string, end: string): void {
  if (start > end) throw invalidRequest(`start (${start}) must not be after end (${end}).`);
  const points = interval === 'day' ? (msOf(end) - msOf(start)) / DAY_MS + 1 : (monday(msOf(end)) - monday(msOf(start))) / (7 * DAY_MS) + 1;
  if (points > MAX_POINTS[interval])
    throw invalidRequest(`A trend has at most ${MAX_POINTS[interval]} points by ${interval}; this range has ${points}: shorten it.`);
}

/** The request's range; by default from the oldest publication of the history (or as far as a trend reaches) to the latest. */
function rangeOf(s: JobsSnapshot, view: TrendsView, r: TrendRequest): { start: string; end: string } {
  const latest = s.watermark.slice(0, 10);
  const end = r.end ?? (r.start && r.start > latest ? r.start : latest);
  const reach = r.interval === 'day' ? msOf(end) - (MAX_POINTS.day - 1) * DAY_MS : monday(msOf(end)) - (MAX_POINTS.week - 1) * 7 * DAY_MS;
  const start = r.start ?? day(Math.min(msOf(end), Math.max(reach, msOf(view.publications[0]!.slice(0, 10)))));
  checkRange(r.interval, start, end);
  return { start, end };
}

/** Per interval of the range: its first day and the place of the publication it reads (or null). */
function intervals(view: TrendsView, r: TrendRequest, range: { start: string; end: string }) {
  const days = view.publications.map((w) => w.slice(0, 10));
  const out: { start: string; at: number | null }[] = [];
  const step = r.interval === 'day' ? DAY_MS : 7 * DAY_MS;
  const first = r.interval === 'day' ? msOf(range.start) : monday(msOf(range.start));
  for (let from = first; from <= msOf(range.end); from += step) {
    const lo = day(Math.max(from, msOf(range.start)));
    const hi = day(Math.min(from + step - DAY_MS, msOf(range.end)));
    const at = days.findLastIndex((d) => d >= lo && d <= hi);
    out.push({ start: day(from), at: at < 0 ? null : at });
  }
  return out;
}

/**
 * The count at every publication of the view, and each tracked group's, from the spans of the matching
 * versions: each adds one at the first publication it holds at and takes one away at the first it no
 * longer does; the running sums are the counts.
 */
class Tally {
  /** Per point 0 .. points: the change there, then (once finished) the count. */
  readonly totals: Float64Array;
  /** Per tracked group (its row), its points: a row of points + 1. */
  readonly series: Int32Array;
  readonly width: number;
  /** Per group code, its row in `series`, or -1 when the group is not tracked. */
  readonly rowOf: Int32Array;
  constructor(
    points: number,
    /** The groups tracked, as codes of `names`. */
    readonly tracked: number[] = [],
    readonly names: (string | null)[] = [],
  ) {
    this.width = points + 1;
    this.totals = new Float64Array(this.width);
    this.series = new Int32Array(tracked.length * this.width);
    this.rowOf = new Int32Array(names.length).fill(-1);
    tracked.forEach((code, row) => (this.rowOf[code] = row));
  }
  /** The count of group `code` (tracked) at point `at`. */
  count(code: number, at: number): number {
    return this.series[this.rowOf[code]! * this.width + at]!;
  }
  /** The running sums: from the +1 and -1 at the ends to the count at each publication. */
  finish(): void {
    for (let i = 1; i < this.width; i++) this.totals[i]! += this.totals[i - 1]!;
    for (let row = 0; row < this.series.length; row += this.width)
      for (let i = row + 1; i < row + this.width; i++) this.series[i]! += this.series[i - 1]!;
  }
}

/** Above this many groups, a first pass chooses the groups to track (a row of points each: 4 MB at most below it). */
const TRACK_ALL = 4096;

/** The filter conditions whose marks a server keeps for the versions: 4 MB each at 4 million versions. */
const FILTER_CACHE_ENTRIES = 8;

export class TrendsService {
  private readonly filters: FilterCache;

  constructor(engine: QueryEngine) {
    this.filters = new FilterCache(engine, FILTER_CACHE_ENTRIES);
  }

  async trend(
    s: JobsSnapshot,
    f: JobFilters,
    r: TrendRequest,
  ): Promise<{ interval: Interval; start: string; end: string; points: TrendPoint[] }> {
    const view = s.trends;
    if (!view) throw new ApiError('trends_unavailable');
    for (const name of READ_STAMP_FILTERS)
      if (f[name] !== undefined)
        throw invalidRequest(
          `${name} cannot be sent to trends: a posting's reads restamp it every day, and the history keeps no stamp per publication.`,
        );
    const range = rangeOf(s, view, r);
    const each = intervals(view, r, range);
    // The groups shown are the largest at the last point with a publication (as a count then lists them).
    const last = each.findLast((p) => p.at !== null)?.at ?? null;
    const tally = await this.tally(s, view, f, r.groupBy, last);
    const shown = last === null ? [] : largest(tally.tracked, (code) => tally.count(code, last));
    const points = each.map(({ start, at }): TrendPoint => {
      const point: TrendPoint = {
        start,
        publication_watermark: at === null ? null : view.publications[at]!,
        count: at === null ? null : tally.totals[at]!,
      };
      if (r.groupBy)
        point.groups = at === null ? null : shown.map((code) => ({ value: tally.names[code] ?? null, count: tally.count(code, at) }));
      return point;
    });
    return { interval: r.interval, ...range, points };
  }

  private async tally(s: JobsSnapshot, view: TrendsView, f: JobFilters, groupBy: GroupBy | undefined, last: number | null): Promise<Tally> {
    // The versions that pass the filters, from the filter cache or one query, and their text.
    const marks = await this.filters.marks(view, filterCondition(f, view.prefix, view.codes));
    const text = versionsMatching(s, view, f);
    const { firstPoint, endPoint } = view;
    const points = view.publications.length;
    if (!groupBy) {
      const tally = new Tally(points);
      addSpans(tally.totals, text === null ? marks : both(marks, text), firstPoint, endPoint);
      tally.finish();
      return tally;
    }
    return tallyGroups(view, view.groups.get(groupBy)!, text === null ? marks : both(marks, text), last);
  }
}

/**
 * The spans of the `matching` versions added to the total and to each tracked group they count in. Tens
 * of thousands of groups (employers) would each take a row of points: past TRACK_ALL, a first pass counts
 * every group at the last point only, and the largest are tracked.
 */
function tallyGroups(view: TrendsView, column: GroupColumn, matching: Uint8Array, last: number | null): Tally {
  const all = Array.from(column.names, (_, code) => code);
  const tracked = last === null ? [] : column.names.length <= TRACK_ALL ? all : largest(all, atPoint(view, column, matching, last));
  const tally = new Tally(view.publications.length, tracked, column.names);
  const { totals, series, width, rowOf } = tally;
  const { firstPoint, endPoint } = view;
  const { offsets, codes } = column;
  for (let doc = 0; doc < view.size; doc++) {
    if (matching[doc] === 0) continue;
    const first = firstPoint[doc]!;
    const end = endPoint[doc]!;
    totals[first]! += 1;
    totals[end]! -= 1;
    const from = offsets === null ? doc : offsets[doc]!;
    const to = offsets === null ? doc + 1 : offsets[doc + 1]!;
    for (let i = from; i < to; i++) {
      const row = rowOf[codes[i]!]!;
      if (row < 0) continue;
      series[row * width + first]! += 1;
      series[row * width + end]! -= 1;
    }
  }
  tally.finish();
  return tally;
}

/**
 * Adds the span of each marked version to `totals`: +1 at its first point, -1 at its end. One plain loop
 * over typed arrays without a branch, into four rows of integers taken in turn: consecutive versions mostly
 * share their points, and adding into one cell waits for the add before it (about 9 ns a version over 2
 * million); four cells in turn do not wait.
 */
function addSpans(totals: Float64Array, marked: Uint8Array, firstPoint: Uint8Array, endPoint: Uint8Array): void {
  const width = totals.length;
  const rows = new Int32Array(4 * width);
  for (let doc = 0; doc < marked.length; doc++) {
    const mark = marked[doc]!;
    const row = (doc & 3) * width;
    rows[row + firstPoint[doc]!]! += mark;
    rows[row + endPoint[doc]!]! -= mark;
  }
  for (let i = 0; i < width; i++) totals[i]! += rows[i]! + rows[width + i]! + rows[2 * width + i]! + rows[3 * width + i]!;
}

/** Marks 1 where both `a` and `b` are. */
function both(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! & b[i]!;
  return out;
}

/** Each group's count at point `at`: of the matching versions that hold there. */
function atPoint(view: TrendsView, column: GroupColumn, matching: Uint8Array, at: number): (code: number) => number {
  const counts = new Int32Array(column.names.length);
  const { offsets, codes } = column;
  for (let doc = 0; doc < view.size; doc++) {
    if (matching[doc] === 0 || view.firstPoint[doc]! > at || view.endPoint[doc]! <= at) continue;
    const to = offsets === null ? doc + 1 : offsets[doc + 1]!;
    for (let i = offsets === null ? doc : offsets[doc]!; i < to; i++) counts[codes[i]!]! += 1;
  }
  return (code) => counts[code]!;
}

/** Per version, 1 when its text matches the text filters; null when none is sent. */
function versionsMatching(s: JobsSnapshot, view: TrendsView, f: JobFilters): Uint8Array | null {
  const inLatest = textDocs(s, f);
  if (inLatest === null) return null;
  const latest = new Uint8Array(s.size);
  for (const doc of inLatest) latest[doc] = 1;
  const own = new Uint8Array(view.own.title.documents);
  for (const doc of textDocs(view.own, f)!) own[doc] = 1;
  const out = new Uint8Array(view.size);
  for (let doc = 0; doc < view.size; doc++) {
    const t = view.textDoc[doc]!;
    out[doc] = t >= 0 ? latest[t]! : own[-1 - t]!;
  }
  return out;
}

/**
 * Of `codes`, the 25 with the largest counts above 0, largest first; ties in code order, which is the
 * values' order with null last (src/jobs/trend-groups.ts), as count sorts them.
 */
function largest(codes: number[], count: (code: number) => number): number[] {
  const before = (x: number, y: number) => count(x) > count(y) || (count(x) === count(y) && x < y);
  const shown: number[] = [];
  for (const code of codes) {
    if (count(code) <= 0 || (shown.length === 25 && !before(code, shown[24]!))) continue;
    let at = shown.length;
    while (at > 0 && before(code, shown[at - 1]!)) at--;
    shown.splice(at, 0, code);
    if (shown.length > 25) shown.pop();
  }
  return shown;
}
