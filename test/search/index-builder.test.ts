// The index builder reads texts chunk by chunk with caches of its own: it must hold exactly what
// to_tsvector holds (analyze(), itself held to PostgreSQL by the oracle tests), and index builds over
// consecutive ranges of documents, joined, must equal one build over all of them.

import { expect } from 'chai';
import fc from 'fast-check';
import { tsvector, MAX_POSITION } from '../../src/search/analyze.js';
import { concatParts, IndexBuilder } from '../../src/search/index-builder.js';
import { InvertedIndex, type IndexParts } from '../../src/search/inverted-index.js';

/** Each document's lexemes and positions, as the index holds them. */
function documentsOf(index: InvertedIndex): Map<string, number[]>[] {
  const docs = Array.from({ length: index.documents }, () => new Map<string, number[]>());
  for (const lexeme of index.terms) {
    const { docs: holding } = index.occurrences(lexeme);
    for (const doc of holding) docs[doc]!.set(lexeme, [...index.positionsIn(lexeme, doc)!]);
  }
  return docs;
}

const sorted = (doc: Map<string, number[]>) => [...doc.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function build(texts: (string | null)[]): IndexParts {
  const builder = new IndexBuilder();
  for (const text of texts) builder.add(text);
  return builder.build().toParts();
}

const WORDS = [
  'Senior',
  'engineer',
  'engineers',
  'the',
  'and',
  'C++',
  'Node.js',
  'e-mail',
  'café',
  'naïve',
  '401(k)',
  'x@y.com',
  '3.14',
  '<b>bold</b>',
  'https://a.io/x',
  'Python,',
  '',
];
const texts = fc.array(
  fc.oneof(
    fc.constant(null),
    fc
      .array(fc.constantFrom(...WORDS), { maxLength: 40 })
      .chain((words) => fc.constantFrom(' ', '\n', '  ', '\t').map((blank) => words.join(blank))),
    fc.string({ maxLength: 60 }),
  ),
  { maxLength: 30 },
);

describe('the text index builder', () => {
  it('holds for each document exactly the lexemes and positions of to_tsvector', () => {
    fc.assert(
      fc.property(texts, (batch) => {
        const index = InvertedIndex.fromParts(build(batch));
        const held = documentsOf(index);
        batch.forEach((text, doc) => {
          expect(sorted(held[doc]!), JSON.stringify(text)).to.deep.equal(sorted(text ? tsvector(text) : new Map<string, number[]>()));
          const positions = [...held[doc]!.values()].flat();
          expect(index.maxPositions[doc]).to.equal(positions.length === 0 ? 0 : Math.max(...positions));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('keeps 255 positions of a lexeme, and one past the last position, as to_tsvector does', () => {
    const repeated = Array.from({ length: 300 }, () => 'engineer').join(' ');
    const long = `${Array.from({ length: MAX_POSITION + 20 }, (_, i) => (i % 2 ? 'python' : 'rust')).join(' ')} golang golang`;
    const index = InvertedIndex.fromParts(build([repeated, long, repeated]));
    for (const [doc, text] of [repeated, long, repeated].entries()) {
      expect(sorted(documentsOf(index)[doc]!)).to.deep.equal(sorted(tsvector(text)));
    }
    expect(index.positionsIn('engin', 0)).to.have.length(255);
    expect([...index.positionsIn('golang', 1)!]).to.deep.equal([MAX_POSITION]);
  });

  it('joins the builds of consecutive ranges of documents into the build of all of them', () => {
    fc.assert(
      fc.property(texts, texts, (first, second) => {
        expect(concatParts(build(first), build(second))).to.deep.equal(build([...first, ...second]));
      }),
      { numRuns: 200 },
    );
  });
});
