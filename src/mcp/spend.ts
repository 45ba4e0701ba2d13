// Metering of the MCP tools (spec 8.3 rule 5): search_jobs, get_job and count_jobs take one request per
// call however many jobs or pages they return, and charge their records before answering; the other
// tools take none. With the session's confirmation level asking for it, a spending call first answers
// with its cost and runs only when called again with confirm: true.

import type { Standing } from '../metering/standing.js';
import { recordsLeft, windowLeft } from '../metering/standing.js';
import { requestUnits, unitMicros, type RouteClass } from '../metering/prices.js';
import { dataLimitExceeded, refused } from '../metering/refusals.js';
import type { AccountRow } from '../metering/accounts.js';
import type { ToolCall } from './tool.js';
import { asApiError } from '../errors.js';

export interface Spending {
  tool: string;
  routeClass: RouteClass;
  /** The most records the call can return before looking at the catalog: a page's limit, a file's 5,000. */
  bound: number;
  /** A closer bound, when the cost shown to confirm must be exact: min(bound, matching jobs). */
  refine: () => Promise<number>;
  /** Sent confirm: true. */
  confirmed: boolean;
}

/** What a spending call did: its output, its records, and what to do once they are charged or refused. */
export interface Spent {
  records: number;
  output: Record<string, unknown>;
  /** Called once the records are charged (a saved file is published); what it returns joins the output. */
  keep?: () => Promise<Record<string, unknown>>;
  /** Called when they are not (the file is deleted). */
  drop?: () => Promise<void>;
}

export interface Cost {
  billing_model: 'records' | 'requests';
  requests: number;
  records_at_most: number;
  paid: boolean;
  usd_at_most: number;
  note: string;
}

export async function spend(call: ToolCall, spending: Spending, work: () => Promise<Spent>): Promise<Record<string, unknown>> {
  const { ctx, caller, session } = call;
  const info = { method: 'MCP', route: `mcp/${spending.tool}`, routeClass: spending.routeClass, windowed: true };
  if (!spending.confirmed && session.level !== 'never') {
    const cost = await costToConfirm(call, spending, info);
    if (cost) return { status: 'confirmation_required', cost, message: confirmationMessage(spending.tool, cost) };
  }
  const { ticket, refusal } = await ctx.meter.admit(caller, { ...info, requestId: call.requestId });
  if (refusal) throw refused(refusal, ticket);
  let spent: Spent | undefined;
  try {
    spent = await work();
    // A call that was admitted finishes all its pages: nothing is admitted again, only the records charged.
    if (!(await ctx.meter.settle(ticket, { status: 200, records: spent.records })))
      throw ticket.refusal ? refused(ticket.refusal, ticket) : dataLimitExceeded(ticket, spent.records);
    const kept = await spent.keep?.();
    return {
      status: 'done',
      ...spent.output,
      ...kept,
      charged: { requests: 1, records: spent.records },
      standing: standingAfter(ticket.standing),
    };
  } catch (error) {
    await spent?.drop?.();
    if (!ticket.settled) await ctx.meter.settle(ticket, { status: asApiError(error).status, records: 0 });
    throw error;
  }
}

/**
 * What is left after this call (tool results carry no headers: spec 8.5's figures, in a result): the
 * request window, the month's requests (or the key's free units of the day) and records.
 */
function standingAfter(s: Standing): Record<string, number> {
  return {
    window_left: windowLeft(s),
    requests_left: s.requestsLeft,
    ...(s.model === 'records' ? { records_left: recordsLeft(s) } : {}),
  };
}

/** The cost of the call when the session's level asks to confirm it; null to go ahead. */
async function costToConfirm(
  call: ToolCall,
  spending: Spending,
  info: { method: string; route: string; routeClass: RouteClass; windowed: boolean },
): Promise<Cost | null> {
  // An account that nothing can bill (overage off, no prepaid balance) has nothing to confirm at
  // paid_only: the common case costs no look at the store.
  if (call.session.level === 'paid_only' && !canBill(call.caller.account)) return null;
  const { standing, refusal } = await call.ctx.meter.peek(call.caller, info);
  // A call admission would refuse costs nothing: it goes on to its refusal.
  if (refusal) return null;
  const account = call.caller.account;
  const rough = costOf(standing, account, spending.routeClass, spending.bound);
  if (call.session.level === 'paid_only' && !rough.paid) return null;
  const exact = costOf(standing, account, spending.routeClass, Math.min(spending.bound, await spending.refine()));
  return call.session.level === 'always' || exact.paid ? exact : null;
}

function canBill(account: AccountRow): boolean {
  return account.overage_enabled || (account.billing_model === 'requests' && Number(account.prepaid_micros) > 0);
}

/** What a call of `records` records would cost the account as it stands (before volume discounts). */
export function costOf(standing: Standing, account: AccountRow, routeClass: RouteClass, records: number): Cost {
  if (standing.model === 'records') {
    const included = recordsLeft(standing);
    const beyond = Math.max(0, records - included);
    const price = account.overage_price_micros === null ? 0 : Number(account.overage_price_micros);
    const note =
      beyond === 0
        ? 'Within the monthly records allowance.'
        : account.overage_enabled
          ? `${beyond} of these records are past the monthly allowance and billed as overage.`
          : `${beyond} of these records are past the monthly allowance and overage is off: the call would be refused with data_limit_exceeded.`;
    // Past the allowance without overage, nothing is billed: the call is refused.
    const paid = beyond > 0 && account.overage_enabled;
    return { billing_model: 'records', requests: 1, records_at_most: records, paid, usd_at_most: paid ? dollars(beyond * price) : 0, note };
  }
  // Requests model (spec 8.4): the units the store will charge (src/metering/meter.ts).
  const units = requestUnits(routeClass, records);
  const paidUnits = Math.max(0, units - standing.requestsLeft);
  const payable = Number(account.prepaid_micros) > 0 || account.overage_enabled;
  const note =
    paidUnits === 0
      ? "Within this API key's free requests of the day."
      : payable
        ? `${paidUnits} request units are past the key's free requests of the day and paid (prepaid balance first, then overage).`
        : `${paidUnits} request units are past the key's free requests of the day, with no prepaid balance and overage off: the call would be refused.`;
  const paid = paidUnits > 0 && payable;
  return {
    billing_model: 'requests',
    requests: 1,
    records_at_most: records,
    paid,
    usd_at_most: paid ? dollars(paidUnits * unitMicros(routeClass)) : 0,
    note,
  };
}

const dollars = (micros: number) => Math.round(micros) / 1e6;

function confirmationMessage(tool: string, cost: Cost): string {
  const money = cost.paid ? `, paid: up to ${cost.usd_at_most.toFixed(2)} USD` : '';
  return `This call uses 1 request and up to ${cost.records_at_most} records${money}. ${cost.note} Call ${tool} again with the same arguments and confirm: true to go ahead; set_confirmation_level changes when this is asked.`;
}
