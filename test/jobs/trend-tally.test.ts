import { expect } from 'chai';
import { Counter, sharedCopy } from '../../src/jobs/trend-count.js';
import { codedColumn, membersColumn } from '../../src/jobs/trend-groups.js';
import { tallyGroups, tallySpans } from '../../src/jobs/trend-tally.js';
import type { TrendsView } from '../../src/jobs/trends-view.js';

/** A generator of the same numbers each run. */
function numbers(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.floor((state / 2 ** 31) * below);
  };
}

describe('the counting of a trend', () => {
  // 6,000 versions over 5 publications; groups of one value a version (200 of them, code 200 the null
  // group) and of several (0 to 3 of 40), each column coded and listed by group.
  const POINTS = 5;
  const SIZE = 6_000;
  const next = numbers(7);
  const first = Array.from({ length: SIZE }, () => next(POINTS));
  const end = first.map((f) => f + 1 + next(POINTS - f));
  const view = {
    publications: Array.from({ length: POINTS }, (_, i) => `2026-11-0${i + 1}T06:00:00.000Z`),
    size: SIZE,
    span: sharedCopy(Uint16Array.from(first, (f, doc) => f * (POINTS + 1) + end[doc]!)),
  } as TrendsView;
  const matching = sharedCopy(Uint8Array.from({ length: SIZE }, () => (next(3) === 0 ? 0 : 1)));
  const oneNames = [...Array.from({ length: 200 }, (_, i) => `g${i}`), null];
  const oneCodes = { size: SIZE, offsets: null, byDoc: Uint32Array.from({ length: SIZE }, () => next(201)) };
  const several = Array.from({ length: SIZE }, () => [...new Set(Array.from({ length: next(4) }, () => next(40)))]);
  const severalNames = [...Array.from({ length: 40 }, (_, i) => `s${i}`), null];
  const severalCodes = {
    size: SIZE,
    offsets: Uint32Array.from({ length: SIZE + 1 }, (_, doc) =>
      several.slice(0, doc).reduce((n, codes) => n + Math.max(codes.length, 1), 0),
    ),
    byDoc: Uint32Array.from(several.flatMap((codes) => (codes.length ? codes : [40]))),
  };
  /** Per column: its name, coded, listed by group, and the codes of a version. */
  const columns = [
    [
      'one group a version',
      codedColumn(oneNames, oneCodes),
      membersColumn(oneNames, oneCodes, view.span, POINTS + 1),
      (doc: number) => [oneCodes.byDoc[doc]!],
    ],
    [
      'several groups a version',
      codedColumn(severalNames, severalCodes),
      membersColumn(severalNames, severalCodes, view.span, POINTS + 1),
      (doc: number) => (several[doc]!.length ? several[doc]! : [40]),
    ],
  ] as const;
  const holds = (doc: number, at: number) => matching[doc] === 1 && first[doc]! <= at && at < end[doc]!;
  const total = (at: number) => first.filter((_, doc) => holds(doc, at)).length;
  const groupCounts = (groupsOf: (doc: number) => number[], at: number) => {
    const counts = new Map<number, number>();
    for (let doc = 0; doc < SIZE; doc++)
      if (holds(doc, at)) for (const code of groupsOf(doc)) counts.set(code, (counts.get(code) ?? 0) + 1);
    return counts;
  };
  /** The 25 largest at `at`, as [code, count], largest first, ties by code. */
  const top = (counts: Map<number, number>) => [...counts].sort(([a, x], [b, y]) => y - x || a - b).slice(0, 25);
  const points = Array.from({ length: POINTS }, (_, at) => at);

  // Counted on the calling thread alone, and every task shared with a worker thread.
  const counters = { alone: new Counter(Infinity), 'with a worker thread': new Counter(1) };
  after(() => counters['with a worker thread'].close());

  it('shares the counting with a worker thread when asked to, over shared memory', async () => {
    const counter = counters['with a worker thread'];
    const [, coded, members] = columns[1];
    expect(coded.more!.docs.length).to.be.above(SIZE / 2);
    const before = counter.sharedTasks;
    // The codes and the other codes; then the first pass (the 25 groups of most versions at the latest
    // publication, then the others that may pass them), the total and the largest groups' versions.
    await tallyGroups(view, coded, matching, POINTS - 1, counter);
    expect(counter.sharedTasks).to.equal(before + 2);
    await tallyGroups(view, members, matching, POINTS - 1, counter);
    expect(counter.sharedTasks).to.equal(before + 6);
  });

  for (const [by, counter] of Object.entries(counters)) {
    it(`counts at each point the matching versions that hold there, ${by}`, async () => {
      const tally = await tallySpans(view, matching, counter);
      expect(points.map((at) => tally.totals[at])).to.deep.equal(points.map(total));
    });

    for (const [name, coded, members, groupsOf] of columns)
      for (const [how, column, last] of [
        ['every group coded', coded, POINTS - 1],
        ['the groups listed, the largest at the latest publication chosen by a first pass', members, POINTS - 1],
        ['the groups listed, the largest at an earlier publication chosen by a first pass', members, POINTS - 2],
      ] as const)
        it(`counts the largest groups at each point, ${name}, ${how}, ${by}`, async () => {
          const tally = await tallyGroups(view, column, matching, last, counter);
          const shown = tally.largest(last);
          expect(shown.map((code) => [code, tally.count(code, last)])).to.deep.equal(top(groupCounts(groupsOf, last)));
          for (const at of points) {
            const counts = groupCounts(groupsOf, at);
            expect(shown.map((code) => tally.count(code, at))).to.deep.equal(shown.map((code) => counts.get(code) ?? 0));
            expect(tally.totals[at]).to.equal(total(at));
          }
        });
  }

  it('finds a group of fewer versions among the largest when the filters keep more of it', async () => {
    // 26 groups holding from the first publication on: 25 of 100 versions, of which 5 match, then
    // group 25 of 6, all matching: the largest after the filters, though the smallest before.
    const groups = [...Array.from({ length: 25 }, () => 100), 6];
    const byDoc = Uint32Array.from(groups.flatMap((n, code) => Array.from({ length: n }, () => code)));
    const small = {
      publications: view.publications,
      size: byDoc.length,
      span: sharedCopy(new Uint16Array(byDoc.length).fill(POINTS)),
    } as TrendsView;
    const marked = sharedCopy(Uint8Array.from(byDoc, (code, doc) => (code === 25 || doc % 100 < 5 ? 1 : 0)));
    const names = [...groups.map((_, code) => `g${code}`), null];
    const column = membersColumn(names, { size: byDoc.length, offsets: null, byDoc }, small.span, POINTS + 1);
    const tally = await tallyGroups(small, column, marked, POINTS - 1, counters.alone);
    const shown = tally.largest(POINTS - 1);
    expect(shown.map((code) => [code, tally.count(code, POINTS - 1)])).to.deep.equal([
      [25, 6],
      ...Array.from({ length: 24 }, (_, code) => [code, 5]),
    ]);
  });
});
