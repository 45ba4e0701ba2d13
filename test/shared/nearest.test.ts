import { expect } from 'chai';
import { nearest } from '../../src/shared/nearest.js';

describe('nearest', () => {
  it('finds the known name a typo was meant to be, whatever its case', () => {
    expect(nearest('acounts', ['accounts', 'keys', 'serve'])).to.equal('accounts');
    expect(nearest('TITEL', ['title', 'description'])).to.equal('title');
    expect(nearest('work_arangement', ['work_arrangement', 'remote_type'])).to.equal('work_arrangement');
  });

  it('suggests nothing when no known name is close', () => {
    expect(nearest('page', ['cursor', 'limit'])).to.equal(undefined);
    expect(nearest('x', ['serve', 'keys'])).to.equal(undefined);
  });
});
