// The counting of a trend (src/jobs/trends.ts): the spans of the matching versions added up, +1 at the
// first publication a version holds at and -1 at the first it no longer does, summed in order, for the
// total and for the groups each version counts in (src/jobs/trend-groups.ts).

import type { GroupColumn } from './trend-groups.js';
import type { TrendsView } from './trends-view.js';

/**
 * The count at every publication of the view, and each tracked group's, from the spans of the matching
 * versions: each adds one at the first publication it holds at and takes one away at the first it no
 * longer does; the running sums are the counts.
 */
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
  /** The running sums: from the +1 and -1 at the ends to the count at each publication. */
  finish(): void {
    for (let i = 1; i < this.width; i++) this.totals[i]! += this.totals[i - 1]!;
    for (let row = 0; row < this.series.length; row += this.width)
      for (let i = row + 1; i < row + this.width; i++) this.series[i]! += this.series[i - 1]!;
  }
}

/** Above this many groups, a first pass chooses the groups to track (a row of points each: 4 MB at most below it). */
const TRACK_ALL = 4096;

/** The total at every publication of the view, of the `matching` versions. */
export function tallySpans(view: TrendsView, matching: Uint8Array): Tally {
  const tally = new Tally(view.publications.length);
  addSpans(tally.totals, matching, view.firstPoint, view.endPoint);
  tally.finish();
  return tally;
}

/**
 * The spans of the `matching` versions added to the total and to each tracked group they count in. Tens
 * of thousands of groups (employers) would each take a row of points: past TRACK_ALL, a first pass counts
 * every group at the last point only, and the largest are tracked.
 */
export function tallyGroups(view: TrendsView, column: GroupColumn, matching: Uint8Array, last: number | null): Tally {
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
export function both(a: Uint8Array, b: Uint8Array): Uint8Array {
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
