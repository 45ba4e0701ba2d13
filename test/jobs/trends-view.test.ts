import { expect } from 'chai';
import { copyVersions } from '../../src/jobs/trends.js';
import { runsOfTexts } from '../../src/jobs/trends-view.js';

describe('the runs of versions of each text of a trend', () => {
  // Seven versions over a publication of four documents (document 1 has none, document 3 three), then
  // two with their own text (places 0 and 1).
  const textDoc = Int32Array.from([0, 2, 3, 3, 3, -1, -2]);

  it('gives each document the run of versions sharing its text, empty for a document without', () => {
    const { textRuns } = runsOfTexts(textDoc, 4);
    expect(Array.from(textRuns)).to.deep.equal([0, 1, 1, 2, 5]);
  });

  it('places the versions of own texts after them, in order', () => {
    expect(runsOfTexts(textDoc, 4).ownFrom).to.equal(5);
    expect(runsOfTexts(Int32Array.from([-1, -2]), 4)).to.deep.include({ ownFrom: 0 });
  });

  it('refuses versions out of that order', () => {
    expect(() => runsOfTexts(Int32Array.from([2, 0]), 4)).to.throw(/out of the order/);
    expect(() => runsOfTexts(Int32Array.from([0, -2, -1]), 4)).to.throw(/out of the order/);
  });

  it('copies the marks of the versions of matching documents, a long run of documents at once', () => {
    // 2,000 documents of two versions each; the matches: a run of 1,000, then every third document.
    const first = (doc: number) => 2 * doc;
    const docs = Uint32Array.from([
      ...Array.from({ length: 1000 }, (_, doc) => 200 + doc),
      ...Array.from({ length: 200 }, (_, i) => 1300 + 3 * i),
    ]);
    const marked = Uint8Array.from({ length: 4000 }, (_, version) => (version % 5 === 3 ? 0 : 1));
    const out = new Uint8Array(4000);
    copyVersions(docs, first, marked, out);
    const matching = new Set(docs);
    expect(Array.from(out)).to.deep.equal(Array.from(marked, (mark, version) => (matching.has(Math.floor(version / 2)) ? mark : 0)));
  });
});
