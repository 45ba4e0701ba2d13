// A query tested one document at a time (InvertedIndex.tester, used while walking the default order)
// must select exactly the documents evaluate() lists, and its bound must never undercount them.

import { expect } from 'chai';
import { IndexBuilder } from '../../src/search/index-builder.js';
import { parseAdvanced, phraseQuery, plainQuery, type Query } from '../../src/search/query.js';
import { corpusTexts } from './support/oracle.js';
import { generateQueries } from './support/queries.js';

describe('InvertedIndex.tester', function () {
  this.timeout(120_000);

  it('selects exactly what evaluate() selects, for generated queries of every form', async () => {
    const { titles } = await corpusTexts();
    const builder = new IndexBuilder();
    for (const title of titles) builder.add(title);
    builder.add(null);
    const index = builder.build();
    const queries: Query[] = [
      ...generateQueries(titles, 600, 29, true).map((q) => parseAdvanced(q.advanced)),
      ...titles.slice(0, 100).map((t) => phraseQuery(t.split(' ').slice(0, 3).join(' '))),
      ...titles.slice(100, 150).map((t) => plainQuery(t)),
    ];
    let tested = 0;
    const differ: string[] = [];
    for (const query of queries) {
      const tester = index.tester(query);
      if (!tester) continue;
      tested++;
      const expected = Array.from(index.evaluate(query));
      const got = Array.from({ length: index.documents }, (_, doc) => doc).filter((doc) => tester.has(doc));
      if (JSON.stringify(got) !== JSON.stringify(expected) || tester.bound < expected.length) differ.push(JSON.stringify(query));
    }
    expect(tested, 'queries with a tester').to.be.at.least(queries.length * 0.8);
    expect(differ).to.deep.equal([]);
  });

  it('declines a prefix of many lexemes, which is cheaper to evaluate whole', () => {
    const builder = new IndexBuilder();
    for (let i = 0; i < 10; i++) builder.add(`unit${i} unitx${i}`);
    const index = builder.build();
    expect(index.lexemesWithPrefix('unit')).to.have.length(20);
    expect(index.tester(parseAdvanced('unit:*'))).to.equal(null);
    expect(index.tester(parseAdvanced('unitx1:*'))).to.not.equal(null);
  });
});
