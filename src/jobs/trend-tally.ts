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
 * Above this many cells of counts (a megabyte), a first pass chooses the 25 groups to track: more would
 * not stay in the processor's caches.
 */
const TRACK_CELLS = 1 << 18;

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
 * The total and the tracked groups of the `matching` versions. Tens of thousands of groups (employers)
 * would each take a row: past TRACK_CELLS, a first pass counts every group at the last point only, and
 * the largest are tracked.
 */
export function tallyGroups(
  view: TrendsView,
  column: GroupColumn,
  matching: Uint8Array,
  last: number | null,
  trackCells = TRACK_CELLS,
): Tally {
  const width = view.publications.length + 1;
  const all = Array.from(column.names, (_, code) => code);
  // The cells a tally with every group takes: tallyOne's or tallySeveral's.
  const cells = column.offsets === null ? (all.length + 1) * width * width : all.length * width;
  const tracked = last === null ? [] : cells <= trackCells ? all : largest(all, atPoint(view, column, matching, last));
  const tally = new Tally(view.publications.length, tracked, column.names);
  if (column.offsets === null) tallyOne(tally, view.span, column.codes, matching);
  else tallySeveral(tally, view.span, column, matching);
  tally.finish();
  return tally;
}

/**
 * A group of one value a version: its versions are counted per span in the group's own row of counts,
 * the groups not tracked in one more row, in one pass without a branch; the total is the sum of the rows.
 */
function tallyOne(tally: Tally, span: Uint16Array, codes: GroupColumn['codes'], marked: Uint8Array): void {
  const { tracked, rowOf, series, width, totals } = tally;
  const spans = width * width;
  const cellOf = Int32Array.from(rowOf, (row) => (row < 0 ? tracked.length : row) * spans);
  const counts = new Int32Array((tracked.length + 1) * spans);
  for (let doc = 0; doc < marked.length; doc++) counts[cellOf[codes[doc]!]! + span[doc]!]! += marked[doc]!;
  for (let row = 0; row <= tracked.length; row++) {
    tally.addSpans(counts, row * spans, totals, 0);
    if (row < tracked.length) tally.addSpans(counts, row * spans, series, row * width);
  }
}

/**
 * A group of several values a version (skills: a thousand groups), taken version by version (the first
 * value out of the loop: most versions have one). A row of counts per span for each group would outgrow
 * the processor's caches, so each group's row holds a change per point; the total is counted per span (a
 * version counts once in it).
 */
function tallySeveral(tally: Tally, span: Uint16Array, column: GroupColumn, marked: Uint8Array): void {
  const { tracked, rowOf, series, width, totals } = tally;
  const firstOf = Uint8Array.from({ length: width * width }, (_, s) => Math.floor(s / width));
  const endOf = Uint8Array.from({ length: width * width }, (_, s) => s % width);
  const { offsets, codes } = column as GroupColumn & { offsets: Uint32Array };
  // The groups not tracked change one more row, dropped; every version has a group (null at least).
  const at = Int32Array.from(rowOf, (row) => (row < 0 ? tracked.length : row) * width);
  const rows = new Int32Array((tracked.length + 1) * width);
  const counts = new Int32Array(width * width);
  for (let doc = 0; doc < marked.length; doc++) {
    if (marked[doc] === 0) continue;
    const s = span[doc]!;
    counts[s]! += 1;
    const first = firstOf[s]!;
    const end = endOf[s]!;
    const from = offsets[doc]!;
    let row = at[codes[from]!]!;
    rows[row + first]! += 1;
    rows[row + end]! -= 1;
    for (let i = from + 1; i < offsets[doc + 1]!; i++) {
      row = at[codes[i]!]!;
      rows[row + first]! += 1;
      rows[row + end]! -= 1;
    }
  }
  series.set(rows.subarray(0, series.length));
  tally.addSpans(counts, 0, totals, 0);
}

/** Each group's count at point `at`: of the matching versions that hold there. */
function atPoint(view: TrendsView, column: GroupColumn, matching: Uint8Array, at: number): (code: number) => number {
  const width = view.publications.length + 1;
  // Per span, 1 when it holds at `at`.
  const holds = new Uint8Array(width * width);
  for (let first = 0; first <= at; first++) for (let end = at + 1; end < width; end++) holds[first * width + end] = 1;
  const counts = new Int32Array(column.names.length);
  const { offsets, codes } = column;
  const { span } = view;
  if (offsets === null) for (let doc = 0; doc < matching.length; doc++) counts[codes[doc]!]! += matching[doc]! & holds[span[doc]!]!;
  else
    for (let doc = 0; doc < matching.length; doc++) {
      if ((matching[doc]! & holds[span[doc]!]!) === 0) continue;
      for (let i = offsets[doc]!; i < offsets[doc + 1]!; i++) counts[codes[i]!]! += 1;
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
