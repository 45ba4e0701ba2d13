import { expect } from 'chai';
import { Counter, sharedCopy } from '../../src/jobs/trend-count.js';
import type { GroupColumn } from '../../src/jobs/trend-groups.js';
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
  // 6,000 versions over 5 publications; groups of one value a version (300 of them, code 300 the null
  // group) and of several (0 to 3 of 40).
  const POINTS = 5;
  const SIZE = 6_000;
  const next = numbers(7);
  const first = Array.from({ length: SIZE }, () => next(POINTS));
  const end = first.map((f) => f + 1 + next(POINTS - f));
  const view = {
    publications: Array.from({ length: POINTS }, (_, i) => `2026-11-0${i + 1}T06:00:00.000Z`),
    size: SIZE,
    span: sharedCopy(Uint16Array.from(first, (f, doc) => f * (POINTS + 1) + end[doc]!)),
    atLatest: Uint32Array.from(end.flatMap((e, doc) => (e === POINTS ? [doc] : []))),
  } as TrendsView;
  const atLatest = (listed: { docs: Uint32Array; codes: Uint8Array }) => {
    const kept = Array.from(listed.docs.keys()).filter((i) => end[listed.docs[i]!] === POINTS);
    return { docs: Uint32Array.from(kept, (i) => listed.docs[i]!), codes: Uint8Array.from(kept, (i) => listed.codes[i]!) };
  };
  const matching = sharedCopy(Uint8Array.from({ length: SIZE }, () => (next(3) === 0 ? 0 : 1)));
  const one: GroupColumn = {
    names: [...Array.from({ length: 300 }, (_, i) => `g${i}`), null],
    codes: sharedCopy(Uint16Array.from({ length: SIZE }, () => next(301))),
    more: null,
    moreAtLatest: null,
  };
  const several = Array.from({ length: SIZE }, () => [...new Set(Array.from({ length: next(4) }, () => next(40)))]);
  const others = several.flatMap((codes, doc) => codes.slice(1).map((code) => [doc, code] as const));
  const more = {
    docs: sharedCopy(Uint32Array.from(others, ([doc]) => doc)),
    codes: sharedCopy(Uint8Array.from(others, ([, code]) => code)),
  };
  const many: GroupColumn = {
    names: [...Array.from({ length: 40 }, (_, i) => `s${i}`), null],
    codes: sharedCopy(Uint8Array.from(several, (codes) => codes[0] ?? 40)),
    more,
    moreAtLatest: atLatest(more),
  };
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
    expect(many.more!.docs.length).to.be.above(SIZE / 2);
    const before = counter.sharedTasks;
    await tallyGroups(view, many, matching, POINTS - 1, counter);
    expect(counter.sharedTasks).to.equal(before + 2);
  });

  for (const [by, counter] of Object.entries(counters)) {
    it(`counts at each point the matching versions that hold there, ${by}`, async () => {
      const tally = await tallySpans(view, matching, counter);
      expect(points.map((at) => tally.totals[at])).to.deep.equal(points.map(total));
    });

    for (const [name, column, groupsOf] of [
      ['one group a version', one, (doc: number) => [one.codes[doc]!]],
      ['several groups a version', many, (doc: number) => (several[doc]!.length ? several[doc]! : [40])],
    ] as const)
      for (const [how, cells, last] of [
        ['every group tracked', undefined, POINTS - 1],
        ['the largest at the latest publication chosen by a first pass', 1, POINTS - 1],
        ['the largest at an earlier publication chosen by a first pass', 1, POINTS - 2],
      ] as const)
        it(`counts the largest groups at each point, ${name}, ${how}, ${by}`, async () => {
          const tally = await tallyGroups(view, column, matching, last, counter, cells);
          const shown = tally.largest(last);
          expect(shown.map((code) => [code, tally.count(code, last)])).to.deep.equal(top(groupCounts(groupsOf, last)));
          for (const at of points) {
            const counts = groupCounts(groupsOf, at);
            expect(shown.map((code) => tally.count(code, at))).to.deep.equal(shown.map((code) => counts.get(code) ?? 0));
            expect(tally.totals[at]).to.equal(total(at));
          }
        });
  }
});
