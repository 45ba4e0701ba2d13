import { expect } from 'chai';
import { demoStart } from '../../src/cli/demo.js';

describe('the demo corpus dates', () => {
  it('ends on the latest 06:00 UTC cut-off already past, never in the future', () => {
    expect(demoStart(new Date('2026-11-22T02:50:00Z'), 3)).to.equal('2026-11-19');
    expect(demoStart(new Date('2026-11-22T06:00:00Z'), 3)).to.equal('2026-11-20');
    expect(demoStart(new Date('2026-11-22T23:59:00Z'), 3)).to.equal('2026-11-20');
  });
});
