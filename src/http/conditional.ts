// Conditional GET (RFC 9110 13.1.2): a strong ETag for every successful JSON answer of a GET, and 304 Not
// Modified when If-None-Match names it. Bodies are a pure function of the catalog snapshot and the request
// (cursors are sealed deterministically), so the ETag is drawn from the body itself, which is exact
// whatever produced it: its length and its 64-bit XXH64. A tag tells versions of one resource apart and
// need not resist a forger, so a non-cryptographic hash serves; SHA-256 took 77-85 µs for a page of 50
// jobs (135 KB), a quarter of the overhead budget of issue 24, and XXH64 in WebAssembly 9 µs (ADR 0013).

import xxhash from 'xxhash-wasm';
import type { Request, Response } from 'express';

const hasher = await xxhash();

/** The strong entity tag of a body: its length and XXH64, quoted. */
export function etagOf(body: string | Buffer): string {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return `"${bytes.length.toString(36)}-${hasher.h64Raw(bytes).toString(36)}"`;
}

/** GET and HEAD answers of 200 are conditional; nothing else is. */
export function isConditional(req: Request, res: Response): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && res.statusCode === 200;
}

/**
 * True when If-None-Match names `etag` or is `*` (weak comparison, as RFC 9110 13.1.2 requires for this
 * header: a W/ prefix on either side does not matter).
 */
export function notModified(req: Request, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

/**
 * Express answers 304 on its own when a request "is fresh", which `If-None-Match: *` makes any GET; the
 * service answers conditional requests itself (sendCharged), where the answer is settled first.
 */
export function neverFreshByItself(req: Request): void {
  Object.defineProperty(req, 'fresh', { value: false, configurable: true });
}
