// Random identifiers: lowercase base32 for ids people read and type, base64url for secrets.

import { randomBytes } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

export function randomBase32(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += BASE32[byte & 31];
  return out;
}

export function newAccountId(): string {
  return `acct_${randomBase32(16)}`;
}

export function newKeyId(): string {
  return randomBase32(16);
}

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}
