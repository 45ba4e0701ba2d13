// The counting of a trend (src/jobs/trends.ts). Each version holds from its first point up to its end
// (TrendsView.span: both in one number). The matching versions are counted per span, in one pass over
// numbers, for the total and for each group they count in (src/jobs/trend-groups.ts); each span then adds
// its count at its first point and takes it away at its end, and the running sums are the counts.

import type { Counter } from './trend-count.js';
import type { GroupColumn } from './trend-groups.js';
import type { TrendsView } from './trends-view.js';

/** The count at every point of the view (and at its end), in total and of each tracked group. */
export class Tally {
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
  /** The codes of the 25 tracked groups largest at point `at` (see largest). */
  largest(at: number): number[] {
    return largest(this.tracked, (code) => this.count(code, at));
  }
  /** The changes of the versions counted per span in `counts` from `cell` on, added to `into` from `at` on. */
  addSpans(counts: Int32Array, cell: number, into: Float64Array | Int32Array, at: number): void {
    const { width } = this;
    for (let first = 0; first < width; first++)
      for (let end = first; end < width; end++) {
        const n = counts[cell + first * width + end]!;
        into[at + first]! += n;
        into[at + end]! -= n;
      }
  }
  /** The running sums: from the changes at the ends of the spans to the count at each point. */
  finish(): void {
    for (let i = 1; i < this.width; i++) this.totals[i]! += this.totals[i - 1]!;
    for (let row = 0; row < this.series.length; row += this.width)
      for (let i = row + 1; i < row + this.width; i++) this.series[i]! += this.series[i - 1]!;
  }
}

/**
 * Above this many cells of counts (8 MB), a first pass chooses the 25 groups to track. Measured on 5.8
 * million versions over 30 publications: the 1,101 skills (4 MB) took 180-195 ms tracked together and
 * 280-320 ms with a first pass; company_id's 41,807 groups on day 9 (16 MB) took 81 ms together, 35 with it.
 */
const TRACK_CELLS = 1 << 21;

/** The total at every point of the view, of the `matching` versions. */
export async function tallySpans(view: TrendsView, matching: Uint8Array, counter: Counter): Promise<Tally> {
  const tally = new Tally(view.publications.length);
  const { width } = tally;
  const counts = await counter.count({ ...versions(view, matching), cells: width * width, spanCell: eachSpan(width) });
  tally.addSpans(counts, 0, tally.totals, 0);
  tally.finish();
  return tally;
}

/** A task over every version of the view: no group yet. */
const versions = (view: TrendsView, marked: Uint8Array) => ({ span: view.span, marked, cellOf: null, codes: null, docs: null });

/** Each span its own cell. */
const eachSpan = (width: number) => Int32Array.from({ length: width * width }, (_, span) => span);

/**
 * The total and the tracked groups of the `matching` versions. Each tracked group's versions are counted
 * per span in a row of its own, and the groups not tracked in one more row: one pass over the versions'
 * codes without a branch, then one over the other codes of versions with several (src/jobs/trend-groups.ts).
 * Tens of thousands of groups (employers) would each take a row: past TRACK_CELLS, a first pass counts
 * every group at the last point only, and the largest are tracked.
 */
export async function tallyGroups(
  view: TrendsView,
  column: GroupColumn,
  matching: Uint8Array,
  last: number | null,
  counter: Counter,
  trackCells = TRACK_CELLS,
): Promise<Tally> {
  const width = view.publications.length + 1;
  const spans = width * width;
  const all = Array.from(column.names, (_, code) => code);
  const tracked =
    last === null ? [] : (all.length + 1) * spans <= trackCells ? all : largest(all, await atPoint(view, column, matching, last, counter));
  const tally = new Tally(view.publications.length, tracked, column.names);
  const { rowOf, series, totals } = tally;
  const task = {
    ...versions(view, matching),
    cells: (tracked.length + 1) * spans,
    spanCell: eachSpan(width),
    cellOf: Int32Array.from(rowOf, (row) => (row < 0 ? tracked.length : row) * spans),
  };
  const counts = await counter.count({ ...task, codes: column.codes });
  // Each version is once in the rows so far: their sum is the total.
  for (let row = 0; row <= tracked.length; row++) tally.addSpans(counts, row * spans, totals, 0);
  if (column.more) {
    const others = await counter.count({ ...task, codes: column.more.codes, docs: column.more.docs });
    for (let i = 0; i < counts.length; i++) counts[i]! += others[i]!;
  }
  for (let row = 0; row < tracked.length; row++) tally.addSpans(counts, row * spans, series, row * width);
  tally.finish();
  return tally;
}

/** Each group's count at point `at`: of the matching versions that hold there. */
async function atPoint(
  view: TrendsView,
  column: GroupColumn,
  matching: Uint8Array,
  at: number,
  counter: Counter,
): Promise<(code: number) => number> {
  if (at === view.publications.length - 1) return atLatest(view, column, matching);
  const width = view.publications.length + 1;
  // A group's two cells: the versions that do not hold at `at`, then those that do.
  const task = {
    ...versions(view, matching),
    cells: 2 * column.names.length,
    spanCell: Int32Array.from({ length: width * width }, (_, span) => (Math.floor(span / width) <= at && span % width > at ? 1 : 0)),
    cellOf: Int32Array.from(column.names, (_, code) => 2 * code),
  };
  const counts = await counter.count({ ...task, codes: column.codes });
  if (column.more) {
    const others = await counter.count({ ...task, codes: column.more.codes, docs: column.more.docs });
    for (let i = 0; i < counts.length; i++) counts[i]! += others[i]!;
  }
  return (code) => counts[2 * code + 1]!;
}

/** atPoint at the latest publication: only the versions that hold there are read (a quarter of 30 days' versions). */
function atLatest(view: TrendsView, column: GroupColumn, matching: Uint8Array): (code: number) => number {
  const counts = new Int32Array(column.names.length);
  const { codes, moreAtLatest } = column;
  for (const doc of view.atLatest) counts[codes[doc]!]! += matching[doc]!;
  if (moreAtLatest) for (let i = 0; i < moreAtLatest.docs.length; i++) counts[moreAtLatest.codes[i]!]! += matching[moreAtLatest.docs[i]!]!;
  return (code) => counts[code]!;
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
