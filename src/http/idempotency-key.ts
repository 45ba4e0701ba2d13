// The Idempotency-Key header of POST /v1/jobs/exports and PUT /v1/account/overage (docs/usage-and-limits.md,
// "Retrying safely"): read, checked, and turned into the key and the request's fingerprint.

import type { Request, Response } from 'express';
import { fingerprint, type IdempotencyKey } from '../db/idempotency.js';
import { invalidRequest } from '../errors.js';

/** A key is 1 to 255 visible ASCII characters: a UUID, or any token the client makes unique. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key, or undefined when it sends none. */
export function idempotencyKeyOf(req: Request, route: string): IdempotencyKey | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw invalidRequest(
      'Idempotency-Key must be 1 to 255 visible ASCII characters without spaces, sent once, e.g. a new UUID for each request: 3b1e7c2a-9f0d-4c61-8a55-2f4e6d7b9c10.',
    );
  }
  return { key, fingerprint: fingerprint(req.method, route, req.body) };
}

/** An answer given again for a key already answered says so. */
export function markReplayed(res: Response, replayed: boolean): void {
  if (replayed) res.setHeader('Idempotent-Replayed', 'true');
}
