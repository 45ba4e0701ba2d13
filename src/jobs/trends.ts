// GET /v1/jobs/trends (docs/adr/0012-trends.md): for each day or ISO week of a range, the count GET
// /v1/jobs/count would have answered at the last publication of that interval, exact, from the versions
// the publication carries (src/jobs/trends-view.ts). One pass over the matching versions (for a group of
// hundreds of values or more, a first over those at one publication, then the largest groups' versions):
// each adds one from the first publication it holds at to the last, as +1 and -1 at its ends summed in
// order, to the total and to the groups it counts in (src/jobs/trend-tally.ts).

import { ApiError, invalidRequest } from '../errors.js';
import type { QueryEngine } from '../db/engine.js';
import { FilterCache } from './filter-cache.js';
import { filterCondition } from './filter-sql.js';
import type { JobFilters } from './filters.js';
import type { GroupBy } from './groups.js';
import { textDocs } from './service.js';
import type { DocList } from '../search/doc-lists.js';
import type { JobsSnapshot } from './snapshot.js';
import { Counter, shared } from './trend-count.js';
import { tallyGroups, tallySpans, type Tally } from './trend-tally.js';
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

/** The filter conditions whose marks a server keeps for the versions: 4 MB each at 4 million versions. */
const FILTER_CACHE_ENTRIES = 8;

export class TrendsService {
  private readonly filters: FilterCache;
  /** Shares the counting of millions of versions with a worker thread. */
  private readonly counter = new Counter();

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
    const shown = last === null ? [] : tally.largest(last);
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

  /** Stops the counter's worker thread. */
  close(): Promise<void> {
    return this.counter.close();
  }

  private async tally(s: JobsSnapshot, view: TrendsView, f: JobFilters, groupBy: GroupBy | undefined, last: number | null): Promise<Tally> {
    // The versions that pass the filters, from the filter cache or one query, and of those, the ones whose text matches.
    const marks = await this.filters.marks(view, filterCondition(f, view.prefix, view.codes));
    const matching = withText(s, view, f, marks) ?? marks;
    return groupBy ? tallyGroups(view, view.groups.get(groupBy)!, matching, last, this.counter) : tallySpans(view, matching, this.counter);
  }
}

/**
 * Of the versions `marked`, those whose text matches the text filters (null when none is sent). The
 * versions of a matching document of the publication are a run of docs (view.textRuns), and those of own
 * texts follow in order, so the cost follows the matches, in order, not the versions.
 */
function withText(s: JobsSnapshot, view: TrendsView, f: JobFilters, marked: Uint8Array): Uint8Array | null {
  const inLatest = textDocs(s, f);
  if (inLatest === null) return null;
  const { textRuns, ownFrom } = view;
  const out = shared(Uint8Array, view.size);
  copyVersions(inLatest, (doc) => textRuns[doc]!, marked, out);
  copyVersions(textDocs(view.own, f)!, (place) => ownFrom + place, marked, out);
  return out;
}

/**
 * Copies `marked` into `out` at the versions of `docs` (in order), those of document d being first(d) ..
 * first(d + 1) - 1: one range for each run of consecutive documents (a common word's matches are a few
 * long runs), copied at once when long.
 */
export function copyVersions(docs: DocList, first: (doc: number) => number, marked: Uint8Array, out: Uint8Array): void {
  for (let i = 0; i < docs.length;) {
    let j = i + 1;
    while (j < docs.length && docs[j] === docs[j - 1]! + 1) j++;
    const from = first(docs[i]!);
    const to = first(docs[j - 1]! + 1);
    if (to - from > 256) out.set(marked.subarray(from, to), from);
    else for (let version = from; version < to; version++) out[version] = marked[version]!;
    i = j;
  }
}
