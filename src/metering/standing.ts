// Where an account stands this month, as GET /v1/account answers it and the get_usage MCP tool reports
// it (openapi.yaml: Account): built once, here, from what admission found (the Standing of a ticket).

import type { Queryable } from '../db/state-store.js';
import type { AccountRow } from './accounts.js';
import { overageStatus, type OverageStatus } from './overage.js';
import { PLANS, type BillingModel, type PlanId } from './plans.js';
import { DAILY_FREE_UNITS } from './prices.js';

/** Where the account stands after admitting (or refusing) a request: what the headers of spec 8.5 report. */
export interface Standing {
  model: 'records' | 'requests';
  windowLimit: number;
  windowUsed: number;
  windowReset: Date;
  requestsUsed: number;
  requestsLeft: number;
  recordsUsed: number;
  recordsLimit: number;
  recordsReserved: number;
  recordsCharged: number;
  monthEnd: Date;
}

export interface AccountStanding {
  account_id: string;
  plan: PlanId;
  billing_model: BillingModel;
  window: { limit: number; used: number; resets_at: string };
  requests: { used: number; remaining: number; allowance: number };
  records?: { used: number; limit: number; reserved: number; resets_at: string };
  prepaid_usd?: number;
  overage: OverageStatus;
}

/** Requests left in the current window. */
export const windowLeft = (s: Standing): number => Math.max(0, s.windowLimit - s.windowUsed);

/** Records the month still takes: the plan's, less those charged and those set aside for running exports. */
export const recordsLeft = (s: Standing): number => Math.max(0, s.recordsLimit - s.recordsUsed - s.recordsReserved);

/** The account's standing after the admission that found `s`, with its overage setting and use at `now`. */
export async function accountStanding(db: Queryable, account: AccountRow, s: Standing, now: Date): Promise<AccountStanding> {
  const plan = PLANS[account.plan];
  const records = s.model === 'records';
  return {
    account_id: account.account_id,
    plan: plan.id,
    billing_model: s.model,
    window: { limit: s.windowLimit, used: Math.min(s.windowUsed, s.windowLimit), resets_at: s.windowReset.toISOString() },
    requests: records
      ? { used: s.requestsUsed, remaining: s.requestsLeft, allowance: plan.monthlyRequests }
      : { used: Math.max(0, DAILY_FREE_UNITS - s.requestsLeft), remaining: s.requestsLeft, allowance: DAILY_FREE_UNITS },
    ...(records
      ? { records: { used: s.recordsUsed, limit: s.recordsLimit, reserved: s.recordsReserved, resets_at: s.monthEnd.toISOString() } }
      : { prepaid_usd: Number(account.prepaid_micros) / 1e6 }),
    overage: await overageStatus(db, account, now),
  };
}
