import { expect } from 'chai';
import { newRequestId } from '../../src/shared/ids.js';

describe('request ids', () => {
  it('are "req_" and 16 base64url characters, each new, across many draws of random bytes', () => {
    // 2,000 ids take the random bytes of several batches of 256.
    const ids = Array.from({ length: 2000 }, () => newRequestId());
    for (const id of ids) expect(id).to.match(/^req_[A-Za-z0-9_-]{16}$/);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('differ in every character position, as random ids do', () => {
    const ids = Array.from({ length: 512 }, () => newRequestId().slice(4));
    for (let at = 0; at < 16; at++) expect(new Set(ids.map((id) => id[at])).size, `position ${at}`).to.be.above(20);
  });
});
