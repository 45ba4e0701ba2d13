// Idempotency keys, with Stripe's semantics: an action is done once per account and key within 24 hours;
// the same request sent again under the key gets the first answer without acting again; another request
// under the key is refused. Only a successful answer is kept: the key is claimed inside the action's own
// transaction, so an action that fails (or a server that dies) leaves the key free to be retried.

import { createHash } from 'node:crypto';
import { ApiError } from '../errors.js';
import { namedQueries } from './sql-files.js';
import type { Queryable } from './state-store.js';

const SQL = namedQueries('state/idempotency.sql', ['expire', 'claim', 'answered', 'answer']);

/** How long a key is kept. */
export const KEY_LIFE_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyKey {
  key: string;
  /** What the request was (fingerprint()): the same key with another request is refused. */
  fingerprint: string;
}

export interface Answer {
  status: number;
  body: unknown;
}

/** JSON with the keys of every object in sorted order: two bodies that say the same thing print the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The fingerprint of a request: its method, route and body (whatever the order of its keys). */
export function fingerprint(method: string, route: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${route}\n${canonical(body)}`)
    .digest('base64url');
}

function reused(key: string): ApiError {
  return new ApiError(
    'idempotency_key_reused',
    `The Idempotency-Key "${key.slice(0, 80)}" was used in the last 24 hours for another request (another route or body); send a new key for a new request.`,
  );
}

/**
 * The answer already given under the key, if any, read before any work (a replay then does none);
 * throws 422 idempotency_key_reused when the key was given to another request.
 */
export async function earlierAnswer(db: Queryable, accountId: string, idempotency: IdempotencyKey, now: Date): Promise<Answer | undefined> {
  const [row] = await db.query<{ fingerprint: string; status: number; body: unknown; created_at: Date }>(
    `${SQL.answered} AND created_at >= $3`,
    [accountId, idempotency.key, new Date(now.getTime() - KEY_LIFE_MS)],
  );
  if (!row) return undefined;
  if (row.fingerprint !== idempotency.fingerprint) throw reused(idempotency.key);
  return { status: Number(row.status), body: row.body };
}

/**
 * Runs `act` in the transaction `tx` unless the key already has an answer: claims the key first (a
 * concurrent request under the same key waits until this transaction ends), stores the answer with the
 * action's own writes. Without a key, just runs `act`.
 */
export async function once(
  tx: Queryable,
  accountId: string,
  idempotency: IdempotencyKey | undefined,
  now: Date,
  act: () => Promise<Answer>,
): Promise<{ answer: Answer; replayed: boolean }> {
  if (!idempotency) return { answer: await act(), replayed: false };
  await tx.query(SQL.expire, [accountId, new Date(now.getTime() - KEY_LIFE_MS)]);
  const [claimed] = await tx.query(SQL.claim, [accountId, idempotency.key, idempotency.fingerprint, now]);
  if (!claimed) {
    const answer = await earlierAnswer(tx, accountId, idempotency, now);
    if (!answer) throw new Error(`idempotency key ${idempotency.key} is taken but has no answer`);
    return { answer, replayed: true };
  }
  const answer = await act();
  await tx.query(SQL.answer, [accountId, idempotency.key, answer.status, JSON.stringify(answer.body)]);
  return { answer, replayed: false };
}
