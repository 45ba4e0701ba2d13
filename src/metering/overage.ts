// The overage setting of spec 4.10: who may change it, the price item it needs, and this month's overage use.

import { ApiError, invalidRequest } from '../errors.js';
import type { Queryable, StateStore } from '../db/state-store.js';
import { once, type IdempotencyKey } from '../db/idempotency.js';
import { namedQueries } from '../db/sql-files.js';
import { hasAtMostTwoDecimals, ONE_CENT_USD } from './money.js';
import type { AccountRow } from './accounts.js';
import { PLANS } from './plans.js';
import { monthKey, monthOf } from './months.js';

const SQL = namedQueries('state/accounts.sql', ['get_account', 'set_overage', 'overage_used']);

export interface OverageStatus {
  enabled: boolean;
  monthlyLimitUsd: number | null;
  usedUsd: number;
  periodStart: string;
  periodEnd: string;
}

export interface OverageChange {
  enabled?: boolean;
  /** null clears the limit; undefined keeps the stored one. */
  monthlyLimitUsd?: number | null;
}

export const MAX_MONTHLY_LIMIT_USD = 100_000;

/**
 * Dollars with at most two decimals, from 0.01 to 100000, as whole cents; rejects anything else with a
 * message naming the field. Both PUT /v1/account/overage and the MCP set_overage tool pass here, so
 * nothing the store's check constraint would refuse (a limit of 0 cents) ever reaches it.
 */
export function limitInCents(usd: unknown): number {
  if (typeof usd !== 'number' || !(usd >= ONE_CENT_USD) || usd > MAX_MONTHLY_LIMIT_USD || !hasAtMostTwoDecimals(usd)) {
    throw invalidRequest(
      'monthlyLimitUsd must be an amount in US dollars from 0.01 to 100000 with at most two decimals, e.g. 250 or 49.99 (or null to clear the limit).',
    );
  }
  return Math.round(usd * 100);
}

function checkEntitled(account: AccountRow, upgradeUrl: string): void {
  if (!PLANS[account.plan].paid) {
    throw new ApiError('upgrade_required', 'Overage is available on paid plans only; upgrade the account to change it.', {
      extra: { upgrade_url: upgradeUrl },
    });
  }
  if (account.subscription_status !== 'active') {
    throw new ApiError(
      'no_active_subscription',
      `Overage needs an active subscription; this account's subscription is ${account.subscription_status}.`,
    );
  }
}

/** The overage setting and this month's overage use (the 200 body of PUT /v1/account/overage). */
export async function overageStatus(db: Queryable, account: AccountRow, now: Date): Promise<OverageStatus> {
  const [used] = await db.query<{ micros: string | number }>(SQL.overage_used, [account.account_id, monthKey(now)]);
  const period = monthOf(now);
  return {
    enabled: account.overage_enabled,
    monthlyLimitUsd: account.overage_limit_cents === null ? null : Number(account.overage_limit_cents) / 100,
    // Exact, as the limit is enforced and as analytics reports it (micro-USD: per-record prices are fractions of a cent).
    usedUsd: Number(used?.micros ?? 0) / 1e6,
    periodStart: period.start.toISOString(),
    periodEnd: period.end.toISOString(),
  };
}

/**
 * Changes the setting and answers the status; under an Idempotency-Key, once (db/idempotency.ts): the same
 * request again within 24 hours gets the first answer, `replayed`.
 */
export async function setOverage(
  store: StateStore,
  accountId: string,
  change: OverageChange,
  options: { now: Date; upgradeUrl: string; idempotency?: IdempotencyKey },
): Promise<{ status: OverageStatus; replayed: boolean }> {
  const limitCents =
    change.monthlyLimitUsd === undefined || change.monthlyLimitUsd === null ? change.monthlyLimitUsd : limitInCents(change.monthlyLimitUsd);
  const outcome = await store.transaction((tx) =>
    once(tx, accountId, options.idempotency, options.now, async () => ({
      status: 200,
      body: await changeOverage(tx, accountId, limitCents, change.enabled, options),
    })),
  );
  return { status: outcome.answer.body as OverageStatus, replayed: outcome.replayed };
}

async function changeOverage(
  tx: Queryable,
  accountId: string,
  limitCents: number | null | undefined,
  enable: boolean | undefined,
  options: { now: Date; upgradeUrl: string },
): Promise<OverageStatus> {
  const [account] = await tx.query<AccountRow>(`${SQL.get_account} FOR UPDATE`, [accountId]);
  if (!account) throw new ApiError('invalid_api_key');
  checkEntitled(account, options.upgradeUrl);
  const planPrice = PLANS[account.plan].overagePriceMicros;
  const carried = account.overage_price_micros === null ? null : Number(account.overage_price_micros);
  if (carried !== null && carried !== planPrice) {
    throw new ApiError(
      'overage_item_conflict',
      `The subscription carries an overage price of ${carried / 1e6} USD per record, but the ${account.plan} plan bills ${planPrice! / 1e6}; contact support to replace the price item.`,
    );
  }
  const enabled = enable ?? account.overage_enabled;
  const [updated] = await tx.query<AccountRow>(SQL.set_overage, [
    accountId,
    enabled,
    limitCents === undefined ? account.overage_limit_cents : limitCents,
    enabled ? planPrice : carried,
  ]);
  return overageStatus(tx, updated!, options.now);
}
