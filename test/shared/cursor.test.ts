// Cursor checks (src/shared/cursor.ts): what a client sending a wrong cursor is told, for the sealed
// cursors of the company lists and the usage events.

import { expect } from 'chai';
import { CursorSigner } from '../../src/shared/cursor.js';
import type { ApiError } from '../../src/errors.js';
import { freshStore } from '../support/app.js';

interface Usage {
  k: 'usage';
  b: string;
  at: number;
}

describe('cursor checks', () => {
  let signer: CursorSigner;
  before(async () => {
    signer = await CursorSigner.open(await freshStore());
  });

  const opening = (token: string, valid?: (p: Usage) => boolean) => {
    try {
      return signer.opened<Usage>(token, {
        kind: 'usage',
        noun: 'usage',
        binding: 'b1',
        resend: 'send the same filters.',
        ...(valid ? { valid } : {}),
      });
    } catch (error) {
      return (error as ApiError).message;
    }
  };

  it('gives back the payload of a cursor of its kind and binding', () => {
    expect(opening(signer.seal({ k: 'usage', b: 'b1', at: 7 }))).to.deep.equal({ k: 'usage', b: 'b1', at: 7 });
  });

  it('refuses a cursor of another kind, one altered, one not sealed here and one failing its check in the same words', () => {
    const refusal = 'cursor is not a usage cursor of this API or was altered; pass next_cursor exactly as received.';
    const token = signer.seal({ k: 'usage', b: 'b1', at: 7 });
    expect(opening(signer.seal({ k: 'companies', b: 'b1', at: 7 }))).to.equal(refusal);
    expect(opening(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).to.equal(refusal);
    expect(opening('not-a-cursor')).to.equal(refusal);
    // A character added to the signature: base64url decoding would drop it, the check does not.
    expect(opening(`${token}x`)).to.equal(refusal);
    expect(opening(token, (p) => p.at < 5)).to.equal(refusal);
  });

  it('says what to send again for a cursor made for other parameters', () => {
    expect(opening(signer.seal({ k: 'usage', b: 'b2', at: 7 }))).to.equal('send the same filters.');
  });
});
