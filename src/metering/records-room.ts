// What a server knows of its accounts' monthly records between calls of the store (ADR 0013, "The
// journal"), on the embedded store, which this process alone writes: a request whose records fit in
// the allowance as the server counts it is charged in memory, journaled and settled in the store later.
//
// The count is the store's last figure plus the records charged in memory since and not yet settled
// there, so it is never below what the store will hold once they are. It is trusted only while nothing
// else can move the month under it: no settlement of the account's is in the store unanswered (one
// that did not fit: its outcome, overage or refusal, is the store's to decide), no other writer of the
// month is under way (an export's reservation), and the figure was read after the last such writer
// ended. Otherwise a request is settled in the store and waits for its answer, as before.

export interface RecordsFigure {
  used: number;
  reserved: number;
}

interface AccountRecords {
  /** The month of the figure (YYYY-MM-01) and the allowance it was counted against. */
  month: string;
  allowance: number;
  /** The store's figure plus the records charged in memory since. */
  used: number;
  reserved: number;
  /** A figure from the store under the current version, and nothing unanswered since. */
  known: boolean;
  /** Records charged in memory and not yet settled in the store, by month. */
  pending: Map<string, number>;
  /** Settlements sent to the store and not answered yet. */
  unanswered: number;
  /** Other writers of the month under way. */
  blocked: number;
  /** Moves when another writer of the month ends: a figure read before it is stale. */
  version: number;
}

/** Past this many accounts, those with nothing pending nor under way are forgotten. */
const KEPT = 10_000;

export class RecordsRoom {
  private readonly accounts = new Map<string, AccountRecords>();
  /** Versions come from one counter, so an account forgotten and seen again never repeats one. */
  private versions = 0;

  private of(accountId: string): AccountRecords {
    let account = this.accounts.get(accountId);
    if (!account) {
      if (this.accounts.size >= KEPT) this.forgetIdle();
      account = {
        month: '',
        allowance: 0,
        used: 0,
        reserved: 0,
        known: false,
        pending: new Map(),
        unanswered: 0,
        blocked: 0,
        version: ++this.versions,
      };
      this.accounts.set(accountId, account);
    }
    return account;
  }

  private forgetIdle(): void {
    for (const [id, a] of this.accounts) if (a.pending.size === 0 && a.unanswered === 0 && a.blocked === 0) this.accounts.delete(id);
  }

  /** The version a read of the store starting now is made under. */
  version(accountId: string): number {
    return this.of(accountId).version;
  }

  /** Where the account's month stands as this server counts it (the response's headers). */
  figure(accountId: string): RecordsFigure | undefined {
    const a = this.accounts.get(accountId);
    return a?.month ? { used: a.used, reserved: a.reserved } : undefined;
  }

  /**
   * The store said where `month` stands (a grant, or a settlement's answer), read under `version`: the
   * records charged in memory and not settled yet are added to it.
   */
  read(accountId: string, month: string, allowance: number, figure: RecordsFigure, version: number): void {
    const a = this.of(accountId);
    a.month = month;
    a.allowance = allowance;
    a.used = figure.used + (a.pending.get(month) ?? 0);
    a.reserved = figure.reserved;
    a.known = version === a.version && a.blocked === 0 && a.unanswered === 0;
  }

  /**
   * Charges `records` in memory when they fit in the allowance of `month` as counted, with nothing
   * else able to move it: true when they were charged (settle them with settled() once the store has).
   */
  take(accountId: string, month: string, allowance: number, records: number): boolean {
    const a = this.accounts.get(accountId);
    if (!a?.known || a.month !== month || a.allowance !== allowance) return false;
    if (a.used + a.reserved + records > allowance) return false;
    a.used += records;
    a.pending.set(month, (a.pending.get(month) ?? 0) + records);
    return true;
  }

  /** Records charged in memory are settled in the store now. */
  settled(accountId: string, month: string, records: number): void {
    const a = this.accounts.get(accountId);
    const left = (a?.pending.get(month) ?? 0) - records;
    if (!a) return;
    if (left > 0) a.pending.set(month, left);
    else a.pending.delete(month);
  }

  /** A settlement goes to the store to be decided there: until it is answered, nothing is charged in memory. */
  sent(accountId: string): number {
    const a = this.of(accountId);
    a.unanswered++;
    a.known = false;
    return a.version;
  }

  /** The store answered a settlement sent under `version` (with where the month stands, when it said). */
  answered(accountId: string, version: number, month: string, allowance: number, figure: RecordsFigure | undefined): void {
    const a = this.of(accountId);
    a.unanswered--;
    if (figure) this.read(accountId, month, allowance, figure, version);
  }

  /** Another writer of the account's month begins (an export's reservation): nothing is charged in memory until it ends. */
  block(accountId: string): void {
    const a = this.of(accountId);
    a.blocked++;
    a.known = false;
  }

  /** The writer ended: the figure must be read again. */
  unblock(accountId: string): void {
    const a = this.of(accountId);
    a.blocked = Math.max(0, a.blocked - 1);
    this.stale(accountId);
  }

  /** The month may have moved in the store: nothing is charged in memory until the figure is read again. */
  stale(accountId: string): void {
    const a = this.of(accountId);
    a.version = ++this.versions;
    a.known = false;
  }
}
