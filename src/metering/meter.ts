// Admission and settlement of each request (spec 8, DESIGN.md 6): the request window, the monthly
// requests and records, overage, and the request's ledger row. The arithmetic lives in the store's
// functions (sql/state/functions.sql): each step is one call, exact under concurrency.

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Queryable, StateStore } from '../db/state-store.js';
import type { AccountRow } from './accounts.js';
import type { Caller } from './keys.js';
import type { MeterJournal } from './journal.js';
import type { Taking } from './leased-settlements.js';
import { leaseStanding, Leases } from './leases.js';
import type { Standing } from './standing.js';
import { call, REQUEST_ARGS, type SettleRow, type StandingRow } from './store-call.js';
import { monthKey, monthOf } from './months.js';
import { PLANS } from './plans.js';
import { DAILY_FREE_UNITS, leastMicros, requestUnits, unitMicros, type RouteClass } from './prices.js';

export const WINDOW_SECONDS = 60;
/** Thrown inside peek's transaction to roll it back. */
const ROLLBACK = new Error('peek: rolled back');

const ADMIT_ARGS = [
  ...REQUEST_ARGS,
  'p_windowed',
  'p_window_limit',
  'p_window_seconds',
  'p_plan_requests',
  'p_daily_free',
  'p_model',
  'p_since',
  'p_prepaid_ok',
  'p_overage_on',
  'p_overage_limit_cents',
  'p_unit_micros',
  'p_node',
  'p_counted',
];
const ADMIT = `SELECT * FROM ${call('meter_admit', ADMIT_ARGS)}`;
const SETTLE_RECORDS_ARGS = [
  'p_request',
  'p_account',
  'p_month',
  'p_status',
  'p_class',
  'p_records',
  'p_allowance',
  'p_release',
  'p_force',
  'p_void',
  'p_overage_enabled',
  'p_price',
  'p_limit_cents',
];
const SETTLE_REQUESTS_ARGS = [
  'p_request',
  'p_account',
  'p_at',
  'p_month',
  'p_status',
  'p_class',
  'p_records',
  'p_daily_free',
  'p_release',
  'p_force',
  'p_void',
  'p_units',
  'p_unit_micros',
];
/** Settlement by billing model (spec 8.3, 8.4): one store function each. */
const SETTLE = {
  records: `SELECT * FROM ${call('meter_settle_records', SETTLE_RECORDS_ARGS, { p_month: '::date' })}`,
  requests: `SELECT * FROM ${call('meter_settle_requests', SETTLE_REQUESTS_ARGS, { p_month: '::date' })}`,
};
const RESERVE_ARGS = ['p_account', 'p_month', 'p_records', 'p_allowance', 'p_key', 'p_at', 'p_daily_free', 'p_units', 'p_unit_micros'];
const RESERVE = `SELECT ${call('meter_reserve', RESERVE_ARGS, { p_month: '::date' })} AS reserved`;
const REFUND = 'SELECT meter_refund($1, $2) AS refunded';

export interface RequestInfo {
  requestId: string;
  method: string;
  route: string;
  routeClass: RouteClass;
  /**
   * False for the one route outside the request window (PUT /v1/account/overage, spec 4.10 rule 7); it
   * still counts one monthly request.
   */
  windowed: boolean;
  /** False only for a look at where the account stands (MCP get_usage): nothing is taken. Default true. */
  counted?: boolean;
}

export type Refusal = 'window' | 'requests' | 'daily';

/** One admitted request, until it is settled. */
export interface Ticket {
  info: RequestInfo;
  caller: Caller;
  at: Date;
  standing: Standing;
  /** Settled already (records charged), or left pending for later (an export charges at completion). */
  settled: boolean;
  deferred: boolean;
  /** Its charge was given back: the answer was not delivered. */
  refunded?: boolean;
  /** Settled in memory and journaled: settles once its ledger row is in the store. */
  stored?: Promise<void>;
  /** Time spent admitting and charging it, in ms (reported in Server-Timing as meter). */
  meterMs: number;
  /** Admitted from its account's lease: taken in the store when it is settled or deferred. */
  leased?: boolean;
  /** Refused when it was taken (no monthly request left after all): its answer is this refusal. */
  refusal?: Refusal;
}

interface AdmitRow extends StandingRow {
  outcome: 'admitted' | Refusal;
}

export interface SettleOptions {
  status: number;
  records: number;
  /** The month the records count in (default: the month of the request). */
  month?: string;
  /** Records reserved for an export, freed by this settlement. */
  release?: number;
  /** Charge even past the allowance or limit: the records were reserved. */
  force?: boolean;
  /** Settle as not charged. */
  void?: boolean;
}

export class Meter {
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Admitted requests not yet settled nor deferred. */
  private open = 0;
  /** Leases of the request window (ADR 0013): on the embedded store, which this process alone holds. */
  private readonly leases: Leases | undefined;

  constructor(
    private readonly store: StateStore,
    private readonly clock: () => Date,
    private readonly logger: Logger,
    /** The server admitting requests (Nodes.id): it settles them, or another does if it stops. */
    private readonly nodeId: string | null = null,
    /** leases: admit records-model requests from leases; journal: and settle them in memory, journaled (ADR 0013). */
    options: { leases?: boolean; journal?: MeterJournal } = {},
  ) {
    this.leases = options.leases ? new Leases(store, WINDOW_SECONDS, options.journal) : undefined;
  }

  /** Admits the request or says why not; refused requests leave no trace. */
  async admit(caller: Caller, info: RequestInfo): Promise<{ ticket: Ticket; refusal: Refusal | null }> {
    let at = this.clock();
    const leased = this.leased(caller) && (info.counted ?? true);
    let admitted: { standing: Standing; refusal: Refusal | null };
    if (leased) {
      const outcome = await this.leases!.admit(caller, at, info.windowed, info.routeClass);
      at = outcome.at;
      admitted = {
        standing: leaseStanding(outcome.lease, this.leases!.settlements.recordsOf(caller.account.account_id), caller, at),
        refusal: outcome.refusal,
      };
    } else {
      // An account whose requests no longer come from a lease (its billing model changed) gives its slots back first.
      if (this.leases && !this.leased(caller)) await this.leases.release(caller.account.account_id);
      admitted = await this.runAdmit(this.store, caller, info, at);
    }
    const { standing } = admitted;
    let { refusal } = admitted;
    const ticket: Ticket = { info, caller, at, standing, settled: refusal !== null, deferred: false, meterMs: 0, leased };
    // The usage routes read the ledger, their own call included: such a request is taken at once, after
    // every request settled so far (those settled in memory reach the store first, so its row comes after theirs).
    if (leased && refusal === null && info.routeClass === 'usage') {
      await this.leases!.settlements.allStored();
      if (!(await this.draw(ticket))) {
        refusal = ticket.refusal!;
        ticket.settled = true;
      }
    }
    if (refusal === null) this.open++;
    return { ticket, refusal };
  }

  /** Whether the caller's requests are admitted from a lease: the records model, on the embedded store. */
  private leased(caller: Caller): boolean {
    return this.leases !== undefined && caller.account.billing_model === 'records';
  }

  /**
   * Where the account stands, and whether a request of `info` would be admitted, without taking
   * anything: the admission runs in a transaction that is rolled back.
   */
  async peek(caller: Caller, info: Omit<RequestInfo, 'requestId'>): Promise<{ standing: Standing; refusal: Refusal | null }> {
    const at = this.clock();
    const leased = this.leased(caller);
    // The months as the store has them: with every request settled so far in memory.
    await this.leases?.settlements.allStored();
    let seen: { standing: Standing; refusal: Refusal | null } | undefined;
    await this.store
      .transaction(async (tx) => {
        // A leased account's window is counted below, from its lease.
        const windowed = info.windowed && !leased;
        seen = await this.runAdmit(tx, caller, { ...info, windowed, requestId: `peek_${randomUUID()}` }, at);
        throw ROLLBACK;
      })
      .catch((error: unknown) => {
        if (error !== ROLLBACK) throw error;
      });
    if (!leased) return seen!;
    const { standing } = seen!;
    // The window as the lease counts it (its slots used), else as the store has it.
    const lease = this.leases!.current(caller.account.account_id, at);
    const counted = lease ? lease.inWindow - lease.slots : standing.windowUsed;
    const used = counted + (info.windowed && (info.counted ?? true) ? 1 : 0);
    const refusal = used > standing.windowLimit ? 'window' : seen!.refusal;
    return { standing: { ...standing, windowUsed: Math.min(used, standing.windowLimit) }, refusal };
  }

  private async runAdmit(
    db: Queryable,
    caller: Caller,
    info: RequestInfo,
    at: Date,
  ): Promise<{ standing: Standing; refusal: Refusal | null }> {
    const { account } = caller;
    const plan = PLANS[account.plan];
    const [row] = await db.query<AdmitRow>(ADMIT, [
      info.requestId,
      account.account_id,
      caller.keyId,
      at,
      info.method,
      info.route,
      info.routeClass,
      info.windowed,
      plan.requestsPerMinute,
      WINDOW_SECONDS,
      plan.monthlyRequests,
      DAILY_FREE_UNITS,
      account.billing_model,
      account.created_at,
      Number(account.prepaid_micros) >= leastMicros(info.routeClass),
      account.overage_enabled,
      account.overage_limit_cents,
      leastMicros(info.routeClass),
      this.nodeId,
      info.counted ?? true,
    ]);
    const standing: Standing = {
      model: account.billing_model,
      windowLimit: plan.requestsPerMinute,
      windowUsed: row!.window_used,
      windowReset: new Date(row!.window_reset),
      requestsUsed: Number(row!.requests_used),
      requestsLeft: Number(row!.requests_left),
      recordsUsed: Number(row!.records_used),
      recordsLimit: plan.monthlyRecords,
      recordsReserved: Number(row!.records_reserved),
      recordsCharged: 0,
      monthEnd: monthOf(at).end,
    };
    return { standing, refusal: row!.outcome === 'admitted' ? null : row!.outcome };
  }

  /**
   * Settles the request: charges `records` (a successful response) or records how it ended. Returns
   * false when the records would exceed what the month allows: the caller answers 429 instead.
   */
  async settle(ticket: Ticket, options: SettleOptions): Promise<boolean> {
    this.close(ticket);
    if (ticket.leased) return this.settleLeased(ticket, options);
    const row = await this.run(ticket.info.requestId, ticket.at, ticket.caller.account, {
      routeClass: ticket.info.routeClass,
      // A route never paid for is settled as not charged, whatever it answers.
      void: unitMicros(ticket.info.routeClass) === 0,
      ...options,
    });
    if (row.records_used !== null) {
      ticket.standing.recordsUsed = Number(row.records_used);
      ticket.standing.recordsReserved = Number(row.records_reserved);
    }
    if (row.charged) ticket.standing.recordsCharged = options.records;
    return row.charged;
  }

  /** Takes and settles a request admitted from a lease: in memory (journaled), or by one call of the store. */
  private async settleLeased(ticket: Ticket, options: SettleOptions): Promise<boolean> {
    const { row, stored } = await this.leases!.settlements.settle(this.taking(ticket), {
      month: options.month ?? monthKey(ticket.at),
      status: options.status,
      records: options.records,
      force: options.force ?? false,
      // A route never paid for is settled as not charged, whatever it answers (as settle does).
      void: options.void ?? unitMicros(ticket.info.routeClass) === 0,
    });
    ticket.stored = stored;
    this.track(stored, ticket, 'settling a journaled request in the store failed; the next start settles it from the journal');
    if (row.outcome === 'requests') {
      ticket.refusal = 'requests';
      ticket.standing.requestsUsed = Number(row.requests_used);
      ticket.standing.requestsLeft = 0;
      return false;
    }
    if (row.records_used !== null) {
      ticket.standing.recordsUsed = Number(row.records_used);
      ticket.standing.recordsReserved = Number(row.records_reserved);
    }
    if (row.charged) ticket.standing.recordsCharged = options.records;
    return row.charged;
  }

  /**
   * Takes a request admitted from a lease in the store now (its monthly request, its ledger row,
   * pending): from here it settles as any other. False when no monthly request is left after all: it
   * is refused (ticket.refusal), leaving no trace.
   */
  private async draw(ticket: Ticket): Promise<boolean> {
    const drawn = await this.leases!.draw(this.taking(ticket));
    ticket.leased = false;
    if (!drawn) ticket.refusal = 'requests';
    return drawn;
  }

  /** The request of a ticket admitted from a lease, as the store takes it. */
  private taking(ticket: Ticket): Taking {
    const { info, at } = ticket;
    return { ...info, caller: ticket.caller, at, nodeId: this.nodeId, window: info.windowed ? this.leases!.windowStartOf(at) : null };
  }

  /**
   * Gives back what the settled request was charged, its answer not delivered (the client went away
   * before or while it was sent); the row becomes `status` (499), not charged. Tracked like settleLater.
   */
  refund(ticket: Ticket, status: number): void {
    if (ticket.refunded) return;
    ticket.refunded = true;
    // A request settled in memory is refunded once its ledger row is in the store.
    const stored = ticket.stored ?? Promise.resolve();
    this.track(
      stored
        .then(() => this.store.query<{ refunded: boolean }>(REFUND, [ticket.info.requestId, status]))
        .then(([row]) => {
          if (!row?.refunded)
            this.logger.warn(
              { request_id: ticket.info.requestId },
              'an undelivered answer could not be given back: its ledger row has been compacted',
            );
        }),
      ticket,
    );
  }

  /**
   * The request's ledger row stays pending: its records are charged later (an export, when it
   * completes). False when a request admitted from a lease finds no monthly request left when it is
   * taken: it is refused (ticket.refusal), leaving no trace.
   */
  async defer(ticket: Ticket): Promise<boolean> {
    this.close(ticket);
    if (ticket.leased && !(await this.draw(ticket))) return false;
    ticket.deferred = true;
    return true;
  }

  private close(ticket: Ticket): void {
    if (ticket.settled || ticket.deferred) return;
    ticket.settled = true;
    this.open--;
  }

  /**
   * Runs `work`, which sets records of the caller's month aside (an export's reservation): what was
   * settled in memory reaches the store first, and nothing of the account's is settled in memory until
   * the work has ended and the store has been read again.
   */
  async reserving<T>(caller: Caller, work: () => Promise<T>): Promise<T> {
    if (!this.leases) return work();
    const id = caller.account.account_id;
    try {
      await this.leases.settlements.block(id);
      return await work();
    } finally {
      this.leases.settlements.unblock(id);
    }
  }

  /**
   * The account's months were changed in the store by something other than this server's metering (an
   * operator's correction): what this server counts in memory is read from the store again, and the
   * slots its lease holds unused are given back. Call it once this server's requests are settled (idle).
   */
  async reread(accountId: string): Promise<void> {
    await this.leases?.forget(accountId);
  }

  /** Settles after the response is sent (errors, redirects, counts): tracked so idle() and shutdown wait for it. */
  settleLater(ticket: Ticket, options: SettleOptions): void {
    this.track(this.settle(ticket, options), ticket);
  }

  private track(work: Promise<unknown>, ticket: Ticket, failed = 'settling a request failed; its ledger row stays pending'): void {
    const done = work
      .catch((error: unknown) => this.logger.error({ err: error, request_id: ticket.info.requestId }, failed))
      .finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
  }

  /**
   * Settles an export's request inside the runner's transaction, in the month its records were reserved
   * in: charging them when it completes, releasing them when it fails.
   */
  async settleDeferred(
    tx: Queryable,
    exp: { request_id: string | null; created_at: Date; reserved_month: Date | string },
    account: AccountRow,
    options: SettleOptions,
  ): Promise<void> {
    const month = typeof exp.reserved_month === 'string' ? exp.reserved_month.slice(0, 10) : monthKey(exp.reserved_month);
    if (exp.request_id === null) {
      // An export created before requests were metered: only its reservation to free.
      await tx.query(
        'UPDATE usage_months SET records_reserved = greatest(0, records_reserved - $3) WHERE account_id = $1 AND month = $2::date',
        [account.account_id, month, options.release ?? 0],
      );
      return;
    }
    await this.run(exp.request_id, new Date(exp.created_at), account, { routeClass: 'exports', month, ...options }, tx);
  }

  /** Settles request `requestId` at `routeClass`: the class it was admitted at (a request is priced once). */
  private async run(
    requestId: string,
    at: Date,
    account: AccountRow,
    options: SettleOptions & { routeClass: RouteClass },
    db: Queryable = this.store,
  ): Promise<SettleRow> {
    const month = options.month ?? monthKey(at);
    const release = options.release ?? 0;
    const force = options.force ?? false;
    const voided = options.void ?? false;
    const { routeClass: cls, status, records } = options;
    const [row] =
      account.billing_model === 'records'
        ? await db.query<SettleRow>(SETTLE.records, [
            requestId,
            account.account_id,
            month,
            status,
            cls,
            records,
            PLANS[account.plan].monthlyRecords,
            release,
            force,
            voided,
            account.overage_enabled,
            account.overage_price_micros,
            account.overage_limit_cents,
          ])
        : await db.query<SettleRow>(SETTLE.requests, [
            requestId,
            account.account_id,
            at,
            month,
            status,
            cls,
            records,
            DAILY_FREE_UNITS,
            release,
            force,
            voided,
            requestUnits(cls, records),
            unitMicros(cls),
          ]);
    return row!;
  }

  /** Waits for every admitted request to settle, then gives the leases' unused slots back and closes the journal: the server stops. */
  async stop(): Promise<void> {
    this.leases?.settlements.stopping();
    await this.idle();
    await this.leases?.close();
  }

  /** Resolves once every admitted request is settled (or deferred): after a response, its settlement may still be on its way. */
  async idle(): Promise<void> {
    // Settlements lingering for more to go with them go now.
    void this.leases?.settlements.allStored();
    while (this.open > 0 || this.inFlight.size > 0) {
      if (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
      else await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
}

/**
 * Sets `records` aside for an export in `month`, inside the caller's transaction; false when the month
 * cannot take them (records model) or nothing can pay for the export's request units (requests model).
 */
export async function reserveRecords(tx: Queryable, caller: Caller, month: string, records: number, at: Date): Promise<boolean> {
  const [row] = await tx.query<{ reserved: boolean }>(RESERVE, [
    caller.account.account_id,
    month,
    records,
    PLANS[caller.account.plan].monthlyRecords,
    caller.keyId,
    at,
    DAILY_FREE_UNITS,
    requestUnits('exports', records),
    unitMicros('exports'),
  ]);
  return row!.reserved;
}
