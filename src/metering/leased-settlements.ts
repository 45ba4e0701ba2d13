// Settlements of requests admitted from leases (ADR 0013), on the embedded store: taken and settled in
// the store together (group commit), and, with a journal, settled in memory first when they charge
// nothing or their records fit in the month as this server counts it (records-room.ts): the line is
// journaled before the answer, and the store settles it with the next batch. Any other settlement goes
// to the store and its answer waits for the call; all of them reach the store in the order decided.

import { GroupCommit } from '../db/group-commit.js';
import type { StateStore } from '../db/state-store.js';
import { settleCounted, settleJournaled, type JournalPosition, type MeterJournal } from './journal.js';
import type { Caller } from './keys.js';
import { PLANS } from './plans.js';
import { RecordsRoom, type RecordsFigure } from './records-room.js';
import { REQUEST_ARGS, type SettleRow } from './store-call.js';

/**
 * How long a call of journaled settlements alone waits for more: the more rows a call, the less each
 * costs the store's thread (5 ms to 25 ms took the server's CPU a job by id, 1 client, from 2.1 ms to
 * 1.9). Readers that need the store whole (usage routes, peek, an export's reservation, idle) cut the
 * wait short; the rows are in the journal meanwhile.
 */
const LINGER_MS = 25;

export const DRAW_ARGS = [...REQUEST_ARGS, 'p_node', 'p_window'];
export const SETTLE_LEASED_ARGS = [
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
  /** The start of the window whose slot it took (null: it took none). */
  window: Date | null;
}

/** What a leased request is settled with (Meter's SettleOptions, resolved). */
export interface LeasedSettlement {
  month: string;
  status: number;
  records: number;
  force: boolean;
  void: boolean;
}

export class LeasedSettlements {
  /** Settlements sent to the store together (group commit): a commit costs more than a settlement. */
  private readonly settlements = new GroupCommit<Settling, LeasedSettleRow>((batch) => this.settleTogether(batch), {
    // A journaled settlement's answer has been sent: it is tried until the store takes it, and may
    // wait a little for others (nothing waits for it; a call's commit costs more than its rows).
    keep: (item) => item.at !== undefined,
    lingerMs: LINGER_MS,
  });
  /** The accounts' monthly records as this server counts them between calls of the store (grants read them too). */
  readonly records = new RecordsRoom();

  constructor(
    private readonly store: StateStore,
    /** Where requests settled in memory are journaled; without one, each is settled in the store first. */
    private readonly journal: MeterJournal | undefined,
    /** A request of the account is taken in the store (`returned`: its monthly request not counted after all). */
    private readonly taken: (accountId: string, returned: boolean) => void,
  ) {}

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
    const row: LeasedSettleRow = { ...countedRow(args), records_used: figure?.used ?? null, records_reserved: figure?.reserved ?? null };
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
    const args = batch.map((item) => item.args);
    // Journaled alone (nothing waits for a figure of the store): counted rather than joined, when it can be.
    if (batch.every((item) => item.at !== undefined) && (await settleCounted(this.store, args, at))) {
      this.journal!.settled(at!);
      return args.map(countedRow);
    }
    const rows = await settleJournaled<LeasedSettleRow & { i: number }>(this.store, args, at);
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

  /**
   * The server stops: a journaled settlement the store fails from now on is left to the journal (the
   * next start settles it), and nothing after it is sent.
   */
  stopping(): void {
    this.settlements.close();
  }

  /** Every settlement is in the store (or left to the journal): the journal closes. */
  async close(): Promise<void> {
    await this.settlements.settled();
    this.journal?.close();
  }

  /** Where the account's month stands as this server counts it. */
  recordsOf(accountId: string): RecordsFigure {
    return this.records.figure(accountId) ?? { used: 0, reserved: 0 };
  }
}

/**
 * A journaled request as it was settled in memory (settleInMemory's answer, without the month's figure),
 * and so as meter_settle_counted settles it in the store.
 */
export const countedRow = (args: SettleArgs): LeasedSettleRow => ({
  outcome: 'admitted',
  requests_used: 0,
  requests_left: 0,
  charged: true,
  records_used: null,
  records_reserved: null,
  overage_micros: 0,
  settlement: args.p_void === true || Number(args.p_status) >= 400 ? 'not_charged' : 'included',
});

/** Arguments by name. */
const named = (names: string[], values: unknown[]): SettleArgs => Object.fromEntries(names.map((name, i) => [name, values[i]]));

/** meter_draw's arguments. */
export const takingArgs = (t: Taking): unknown[] => [
  t.requestId,
  t.caller.account.account_id,
  t.caller.keyId,
  t.at,
  t.method,
  t.route,
  t.routeClass,
  t.nodeId,
  t.window,
];
