import { expect } from 'chai';
import { cluster, type Node } from '../../src/catalog/publish/cluster.js';

const node = (id: number, board: string, first = 0, last = 10): Node => ({ id, board, first, last });

describe('clustering postings into openings', () => {
  it('joins postings linked by accepted pairs, naming each cluster by its smallest number', () => {
    const result = cluster(
      [node(1, 'gh/a'), node(2, 'indeed/a'), node(3, 'lever/a'), node(4, 'indeed/b')],
      [
        { a: 2, b: 3, strength: 2 },
        { a: 1, b: 2, strength: 3 },
      ],
    );
    expect([...result]).to.deep.equal([
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 4],
    ]);
  });

  it('never puts two listings of one board side by side in one cluster, the stronger pair winning', () => {
    // 1 and 3 are on the same board at the same time: different openings. 2 is most like 3.
    const result = cluster(
      [node(1, 'gh/a'), node(2, 'indeed/a'), node(3, 'gh/a')],
      [
        { a: 1, b: 2, strength: 2.1 },
        { a: 2, b: 3, strength: 2.9 },
      ],
    );
    expect(result.get(2)).to.equal(result.get(3));
    expect(result.get(1)).not.to.equal(result.get(3));
  });

  it('lets a repost join the listing it replaced on the same board', () => {
    const result = cluster([node(1, 'gh/a', 0, 5), node(2, 'gh/a', 6, 9)], [{ a: 1, b: 2, strength: 2 }]);
    expect(result.get(2)).to.equal(1);
  });
});
