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
    const group = new GroupCommit(d.send, 2);
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
});
