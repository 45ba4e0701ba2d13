// The ids the API hands out: job, company and export ids are UUIDs; request ids are made here.

import { randomFillSync } from 'node:crypto';

/** A UUID as the API writes it: lower-case hex digits. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A UUID in any case (a client may send one in upper case: src/http/uuid-case.ts lowers it). */
export const ANY_CASE_UUID = new RegExp(UUID.source, 'i');

/** The random bytes of a request id: 96 bits. */
const ID_BYTES = 12;
/**
 * Random bytes for the next 256 request ids, drawn from the system's generator in one call as
 * crypto.randomUUID draws its own: a call for each request cost 6-40 µs of a request here.
 */
const pool = Buffer.alloc(ID_BYTES * 256);
let taken = pool.length;

/** A new request id (X-Request-Id, error bodies, the ledger): "req_" and 16 random base64url characters. */
export function newRequestId(): string {
  if (taken === pool.length) {
    randomFillSync(pool);
    taken = 0;
  }
  const id = pool.toString('base64url', taken, taken + ID_BYTES);
  taken += ID_BYTES;
  return `req_${id}`;
}
