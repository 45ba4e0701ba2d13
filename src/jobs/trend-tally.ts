// The counting of a trend (src/jobs/trends.ts). Each version holds from its first point up to its end
// (TrendsView.span: both in one number). The matching versions are counted per span, in one pass over
// numbers, for the total and for each group they count in (src/jobs/trend-groups.ts); each span then adds
// its count at its first point and takes it away at its end, and the running sums are the counts.

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
export function tallySpans(view: TrendsView, matching: Uint8Array): Tally {
  const tally = new Tally(view.publications.length);
  tally.addSpans(countSpans(view.span, matching, tally.width), 0, tally.totals, 0);
  tally.finish();
  return tally;
}

/** The number of marked versions of each span. */
function countSpans(span: Uint16Array, marked: Uint8Array, width: number): Int32Array {
  const counts = new Int32Array(width * width);
  for (let doc = 0; doc < marked.length; doc++) counts[span[doc]!]! += marked[doc]!;
  return counts;
}

/**
 * The total and the tracked groups of the `matching` versions. Each tracked group's versions are counted
 * per span in a row of its own, and the groups not tracked in one more row: one pass over the versions'
 * codes without a branch, then one over the other codes of versions with several (src/jobs/trend-groups.ts).
 * Tens of thousands of groups (employers) would each take a row: past TRACK_CELLS, a first pass counts
 * every group at the last point only, and the largest are tracked.
 */
export function tallyGroups(
  view: TrendsView,
  column: GroupColumn,
  matching: Uint8Array,
  last: number | null,
  trackCells = TRACK_CELLS,
): Tally {
  const spans = (view.publications.length + 1) ** 2;
  const all = Array.from(column.names, (_, code) => code);
  const tracked = last === null ? [] : (all.length + 1) * spans <= trackCells ? all : largest(all, atPoint(view, column, matching, last));
  const tally = new Tally(view.publications.length, tracked, column.names);
  const { rowOf, series, width, totals } = tally;
  const cellOf = Int32Array.from(rowOf, (row) => (row < 0 ? tracked.length : row) * spans);
  const counts = new Int32Array((tracked.length + 1) * spans);
  const { span } = view;
  const { codes, more } = column;
  for (let doc = 0; doc < matching.length; doc++) counts[cellOf[codes[doc]!]! + span[doc]!]! += matching[doc]!;
  // Each version is once in the rows so far: their sum is the total.
  for (let row = 0; row <= tracked.length; row++) tally.addSpans(counts, row * spans, totals, 0);
  if (more)
    for (let i = 0; i < more.docs.length; i++) {
      const doc = more.docs[i]!;
      counts[cellOf[more.codes[i]!]! + span[doc]!]! += matching[doc]!;
    }
  for (let row = 0; row < tracked.length; row++) tally.addSpans(counts, row * spans, series, row * width);
  tally.finish();
  return tally;
}

/** Each group's count at point `at`: of the matching versions that hold there. */
function atPoint(view: TrendsView, column: GroupColumn, matching: Uint8Array, at: number): (code: number) => number {
  const width = view.publications.length + 1;
  // Per span, 1 when it holds at `at`.
  const holds = new Uint8Array(width * width);
  for (let first = 0; first <= at; first++) for (let end = at + 1; end < width; end++) holds[first * width + end] = 1;
  const counts = new Int32Array(column.names.length);
  const { span } = view;
  const { codes, more } = column;
  for (let doc = 0; doc < matching.length; doc++) counts[codes[doc]!]! += matching[doc]! & holds[span[doc]!]!;
  if (more)
    for (let i = 0; i < more.docs.length; i++) {
      const doc = more.docs[i]!;
      counts[more.codes[i]!]! += matching[doc]! & holds[span[doc]!]!;
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
