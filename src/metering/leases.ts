// Leases of the request window (ADR 0013): on the embedded store, which this process alone holds, a
// records-model request is admitted in memory from slots of the account's window, and taken in the
// store (its monthly request, its ledger row, its slot) by the one call that settles it. The first
// request of an account takes every slot left of its window in the store (a grant, which also reads the
// months); each later window of an account whose month this server counts is begun in memory, with no
// call of the store: no other server admits the account's requests, so none of it is used yet. A
// metered request then costs the store one call rather than two, and an account one grant a life of the
// server (and of its month).
//
// What stays exact: the store's window row counts every slot taken in it (a grant's, held until a
// request taken there uses one) and every request taken of a window begun in memory; a request
// answered is taken, or journaled and taken at the next start, before that start admits anything. So
// a window never admits more than its limit, whatever happens to this process. A clean stop gives back
// the slots held unused; after kill -9 the next start does (meter_return_held), once it has settled
// what the killed server journaled, so a request lost with its server is not counted, as its month does
// not count it either. What reads the row while a window begun in memory has requests not yet taken (a
// grant after a plan change, a changed billing model) waits for them first.
// The monthly requests are counted in memory from what the store said at the last grant, less every
// request admitted since: never more than the store has, as nothing else takes them on this store. When
// that count reaches nothing, the account's admitted requests are settled first and the store asked
// again, so a refusal is exact; and the call that takes a request refuses it if no monthly request is
// left after all.
//
// How a leased request is settled (in memory and journaled, or in the store): leased-settlements.ts.

import type { StateStore } from '../db/state-store.js';
import type { MeterJournal } from './journal.js';
import type { Caller } from './keys.js';
import { DRAW_ARGS, LeasedSettlements, takingArgs, type Taking } from './leased-settlements.js';
import { monthKey, monthOf } from './months.js';
import type { RecordsFigure } from './records-room.js';
import { PLANS } from './plans.js';
import type { Standing } from './standing.js';
import { call, type StandingRow } from './store-call.js';

/** Past this many accounts' leases, those of windows gone by are forgotten. */
const KEPT = 10_000;

const LEASE = `SELECT * FROM meter_lease(p_account => $1, p_key => $2, p_at => $3, p_window_limit => $4, p_window_seconds => $5,
  p_plan_requests => $6, p_since => $7, p_want => $8)`;
const DRAW = `SELECT * FROM ${call('meter_draw', DRAW_ARGS)}`;
const RETURN = 'SELECT meter_lease_return($1, $2, $3)';
const SLOTS = 'SELECT * FROM meter_lease_slots($1, $2, $3, $4, $5)';
const REFUSE = 'SELECT meter_count_refusal($1, $2, $3, $4)';

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
  /**
   * The lease holds every slot of the window not used (a grant of slots takes them all): nothing frees
   * one on this store but this server, so when they are used the next request is refused.
   */
  full: boolean;
  /**
   * Its slots were taken in the store's window row (held there until used). A window this server began
   * in memory, for an account whose month it counts, is in the row only as its requests are taken.
   */
  stored: boolean;
  requestsUsed: number;
  requestsLeft: number;
  /** The store was asked with no request of the account admitted and not yet taken: requestsLeft is exact. */
  exact: boolean;
}

/** `at`: when the request counts as admitted (later than asked when a later window began meanwhile). */
export type LeaseOutcome = { lease: Lease; refusal: null | 'window' | 'requests'; at: Date };

export class Leases {
  private readonly leases = new Map<string, Lease>();
  /** Grants under way, one an account. */
  private readonly granting = new Map<string, Promise<void>>();
  /** Requests admitted from a lease and not yet taken in the store, by account. */
  private readonly untaken = new Map<string, number>();
  private readonly drained = new Map<string, Array<() => void>>();
  /** The window of the last sweep of past leases. */
  private swept = 0;
  /** How the leased requests are settled; each one taken there no longer counts as untaken here. */
  readonly settlements: LeasedSettlements;

  constructor(
    private readonly store: StateStore,
    private readonly windowSeconds: number,
    /** Where requests settled in memory are journaled; without one, each is settled in the store first. */
    journal?: MeterJournal,
  ) {
    this.settlements = new LeasedSettlements(store, journal, (accountId, returned) => this.taken(accountId, returned));
  }

  /**
   * Admits a request of `caller` at `at` from its account's lease (windowed: it takes a slot of the
   * window), or says why not; a refusal is counted in the store, as admission counts it.
   */
  async admit(caller: Caller, at: Date, windowed: boolean, routeClass: string): Promise<LeaseOutcome> {
    const id = caller.account.account_id;
    const plan = PLANS[caller.account.plan];
    let windowStart = this.windowOf(at);
    for (;;) {
      const lease = this.leases.get(id);
      // A request that waited (for a grant, or for requests to be taken) while a later window of the
      // account began is admitted in that window, at its start: a window's count only goes forward.
      if (lease && lease.windowStart > windowStart) {
        windowStart = lease.windowStart;
        at = new Date(windowStart);
      }
      const stale = lease && (lease.windowLimit !== plan.requestsPerMinute || lease.planRequests !== plan.monthlyRequests);
      // A later window of an account whose month this server counts: begun in memory, without the store
      // (no other server admits the account's requests, so none of the window is used yet), once no
      // grant of the account is under way (it would set the lease it read).
      if (lease && !stale && windowed && lease.windowStart < windowStart && this.counts(lease, caller, at)) {
        const under = this.granting.get(id);
        if (under) await under.catch(() => undefined);
        else this.leases.set(id, this.nextWindow(lease, windowStart));
        continue;
      }
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
        // Asked again only for the lease it drained: another may have begun meanwhile.
        if (this.leases.get(id) === lease) await this.grant(caller, at, windowStart, false);
        continue;
      }
      if (windowed) lease.slots--;
      lease.requestsLeft--;
      lease.requestsUsed++;
      lease.exact = false;
      this.untaken.set(id, (this.untaken.get(id) ?? 0) + 1);
      return { lease, refusal: null, at };
    }
  }

  /** The lease of a later window of the account, begun in memory: every slot of it, none in the store. */
  private nextWindow(lease: Lease, windowStart: number): Lease {
    return {
      ...lease,
      windowStart,
      windowReset: new Date(windowStart + this.windowSeconds * 1000),
      slots: lease.windowLimit,
      inWindow: lease.windowLimit,
      full: true,
      stored: false,
    };
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

  /** The start of the window `at` falls in. */
  windowStartOf(at: Date): Date {
    return new Date(this.windowOf(at));
  }

  /** The start of the window `at` falls in, in ms. */
  private windowOf(at: Date): number {
    const ms = this.windowSeconds * 1000;
    return Math.floor(at.getTime() / ms) * ms;
  }

  /**
   * Gives the account's unused slots back (its requests now go another way: a changed billing model).
   * A window begun in memory has none in the store: the requests admitted from it are taken first, so
   * the store's row counts them before anything reads it again (a grant waits meanwhile).
   */
  async release(accountId: string): Promise<void> {
    await this.granting.get(accountId);
    const lease = this.leases.get(accountId);
    this.leases.delete(accountId);
    if (!lease) return;
    if (lease.stored) return this.giveBack(accountId, lease);
    const work = this.drain(accountId).finally(() => this.granting.delete(accountId));
    this.granting.set(accountId, work);
    await work;
  }

  /** Forgets what is counted of the account in memory: its lease (the unused slots given back) and its month's records. */
  async forget(accountId: string): Promise<void> {
    await this.release(accountId);
    this.settlements.records.stale(accountId);
  }

  /** Gives every unused slot back and closes the journal (every settlement is in the store): the server stops. */
  async close(): Promise<void> {
    await Promise.all([...this.granting.values()]);
    const leases = [...this.leases];
    this.leases.clear();
    for (const [accountId, lease] of leases) await this.giveBack(accountId, lease);
    await this.settlements.close();
  }

  /** The unused slots of a lease taken in the store, given back there. */
  private async giveBack(accountId: string, lease: Lease): Promise<void> {
    if (lease.stored && lease.slots > 0) await this.store.query(RETURN, [accountId, new Date(lease.windowStart), lease.slots]);
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
    // Every slot of the window left: this server alone admits the account's requests.
    const want = slots ? plan.requestsPerMinute : 0;
    // This server counts the account's month already (a lease of this window, month and plan with requests
    // left; a later window of such a lease is begun in memory by admit): slots of the window alone, the
    // months not read again.
    if (same && want > 0 && this.counts(old, caller, at)) return this.grantSlots(id, at, want, old);
    // The store's row has a window begun in memory only as its requests are taken: all of them first.
    if (old && !old.stored && old.windowStart === windowStart) await this.drain(id);
    const untaken = this.untaken.get(id) ?? 0;
    const version = this.settlements.records.version(id);
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
    // Slots of a window begun in memory are not in the row's count: the lease goes on holding them there.
    const begunInMemory = same && !old.stored;
    const lease: Lease = {
      windowStart,
      windowReset: new Date(row!.window_reset),
      windowLimit: plan.requestsPerMinute,
      planRequests: plan.monthlyRequests,
      slots: held + row!.granted,
      inWindow: row!.window_used + row!.granted + (begunInMemory ? held : 0),
      full: want > 0 || (same && old.full),
      stored: !begunInMemory,
      // The requests admitted and not yet taken are not in the store's figures.
      requestsUsed: Number(row!.requests_used) + untaken,
      requestsLeft: Number(row!.requests_left) - untaken,
      exact: untaken === 0,
    };
    this.leases.set(id, lease);
    const figure = { used: Number(row!.records_used), reserved: Number(row!.records_reserved) };
    this.settlements.records.read(id, monthKey(at), plan.monthlyRecords, figure, version);
    // Once a window, at most: the sweep reads every lease.
    if (this.leases.size > KEPT && windowStart > this.swept) {
      this.swept = windowStart;
      this.forgetBefore(windowStart);
    }
  }

  /** More slots of the lease's window, for a lease whose month this server counts (runGrant). */
  private async grantSlots(id: string, at: Date, want: number, old: Lease): Promise<void> {
    const [row] = await this.store.query<{ granted: number; window_used: number; window_reset: Date }>(SLOTS, [
      id,
      at,
      old.windowLimit,
      this.windowSeconds,
      want,
    ]);
    this.leases.set(id, {
      ...old,
      windowReset: new Date(row!.window_reset),
      slots: old.slots + row!.granted,
      inWindow: row!.window_used + row!.granted,
      full: want > 0,
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
    return { lease, refusal, at };
  }
}

/**
 * Gives back the window slots the last server on this embedded store held and did not use (it was killed
 * or crashed; a clean stop gave them back): run at start, after the journal is settled, before any
 * admission. The slots given back.
 */
export async function returnHeld(store: StateStore): Promise<number> {
  const [row] = await store.query<{ returned: string }>('SELECT meter_return_held() AS returned');
  return Number(row!.returned);
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
