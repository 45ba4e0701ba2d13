// The counting of a trend (src/jobs/trends.ts). Each version holds from its first point up to its end
// (TrendsView.span: both in one number). The matching versions are counted per span, in one pass over
// numbers, for the total and for each group they count in (src/jobs/trend-groups.ts); each span then adds
// its count at its first point and takes it away at its end, and the running sums are the counts.

import type { Counter, RunsTask } from './trend-count.js';
import type { CodedColumn, GroupColumn, Members, MembersColumn } from './trend-groups.js';
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

/** The total at every point of the view, of the `matching` versions. */
export async function tallySpans(view: TrendsView, matching: Uint8Array, counter: Counter): Promise<Tally> {
  const tally = new Tally(view.publications.length);
  await countTotals(tally, view, matching, counter);
  tally.finish();
  return tally;
}

/** Adds the changes of the total at each point, of the `matching` versions, into `tally`. */
async function countTotals(tally: Tally, view: TrendsView, matching: Uint8Array, counter: Counter): Promise<void> {
  const { width } = tally;
  const counts = await counter.count({ kind: 'spans', span: view.span, marked: matching, cells: width * width });
  tally.addSpans(counts, 0, tally.totals, 0);
}

/**
 * The total and the groups of the `matching` versions: of a coded column, every group; of a members
 * column, the 25 largest at point `last` (the ones a trend shows; none when `last` is null).
 */
export function tallyGroups(
  view: TrendsView,
  column: GroupColumn,
  matching: Uint8Array,
  last: number | null,
  counter: Counter,
): Promise<Tally> {
  return 'members' in column ? tallyMembers(view, column, matching, last, counter) : tallyCoded(view, column, matching, counter);
}

/**
 * Each group's versions counted per span in a row of its own: one pass over the versions' codes without a
 * branch (their rows sum to the total), then one over the other codes of versions with several.
 */
async function tallyCoded(view: TrendsView, column: CodedColumn, matching: Uint8Array, counter: Counter): Promise<Tally> {
  const width = view.publications.length + 1;
  const spans = width * width;
  const tally = new Tally(
    view.publications.length,
    Array.from(column.names, (_, code) => code),
    column.names,
  );
  const groups = column.names.length;
  const task = { span: view.span, marked: matching, cells: groups * spans, stride: spans };
  const counts = await counter.count({ ...task, kind: 'coded', codes: column.codes });
  for (let row = 0; row < groups; row++) tally.addSpans(counts, row * spans, tally.totals, 0);
  if (column.more) {
    const others = await counter.count({ ...task, kind: 'listed', codes: column.more.codes, docs: column.more.docs });
    for (let i = 0; i < counts.length; i++) counts[i]! += others[i]!;
  }
  for (let row = 0; row < groups; row++) tally.addSpans(counts, row * spans, tally.series, row * width);
  tally.finish();
  return tally;
}

/**
 * Thousands of groups (employers, skills) would each take a row: a first pass finds the 25 largest at
 * point `last` (atPoint), then only their versions are counted per span, each group's in a row, and the
 * total in one pass over the versions.
 */
async function tallyMembers(
  view: TrendsView,
  column: MembersColumn,
  matching: Uint8Array,
  last: number | null,
  counter: Counter,
): Promise<Tally> {
  const width = view.publications.length + 1;
  const spans = width * width;
  const { members } = column;
  // Every group, in any order (largest orders them): largestFirst lists them all.
  const tracked = last === null ? [] : largest(members.largestFirst, await atPoint(view, members, matching, last, counter));
  const tally = new Tally(view.publications.length, tracked, column.names);
  await countTotals(tally, view, matching, counter);
  if (tracked.length > 0) {
    const runs = Uint32Array.from(tracked.flatMap((code, row) => [members.start[code]!, members.start[code + 1]!, row * spans]));
    const counts = await counter.count(runsTask(members, matching, runs, tracked.length * spans, null));
    for (let row = 0; row < tracked.length; row++) tally.addSpans(counts, row * spans, tally.series, row * width);
  }
  tally.finish();
  return tally;
}

/**
 * Each group's count at point `at` that can be among the 25 largest there (0 for the others): of its
 * matching versions that hold there. At the latest publication, only the versions that hold there are
 * read (about a quarter of 30 days' versions), and the groups are counted largest first (by their
 * versions there), in batches that double, until the next has fewer versions than the 25th count so far:
 * neither it nor any after it can pass that. Few batches when the filters keep most versions. At an
 * earlier point, after the first batch, every group of at least that many versions is counted.
 */
async function atPoint(
  view: TrendsView,
  members: Members,
  matching: Uint8Array,
  at: number,
  counter: Counter,
): Promise<(code: number) => number> {
  const width = view.publications.length + 1;
  const { start, latestEnd, largestFirst } = members;
  const groups = latestEnd.length;
  const latest = at === view.publications.length - 1;
  const ends = latest ? latestEnd : start.subarray(1);
  // At the latest publication, its versions are read alone: every one holds there.
  const weights: Uint8Array | 'every' = latest
    ? 'every'
    : Uint8Array.from({ length: width * width }, (_, span) => (Math.floor(span / width) <= at && span % width > at ? 1 : 0));
  const counts = new Int32Array(groups);
  const counted = new Uint8Array(groups);
  const top = new TopCounts(25);
  const count = async (codes: Uint32Array) => {
    const runs = new Uint32Array(3 * codes.length);
    for (let i = 0; i < codes.length; i++) {
      runs[3 * i] = start[codes[i]!]!;
      runs[3 * i + 1] = ends[codes[i]!]!;
      runs[3 * i + 2] = i;
    }
    const found = await counter.count(runsTask(members, matching, runs, codes.length, weights));
    codes.forEach((code, i) => {
      counts[code] = found[i]!;
      counted[code] = 1;
      top.add(found[i]!);
    });
  };
  for (let from = 0, size = 25; from < groups; from += size, size *= 2) {
    await count(largestFirst.subarray(from, from + size));
    const next = largestFirst[from + size];
    if (!latest || next === undefined || ends[next]! - start[next]! < top.least()) break;
  }
  const others: number[] = [];
  for (let code = 0; code < groups; code++) if (counted[code] === 0 && ends[code]! - start[code]! >= top.least()) others.push(code);
  if (others.length > 0) await count(Uint32Array.from(others));
  return (code) => counts[code]!;
}

/** A task over runs of the groups' versions listed in `members` (RunsTask). */
const runsTask = (members: Members, marked: Uint8Array, runs: Uint32Array, cells: number, weights: RunsTask['weights']): RunsTask => ({
  kind: 'runs',
  marked,
  docs: members.docs,
  spans: members.spans,
  runs,
  cells,
  weights,
});

/** The largest counts seen, up to `size` of them. */
class TopCounts {
  private readonly counts: number[] = [];
  constructor(private readonly size: number) {}
  add(count: number): void {
    const { counts, size } = this;
    if (counts.length === size && count <= counts[size - 1]!) return;
    let at = counts.length;
    while (at > 0 && count > counts[at - 1]!) at--;
    counts.splice(at, 0, count);
    if (counts.length > size) counts.pop();
  }
  /** The least count a group must have to be among the largest `size` (1 while fewer were seen). */
  least(): number {
    return this.counts.length < this.size ? 1 : Math.max(1, this.counts[this.size - 1]!);
  }
}

/**
 * Of `codes`, the 25 with the largest counts above 0, largest first; ties in code order, which is the
 * values' order with null last (src/jobs/trend-groups.ts), as count sorts them.
 */
function largest(codes: Iterable<number>, count: (code: number) => number): number[] {
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
