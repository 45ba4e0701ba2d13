import { expect } from 'chai';
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
});
