// The ids the API hands out: job, company and export ids are UUIDs; request ids are made here.

import { randomBytes } from 'node:crypto';

/** A UUID as the API writes it: lower-case hex digits. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A UUID in any case (a client may send one in upper case: src/http/uuid-case.ts lowers it). */
export const ANY_CASE_UUID = new RegExp(UUID.source, 'i');

/** A new request id (X-Request-Id, error bodies, the ledger): "req_" and 16 random base64url characters. */
export function newRequestId(): string {
  return `req_${randomBytes(12).toString('base64url')}`;
}
