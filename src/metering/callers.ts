// The callers a server has authenticated, kept in memory (ADR 0013): looking a key up in the embedded
// store costs 0.45 ms or more a request, a third of the store's work on a cheap route. The store says
// which account changed (migration 0011: a trigger on accounts and api_keys notifies channel jps_callers,
// whichever process or function changed it), and the account's keys are forgotten before the next
// request is authenticated: a revoked key stops at once, a changed plan or balance is read again. When
// notices may have been missed (a server store's listening connection failed), nothing is remembered
// until listening resumes.

import type { Logger } from 'pino';
import type { StateStore } from '../db/state-store.js';
import { lookUpKey, parseKey, secretMatches, type Caller, type KeyForAuth } from './keys.js';

const CHANNEL = 'jps_callers';
/** At most this many keys are remembered; the oldest are forgotten first. */
const MOST = 50_000;
/** How long to wait before listening again after the listening connection failed. */
const RELISTEN_MS = 1_000;

export class Callers {
  private readonly keys = new Map<string, KeyForAuth>();
  /** The remembered key ids of each account. */
  private readonly byAccount = new Map<string, Set<string>>();
  private listening = false;
  /** Counts notices: a look-up that began before one is not remembered (it may have read the row before the change). */
  private changes = 0;
  private stop: (() => Promise<void>) | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  /** Said once until listening works again: a store that cannot LISTEN (a pooler in transaction mode) is retried every second. */
  private warned = false;
  private losses = 0;

  private constructor(
    private readonly store: StateStore,
    private readonly logger: Logger,
  ) {}

  static async open(store: StateStore, logger: Logger): Promise<Callers> {
    const callers = new Callers(store, logger);
    await callers.listen();
    return callers;
  }

  /** The caller behind a presented key, or undefined for a malformed, unknown, revoked or wrong key (as keys.authenticate). */
  async authenticate(presented: string): Promise<Caller | undefined> {
    const parsed = parseKey(presented);
    if (!parsed) return undefined;
    // While notices may be missed (not listening), every key is read and none remembered.
    let row = this.listening ? this.keys.get(parsed.keyId) : undefined;
    if (!row) {
      const seen = this.changes;
      row = await lookUpKey(this.store, parsed.keyId);
      if (!row) return undefined;
      if (seen === this.changes && this.listening) this.remember(parsed.keyId, row);
    }
    if (row.revoked_at !== null || !secretMatches(row, parsed)) return undefined;
    // A copy: the caller's account travels with the request and must not change the remembered row.
    return { keyId: parsed.keyId, account: { ...row.account } };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.forgetAll();
    // A store closed first (a failing store, a test) has nothing left to stop listening on.
    await this.stop?.().catch(() => undefined);
  }

  private remember(keyId: string, row: KeyForAuth): void {
    if (this.keys.size >= MOST) this.forgetKey(this.keys.keys().next().value!);
    this.keys.set(keyId, row);
    const accountId = row.account.account_id;
    let keyIds = this.byAccount.get(accountId);
    if (!keyIds) this.byAccount.set(accountId, (keyIds = new Set()));
    keyIds.add(keyId);
  }

  private forgetKey(keyId: string): void {
    const accountId = this.keys.get(keyId)?.account.account_id;
    this.keys.delete(keyId);
    if (accountId === undefined) return;
    const keyIds = this.byAccount.get(accountId);
    keyIds?.delete(keyId);
    if (keyIds?.size === 0) this.byAccount.delete(accountId);
  }

  /** A notice: the account or one of its keys changed. */
  private forget(accountId: string): void {
    this.changes++;
    for (const keyId of this.byAccount.get(accountId) ?? []) this.keys.delete(keyId);
    this.byAccount.delete(accountId);
  }

  private forgetAll(): void {
    this.changes++;
    this.listening = false;
    this.keys.clear();
    this.byAccount.clear();
  }

  private async listen(): Promise<void> {
    const losses = this.losses;
    try {
      this.stop = await this.store.listen(
        CHANNEL,
        (accountId) => this.forget(accountId),
        () => this.lost(),
      );
      if (this.closed) await this.stop();
      // Listening from now on, unless the connection was lost while it was being set up (a retry is due).
      else if (losses === this.losses) this.listening = true;
      this.warned = false;
    } catch (error) {
      if (!this.warned) this.logger.warn({ err: error }, 'cannot listen for changes of accounts and keys: every request looks its key up');
      this.warned = true;
      this.lost();
    }
  }

  private lost(): void {
    this.losses++;
    this.forgetAll();
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.closed) void this.listen();
    }, RELISTEN_MS);
    this.retry.unref();
  }
}
