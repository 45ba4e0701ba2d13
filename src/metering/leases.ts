// Leases of the request window (ADR 0013): on the embedded store, which this process alone holds, a
// records-model request is admitted in memory from slots of the account's window taken a few at a
// time, and taken in the store (its monthly request, its ledger row) by the one call that settles it.
// A metered request then costs the store one call rather than two.
//
// What stays exact: a slot is in the store's window row before a request is admitted from it, so a
// window never admits more than its limit, whatever happens to this process (after kill -9 the slots
// it held unused stay taken until the window ends, at most a minute). The monthly requests are counted
// in memory from what the store said at the last grant, less every request admitted since: never more
// than the store has, as nothing else takes them on this store. When that count reaches nothing, the
// account's admitted requests are settled first and the store asked again, so a refusal is exact; and
// the call that takes a request refuses it if no monthly request is left after all.
//
// With a journal (the server's embedded store), a request whose records fit in the month as counted in
// memory (records-room.ts), or that charges none, is settled at once: its line is journaled before its
// answer and the store settles it with the next batch. Any other is settled in the store, its answer
// waiting for the call.

import { GroupCommit } from '../db/group-commit.js';
import type { StateStore } from '../db/state-store.js';
import { settleJournaled, type JournalPosition, type MeterJournal } from './journal.js';
import type { Caller } from './keys.js';
import { monthKey, monthOf } from './months.js';
import { RecordsRoom, type RecordsFigure } from './records-room.js';
import { PLANS } from './plans.js';
import type { Standing } from './standing.js';
import { call, REQUEST_ARGS, type SettleRow, type StandingRow } from './store-call.js';

/**
 * Slots taken at once: FIRST for an account's first grant of a window, twice as many at each grant after
 * it, up to a quarter of the window's limit. What a killed server held unused stays taken until the
 * window ends: an account that sends few requests loses few, one that sends many renews its lease seldom.
 */
const FIRST = 4;
/** How long a call of journaled settlements alone waits for more. */
const LINGER_MS = 5;
/** Past this many accounts' leases, those of windows gone by are forgotten. */
const KEPT = 10_000;
const SHARE = 4;

const LEASE = `SELECT * FROM meter_lease(p_account => $1, p_key => $2, p_at => $3, p_window_limit => $4, p_window_seconds => $5,
  p_plan_requests => $6, p_since => $7, p_want => $8)`;
const DRAW_ARGS = [...REQUEST_ARGS, 'p_node'];
const SETTLE_LEASED_ARGS = [
  ...DRAW_ARGS,
  'p_month',
  'p_status',
  'p_records',
  'p_allowance',
  'p_force',
  'p_void',
  'p_overage_enabled',
  'p_price',
  'p_limit_cents',
];
const DRAW = `SELECT * FROM ${call('meter_draw', DRAW_ARGS)}`;
const RETURN = 'SELECT meter_lease_return($1, $2, $3)';
const SLOTS = 'SELECT * FROM meter_lease_slots($1, $2, $3, $4, $5)';
const REFUSE = 'SELECT meter_count_refusal($1, $2, $3, $4)';

/** One request's arguments of meter_settle_leased, by name. */
type SettleArgs = Record<string, unknown>;

/** A settlement on its way to the store: where its journal line ends, when it was settled in memory. */
interface Settling {
  args: SettleArgs;
  at?: JournalPosition;
}

/** A leased request's settlement; `stored` settles once the store has it (already so when it was settled there). */
export interface LeasedSettled {
  row: LeasedSettleRow;
  stored: Promise<void>;
}

export interface LeasedSettleRow extends SettleRow {
  outcome: 'admitted' | 'requests';
  requests_used: string | number;
  requests_left: string | number;
}

/** A request admitted from a lease, as the store takes it (its ledger row's own columns). */
export interface Taking {
  requestId: string;
  caller: Caller;
  at: Date;
  method: string;
  route: string;
  routeClass: string;
  nodeId: string | null;
}

/** What a leased request is settled with (Meter's SettleOptions, resolved). */
export interface LeasedSettlement {
  month: string;
  status: number;
  records: number;
  force: boolean;
  void: boolean;
}

interface LeaseRow extends StandingRow {
  granted: number;
}

/** One account's lease, for one window and one plan. */
export interface Lease {
  windowStart: number;
  windowReset: Date;
  windowLimit: number;
  planRequests: number;
  /** Slots held and not used yet. */
  slots: number;
  /** The window's use in the store: this lease's slots, used or not, included. */
  inWindow: number;
  /** A grant found the window full: nothing frees a slot of it on this store but this server. */
  full: boolean;
  /** Grants of slots in this window so far, and the slots the last one took. */
  grants: number;
  granted: number;
  requestsUsed: number;
  requestsLeft: number;
  /** The store was asked with no request of the account admitted and not yet taken: requestsLeft is exact. */
  exact: boolean;
}

export type LeaseOutcome = { lease: Lease; refusal: null | 'window' | 'requests' };

export class Leases {
  private readonly leases = new Map<string, Lease>();
  /** Grants under way, one an account. */
  private readonly granting = new Map<string, Promise<void>>();
  /** Requests admitted from a lease and not yet taken in the store, by account. */
  private readonly untaken = new Map<string, number>();
  private readonly drained = new Map<string, Array<() => void>>();
  /** The window of the last sweep of past leases. */
  private swept = 0;
  /** Settlements of leased requests, sent to the store together (group commit): a commit costs more than a settlement. */
  private readonly settlements = new GroupCommit<Settling, LeasedSettleRow>((batch) => this.settleTogether(batch), {
    // A journaled settlement's answer has been sent: it is tried until the store takes it, and may
    // wait a little for others (nothing waits for it; a call's commit costs more than its rows).
    keep: (item) => item.at !== undefined,
    lingerMs: LINGER_MS,
  });
  /** The accounts' monthly records as this server counts them between calls of the store. */
  private readonly records = new RecordsRoom();

  constructor(
    private readonly store: StateStore,
    private readonly windowSeconds: number,
    /** Where requests settled in memory are journaled; without one, each is settled in the store first. */
    private readonly journal?: MeterJournal,
  ) {}

  /**
   * Admits a request of `caller` at `at` from its account's lease (windowed: it takes a slot of the
   * window), or says why not; a refusal is counted in the store, as admission counts it.
   */
  async admit(caller: Caller, at: Date, windowed: boolean, routeClass: string): Promise<LeaseOutcome> {
    const id = caller.account.account_id;
    const plan = PLANS[caller.account.plan];
    const windowStart = this.windowOf(at);
    for (;;) {
      const lease = this.leases.get(id);
      const stale = lease && (lease.windowLimit !== plan.requestsPerMinute || lease.planRequests !== plan.monthlyRequests);
      if (!lease || lease.windowStart !== windowStart || stale) {
        await this.grant(caller, at, windowStart, windowed);
        continue;
      }
      if (windowed && lease.slots === 0) {
        if (lease.full) return this.refuse(caller, at, routeClass, lease, 'window');
        await this.grant(caller, at, windowStart, true);
        continue;
      }
      if (lease.requestsLeft <= 0) {
        if (lease.exact) return this.refuse(caller, at, routeClass, lease, 'requests');
        await this.drain(id);
        await this.grant(caller, at, windowStart, false);
        continue;
      }
      if (windowed) lease.slots--;
      lease.requestsLeft--;
      lease.requestsUsed++;
      lease.exact = false;
      this.untaken.set(id, (this.untaken.get(id) ?? 0) + 1);
      if (windowed) this.renewEarly(caller, at, lease);
      return { lease, refusal: null };
    }
  }

  /**
   * Slots for the next requests asked for before the lease runs out, when they come from the window
   * alone (grantSlots): a request then seldom waits for a grant. Its failure is met by the next request,
   * which asks again.
   */
  private renewEarly(caller: Caller, at: Date, lease: Lease): void {
    const id = caller.account.account_id;
    if (lease.full || lease.slots > Math.max(1, lease.granted >> 2) || this.granting.has(id) || !this.counts(lease, caller, at)) return;
    this.grant(caller, at, lease.windowStart, true).catch(() => undefined);
  }

  /** Whether this server counts the account's month from `lease`: the same month and plan, requests left. */
  private counts(lease: Lease, caller: Caller, at: Date): boolean {
    const plan = PLANS[caller.account.plan];
    return (
      lease.requestsLeft > 0 &&
      lease.planRequests === plan.monthlyRequests &&
      lease.windowLimit === plan.requestsPerMinute &&
      monthKey(new Date(lease.windowStart)) === monthKey(at)
    );
  }

  /**
   * Takes and settles a request admitted from a lease: in memory and journaled when it charges nothing or
   * its records fit in the month as counted, else in one call of the store with those settled at the same time.
   */
  async settle(taking: Taking, s: LeasedSettlement): Promise<LeasedSettled> {
    const { account } = taking.caller;
    const id = account.account_id;
    const allowance = PLANS[account.plan].monthlyRecords;
    // What meter_settle_leased settles without looking at the month: a refusal, an error or no records.
    const nothing = s.void || s.status >= 400 || s.records === 0;
    const args = named(SETTLE_LEASED_ARGS, [
      ...takingArgs(taking),
      s.month,
      s.status,
      s.records,
      allowance,
      s.force,
      s.void,
      account.overage_enabled,
      account.overage_price_micros,
      account.overage_limit_cents,
    ]);
    if (this.journal && s.status !== 429 && !s.force && (nothing || this.records.take(id, s.month, allowance, s.records)))
      return this.settleInMemory(taking, s, args, nothing);
    const version = this.records.sent(id);
    let row: LeasedSettleRow | undefined;
    try {
      row = await this.settlements.add({ args });
    } finally {
      const figure: RecordsFigure | undefined =
        row && row.records_used !== null ? { used: Number(row.records_used), reserved: Number(row.records_reserved) } : undefined;
      this.records.answered(id, version, s.month, allowance, figure);
      // A request answered 429 gives its monthly request back; one refused when taken never had it.
      const returned = row !== undefined && (row.outcome === 'requests' || !row.charged || s.status === 429);
      this.taken(id, returned);
    }
    return { row, stored: Promise.resolve() };
  }

  /**
   * A request settled as the store would (its monthly request is among those the lease counts; its
   * records, if any, fit): journaled now, settled in the store by the next batch. Its records are
   * charged even past the allowance there (p_force): the answer has been sent.
   */
  private settleInMemory(taking: Taking, s: LeasedSettlement, args: SettleArgs, nothing: boolean): LeasedSettled {
    const id = taking.caller.account.account_id;
    if (!nothing) args.p_force = true;
    const at = this.journal!.append(args);
    const figure = nothing ? undefined : this.records.figure(id);
    const stored = this.settlements.add({ args, at }).then(
      (row) => {
        this.stored(id, s, nothing);
        if (row.outcome !== 'admitted' || !row.charged || row.settlement === 'overage')
          throw new Error(`a request settled in memory was settled otherwise in the store (${row.outcome}, ${row.settlement})`);
      },
      (error: unknown) => {
        this.stored(id, s, nothing);
        throw error;
      },
    );
    const row: LeasedSettleRow = {
      outcome: 'admitted',
      requests_used: 0,
      requests_left: 0,
      charged: true,
      records_used: figure ? figure.used : null,
      records_reserved: figure ? figure.reserved : null,
      overage_micros: 0,
      settlement: s.void || s.status >= 400 ? 'not_charged' : 'included',
    };
    return { row, stored };
  }

  /** A request settled in memory is in the store now. */
  private stored(accountId: string, s: LeasedSettlement, nothing: boolean): void {
    if (!nothing) this.records.settled(accountId, s.month, s.records);
    this.taken(accountId, false);
  }

  /** One call of the store for a batch of settlements, answered in the batch's order; the journal settled as far as the batch reaches. */
  private async settleTogether(batch: Settling[]): Promise<LeasedSettleRow[]> {
    const at = batch.findLast((item) => item.at !== undefined)?.at;
    const rows = await settleJournaled<LeasedSettleRow & { i: number }>(
      this.store,
      batch.map((item) => item.args),
      at,
    );
    if (at) this.journal!.settled(at);
    const answered: LeasedSettleRow[] = [];
    for (const { i, ...row } of rows) answered[i] = row;
    return answered;
  }

  /** Resolves once every settlement made so far is in the store (the ledger and the months read by others). */
  allStored(): Promise<void> {
    return this.settlements.settled();
  }

  /** Another writer of the account's month begins (an export's reservation): first, what was settled in memory reaches the store. */
  async block(accountId: string): Promise<void> {
    this.records.block(accountId);
    await this.settlements.settled();
  }

  /** The other writer of the account's month has ended. */
  unblock(accountId: string): void {
    this.records.unblock(accountId);
  }

  /** Takes a request admitted from a lease now, its ledger row pending; false when no monthly request is left. */
  async draw(taking: Taking): Promise<boolean> {
    let row: { drawn: boolean } | undefined;
    try {
      [row] = await this.store.query<{ drawn: boolean }>(DRAW, takingArgs(taking));
    } finally {
      this.taken(taking.caller.account.account_id, row?.drawn === false);
    }
    return row!.drawn;
  }

  /**
   * A request admitted from the account's lease has been taken in the store (or refused there): it no
   * longer counts as untaken. `returned`: its monthly request is not counted after all (answered 429,
   * or refused when taken).
   */
  private taken(accountId: string, returned: boolean): void {
    const lease = this.leases.get(accountId);
    if (lease && returned) {
      lease.requestsUsed--;
      lease.requestsLeft++;
    }
    const left = (this.untaken.get(accountId) ?? 1) - 1;
    if (left > 0) {
      this.untaken.set(accountId, left);
      return;
    }
    this.untaken.delete(accountId);
    for (const wake of this.drained.get(accountId) ?? []) wake();
    this.drained.delete(accountId);
  }

  /** Where the account's lease stands now (undefined without one in the current window). */
  current(accountId: string, at: Date): Lease | undefined {
    const lease = this.leases.get(accountId);
    const windowStart = this.windowOf(at);
    return lease?.windowStart === windowStart ? lease : undefined;
  }

  /** The start of the window `at` falls in, in ms. */
  private windowOf(at: Date): number {
    const ms = this.windowSeconds * 1000;
    return Math.floor(at.getTime() / ms) * ms;
  }

  /** Gives the account's unused slots back (its requests now go another way: a changed billing model). */
  async release(accountId: string): Promise<void> {
    await this.granting.get(accountId);
    const lease = this.leases.get(accountId);
    this.leases.delete(accountId);
    if (lease) await this.giveBack(accountId, lease);
  }

  /** Forgets what is counted of the account in memory: its lease (the unused slots given back) and its month's records. */
  async forget(accountId: string): Promise<void> {
    await this.release(accountId);
    this.records.stale(accountId);
  }

  /**
   * The server stops: a journaled settlement the store fails from now on is left to the journal (the
   * next start settles it), and nothing after it is sent.
   */
  stopping(): void {
    this.settlements.close();
  }

  /** Gives every unused slot back and closes the journal (every settlement is in the store): the server stops. */
  async close(): Promise<void> {
    await Promise.all([...this.granting.values()]);
    const leases = [...this.leases];
    this.leases.clear();
    for (const [accountId, lease] of leases) await this.giveBack(accountId, lease);
    await this.settlements.settled();
    this.journal?.close();
  }

  private async giveBack(accountId: string, lease: Lease): Promise<void> {
    if (lease.slots > 0) await this.store.query(RETURN, [accountId, new Date(lease.windowStart), lease.slots]);
  }

  /** One grant at a time for an account; a request waiting on another's grant looks again when it ends. */
  private async grant(caller: Caller, at: Date, windowStart: number, slots: boolean): Promise<void> {
    const id = caller.account.account_id;
    const under = this.granting.get(id);
    if (under) return under;
    const work = this.runGrant(caller, at, windowStart, slots).finally(() => this.granting.delete(id));
    this.granting.set(id, work);
    return work;
  }

  private async runGrant(caller: Caller, at: Date, windowStart: number, slots: boolean): Promise<void> {
    const { account } = caller;
    const id = account.account_id;
    const plan = PLANS[account.plan];
    const old = this.leases.get(id);
    const same = old?.windowStart === windowStart && old.windowLimit === plan.requestsPerMinute;
    // A lease of the same window under another plan gives its slots back before the grant counts the window.
    if (old && !same) {
      this.leases.delete(id);
      if (old.windowStart === windowStart) await this.giveBack(id, old);
    }
    const grants = same ? old.grants : 0;
    const want = slots ? Math.min(Math.max(1, Math.ceil(plan.requestsPerMinute / SHARE)), FIRST << grants) : 0;
    // This server counts the account's month already (a lease of this month and plan with requests left):
    // slots of the window alone, the months not read again.
    if (old && want > 0 && this.counts(old, caller, at))
      return this.grantSlots(id, at, windowStart, want, same ? old : { ...old, slots: 0, grants: 0 });
    const untaken = this.untaken.get(id) ?? 0;
    const version = this.records.version(id);
    const [row] = await this.store.query<LeaseRow>(LEASE, [
      id,
      caller.keyId,
      at,
      plan.requestsPerMinute,
      this.windowSeconds,
      plan.monthlyRequests,
      account.created_at,
      want,
    ]);
    const held = same ? old.slots : 0;
    const lease: Lease = {
      windowStart,
      windowReset: new Date(row!.window_reset),
      windowLimit: plan.requestsPerMinute,
      planRequests: plan.monthlyRequests,
      slots: held + row!.granted,
      inWindow: row!.window_used + row!.granted,
      full: row!.granted < want,
      grants: grants + (row!.granted > 0 ? 1 : 0),
      granted: row!.granted,
      // The requests admitted and not yet taken are not in the store's figures.
      requestsUsed: Number(row!.requests_used) + untaken,
      requestsLeft: Number(row!.requests_left) - untaken,
      exact: untaken === 0,
    };
    this.leases.set(id, lease);
    const figure = { used: Number(row!.records_used), reserved: Number(row!.records_reserved) };
    this.records.read(id, monthKey(at), plan.monthlyRecords, figure, version);
    // Once a window, at most: the sweep reads every lease.
    if (this.leases.size > KEPT && windowStart > this.swept) {
      this.swept = windowStart;
      this.forgetBefore(windowStart);
    }
  }

  /** More slots of the window for a lease whose month this server counts (runGrant). */
  private async grantSlots(id: string, at: Date, windowStart: number, want: number, old: Lease): Promise<void> {
    const [row] = await this.store.query<{ granted: number; window_used: number; window_reset: Date }>(SLOTS, [
      id,
      at,
      old.windowLimit,
      this.windowSeconds,
      want,
    ]);
    this.leases.set(id, {
      ...old,
      windowStart,
      windowReset: new Date(row!.window_reset),
      slots: old.slots + row!.granted,
      inWindow: row!.window_used + row!.granted,
      full: row!.granted < want,
      grants: old.grants + (row!.granted > 0 ? 1 : 0),
      granted: row!.granted,
    });
  }

  /** Leases of windows before `windowStart` are forgotten: their slots are nobody's once the window has passed. */
  private forgetBefore(windowStart: number): void {
    for (const [accountId, lease] of this.leases) if (lease.windowStart < windowStart) this.leases.delete(accountId);
  }

  /** Resolves once every request admitted from the account's lease is taken in the store. */
  private drain(accountId: string): Promise<void> {
    if (!this.untaken.get(accountId)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiting = this.drained.get(accountId) ?? [];
      waiting.push(resolve);
      this.drained.set(accountId, waiting);
    });
  }

  private async refuse(caller: Caller, at: Date, routeClass: string, lease: Lease, refusal: 'window' | 'requests'): Promise<LeaseOutcome> {
    await this.store.query(REFUSE, [caller.account.account_id, at, routeClass, caller.keyId]);
    return { lease, refusal };
  }

  /** Where the account's month stands as this server counts it. */
  recordsOf(accountId: string): RecordsFigure {
    return this.records.figure(accountId) ?? { used: 0, reserved: 0 };
  }
}

/** Where an account stands after a request admitted from its lease (or refused by it). */
export function leaseStanding(lease: Lease, records: RecordsFigure, caller: Caller, at: Date): Standing {
  return {
    model: 'records',
    windowLimit: lease.windowLimit,
    windowUsed: Math.min(lease.inWindow - lease.slots, lease.windowLimit),
    windowReset: lease.windowReset,
    requestsUsed: lease.requestsUsed,
    requestsLeft: Math.max(0, lease.requestsLeft),
    recordsUsed: records.used,
    recordsLimit: PLANS[caller.account.plan].monthlyRecords,
    recordsReserved: records.reserved,
    recordsCharged: 0,
    monthEnd: monthOf(at).end,
  };
}

/** Arguments by name. */
const named = (names: string[], values: unknown[]): SettleArgs => Object.fromEntries(names.map((name, i) => [name, values[i]]));

/** meter_draw's arguments. */
const takingArgs = (t: Taking): unknown[] => [
  t.requestId,
  t.caller.account.account_id,
  t.caller.keyId,
  t.at,
  t.method,
  t.route,
  t.routeClass,
  t.nodeId,
];
