// API keys: `jps_live_<key_id>.<secret>` (older keys `jp_live_`); only a SHA-256 of the secret is stored.

import { hash, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/state-store.js';
import { namedQueries } from '../db/sql-files.js';
import type { AccountRow } from './accounts.js';
import { newKeyId, newSecret } from './ids.js';

const SQL = namedQueries('state/accounts.sql', ['insert_key', 'list_keys', 'revoke_key', 'key_for_auth']);

export const KEY_PREFIX = 'jps_live_';
/** Keys issued before October 2026 carry this prefix and stay valid. */
export const LEGACY_KEY_PREFIX = 'jp_live_';
const KEY_PATTERN = /^(jps_live_|jp_live_)([a-z2-7]{16})\.([A-Za-z0-9_-]{43})$/;
/** The shape of a key, for messages: never the key itself, which would leave its secret in logs and terminals. */
export const KEY_SHAPE =
  'jp_live_<key_id>.<secret> (or jps_live_...): a key id of 16 characters a-z and 2-7, a dot, a secret of 43 characters A-Z, a-z, 0-9, _ and -';

export interface ParsedKey {
  prefix: typeof KEY_PREFIX | typeof LEGACY_KEY_PREFIX;
  keyId: string;
  secret: string;
}

/** The parts of a key of either prefix (spec 5 rule 2), or undefined when it does not have the shape of one. */
export function parseKey(presented: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(presented);
  if (!match) return undefined;
  const [, prefix, keyId, secret] = match as unknown as [string, ParsedKey['prefix'], string, string];
  return { prefix, keyId, secret };
}

export interface ApiKeyInfo {
  key_id: string;
  account_id: string;
  prefix: string;
  name: string;
  created_at: string;
  revoked_at: string | null;
}

interface KeyRow {
  key_id: string;
  account_id: string;
  prefix: string;
  name: string;
  created_at: Date;
  revoked_at: Date | null;
}

function toInfo(row: KeyRow): ApiKeyInfo {
  return {
    key_id: row.key_id,
    account_id: row.account_id,
    prefix: row.prefix,
    name: row.name,
    created_at: new Date(row.created_at).toISOString(),
    revoked_at: row.revoked_at ? new Date(row.revoked_at).toISOString() : null,
  };
}

function hashSecret(secret: string): Buffer {
  return hash('sha256', secret, 'buffer');
}

export interface IssuedKey extends ApiKeyInfo {
  /** The whole key; shown once, never stored. */
  key: string;
}

export interface KeyOptions {
  name?: string;
  /** Only for keys carried over from before October 2026. */
  prefix?: typeof KEY_PREFIX | typeof LEGACY_KEY_PREFIX;
  createdAt?: Date;
}

export async function issueKey(db: Queryable, accountId: string, options: KeyOptions = {}): Promise<IssuedKey> {
  const keyId = newKeyId();
  const secret = newSecret();
  const prefix = options.prefix ?? KEY_PREFIX;
  const [row] = await db.query<KeyRow>(SQL.insert_key, [
    keyId,
    accountId,
    prefix,
    hashSecret(secret),
    options.name ?? '',
    options.createdAt?.toISOString() ?? null,
  ]);
  return { ...toInfo(row!), key: `${prefix}${keyId}.${secret}` };
}

/**
 * Stores a key issued elsewhere (by the older system, before October 2026) as it is: its prefix, its key id
 * and a hash of its secret. The caller checks that the key id is free.
 */
export async function importKey(
  db: Queryable,
  accountId: string,
  key: ParsedKey,
  options: Pick<KeyOptions, 'name'> = {},
): Promise<ApiKeyInfo> {
  const [row] = await db.query<KeyRow>(SQL.insert_key, [
    key.keyId,
    accountId,
    key.prefix,
    hashSecret(key.secret),
    options.name ?? '',
    null,
  ]);
  return toInfo(row!);
}

/** Whether a key (live or revoked) has this id. */
export async function keyIdTaken(db: Queryable, keyId: string): Promise<boolean> {
  return (await db.query(SQL.key_for_auth, [keyId])).length > 0;
}

export async function listKeys(db: Queryable, accountId?: string): Promise<ApiKeyInfo[]> {
  return (await db.query<KeyRow>(SQL.list_keys, [accountId ?? null])).map(toInfo);
}

/** Revokes a key (idempotent); undefined when no key has this id. */
export async function revokeKey(db: Queryable, keyId: string): Promise<ApiKeyInfo | undefined> {
  const [row] = await db.query<KeyRow>(SQL.revoke_key, [keyId]);
  return row ? toInfo(row) : undefined;
}

export interface Caller {
  keyId: string;
  account: AccountRow;
}

/** What authentication reads of a key: its prefix, the hash of its secret, whether it is revoked, and its account. */
export interface KeyForAuth {
  prefix: string;
  secret_hash: Buffer;
  revoked_at: Date | null;
  account: AccountRow;
}

/** The key with this id (live or revoked) and its account, or undefined. */
export async function lookUpKey(db: Queryable, keyId: string): Promise<KeyForAuth | undefined> {
  const [row] = await db.query<KeyRow & AccountRow & { secret_hash: Uint8Array }>(SQL.key_for_auth, [keyId]);
  if (!row) return undefined;
  const { key_id: _k, prefix, secret_hash, revoked_at, ...account } = row;
  return { prefix, secret_hash: Buffer.from(secret_hash), revoked_at, account };
}

/** Whether a presented key's prefix and secret are the stored key's (compared in constant time). */
export function secretMatches(stored: KeyForAuth, presented: ParsedKey): boolean {
  return timingSafeEqual(stored.secret_hash, hashSecret(presented.secret)) && stored.prefix === presented.prefix;
}

/** The caller behind a presented key, or undefined for a malformed, unknown, revoked or wrong key. */
export async function authenticate(db: Queryable, presented: string): Promise<Caller | undefined> {
  const parsed = parseKey(presented);
  if (!parsed) return undefined;
  const stored = await lookUpKey(db, parsed.keyId);
  if (!stored || stored.revoked_at !== null || !secretMatches(stored, parsed)) return undefined;
  return { keyId: parsed.keyId, account: stored.account };
}
