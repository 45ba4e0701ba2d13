import { expect } from 'chai';
import { GroupCommit } from '../../src/db/group-commit.js';

/** A sender that records each call's items and answers them doubled, failing any call that holds `bad`. */
function doubler(bad?: number) {
  const calls: number[][] = [];
  let release: (() => void) | undefined;
  const send = async (items: number[]) => {
    calls.push(items);
    if (calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
    if (bad !== undefined && items.includes(bad)) throw new Error(`bad item ${bad}`);
    return items.map((n) => n * 2);
  };
  return { calls, send, release: () => release?.() };
}

describe('group commit', () => {
  it('sends the items of one turn in one call, and those that came while it was under way in the next', async () => {
    const d = doubler();
    const group = new GroupCommit(d.send);
    const first = [group.add(1), group.add(2)];
    await new Promise((resolve) => setImmediate(resolve));
    // The first call is under way (held): these wait for it.
    const second = [group.add(3), group.add(4), group.add(5)];
    d.release();
    expect(await Promise.all([...first, ...second])).to.deep.equal([2, 4, 6, 8, 10]);
    expect(d.calls).to.deep.equal([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('takes at most its limit of items a call', async () => {
    const d = doubler();
    const group = new GroupCommit(d.send, { most: 2 });
    const all = [1, 2, 3, 4, 5].map((n) => group.add(n));
    await new Promise((resolve) => setImmediate(resolve));
    d.release();
    expect(await Promise.all(all)).to.deep.equal([2, 4, 6, 8, 10]);
    expect(d.calls).to.deep.equal([[1, 2], [3, 4], [5]]);
  });

  it('tries each item of a failed call again alone: only the bad one fails', async () => {
    const d = doubler(2);
    const group = new GroupCommit(d.send);
    const all = [1, 2, 3].map((n) => group.add(n));
    await new Promise((resolve) => setImmediate(resolve));
    d.release();
    const settled = await Promise.allSettled(all);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).to.deep.equal([2, 'bad item 2', 6]);
    expect(d.calls).to.deep.equal([[1, 2, 3], [1], [2], [3]]);
  });

  it('tries a kept item again until it succeeds, the items behind it waiting, so that their order holds', async () => {
    let failures = 2;
    const calls: number[][] = [];
    const group = new GroupCommit(
      (items: number[]) => {
        calls.push(items);
        if (items.includes(2) && failures-- > 0) return Promise.reject(new Error('the store is away'));
        return Promise.resolve(items.map((n) => n * 2));
      },
      { keep: (n) => n === 2 },
    );
    const first = [1, 2].map((n) => group.add(n));
    await new Promise((resolve) => setImmediate(resolve));
    const later = group.add(3);
    expect(await Promise.all([...first, later])).to.deep.equal([2, 4, 6]);
    expect(calls).to.deep.equal([[1, 2], [1], [2], [2], [3]]);
  });

  it('once closed, fails a kept item that fails and every item after it; says when everything added so far is answered', async () => {
    const calls: number[][] = [];
    const group = new GroupCommit(
      (items: number[]): Promise<number[]> => {
        calls.push(items);
        return Promise.reject(new Error('the store is closed'));
      },
      { keep: () => true },
    );
    const all = [group.add(1), group.add(2)];
    let answered = false;
    const settled = group.settled().then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).to.equal(false);
    group.close();
    all.push(group.add(3));
    await settled;
    await group.settled();
    const outcomes = await Promise.allSettled(all);
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).message : o.value))).to.deep.equal(
      Array(3).fill('the store is closed'),
    );
    // Nothing was sent past the first item once it failed for good.
    expect(calls.flat().filter((n) => n !== 1)).to.deep.equal([2]);
  });

  it('lets a call of kept items alone wait for more; an item not kept, or someone waiting for them, sends it at once', async () => {
    const calls: number[][] = [];
    // Lingering a minute: the test would time out if anything waited for it.
    const group = new GroupCommit(
      (items: number[]) => {
        calls.push(items);
        return Promise.resolve(items.map((n) => n * 2));
      },
      { keep: (n) => n < 10, lingerMs: 60_000 },
    );
    const first = [group.add(1)];
    await new Promise((resolve) => setTimeout(resolve, 20));
    first.push(group.add(2));
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).to.deep.equal([]);
    first.push(group.add(10));
    expect(await Promise.all(first)).to.deep.equal([2, 4, 20]);
    const later = group.add(3);
    await group.settled();
    expect(await later).to.equal(6);
    expect(calls).to.deep.equal([[1, 2, 10], [3]]);
  });
});
