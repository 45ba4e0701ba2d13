// The monthly records allowance (spec 8.2, DESIGN.md 6): each job, company or event delivered counts one.
// Records beyond the plan's allowance are billed as overage at the plan's per-record price when the
// account has overage on, up to its monthly limit; nothing is billed above the limit.
//
// records_used counts every record charged in the month, overage included; overage_records is the part
// beyond the allowance. records_reserved is held back for exports until they complete.

import type { Queryable } from '../db/state-store.js';
import { namedQueries } from '../db/sql-files.js';
import type { AccountRow } from './accounts.js';
import { PLANS } from './plans.js';

const SQL = namedQueries('state/records.sql', ['month_for_update', 'reserve', 'release', 'charge']);

interface MonthRow {
  records_used: string | number;
  records_reserved: string | number;
  overage_records: string | number;
  overage_used_micros: string | number;
}

/** The month's usage row, locked for the rest of the transaction (created when missing). */
async function lockMonth(tx: Queryable, accountId: string, month: string) {
  const [row] = await tx.query<MonthRow>(SQL.month_for_update, [accountId, month]);
  return { used: Number(row!.records_used), reserved: Number(row!.records_reserved), overageMicros: Number(row!.overage_used_micros) };
}

/** How many more records the account may take this month: the allowance left, plus what overage still allows. */
async function available(tx: Queryable, account: AccountRow, month: string): Promise<{ left: number; used: number }> {
  const { used, reserved, overageMicros } = await lockMonth(tx, account.account_id, month);
  const allowance = PLANS[account.plan].monthlyRecords;
  const included = Math.max(0, allowance - used - reserved);
  const price = account.overage_price_micros === null ? null : Number(account.overage_price_micros);
  if (!account.overage_enabled || price === null) return { left: included, used };
  if (account.overage_limit_cents === null) return { left: Number.POSITIVE_INFINITY, used };
  const beyond = Math.floor((Number(account.overage_limit_cents) * 10_000 - overageMicros) / price);
  // Records reserved past the allowance are already counted against the overage limit.
  const reservedBeyond = Math.max(0, used + reserved - allowance) - Math.max(0, used - allowance);
  return { left: included + Math.max(0, beyond - reservedBeyond), used };
}

/** Sets `n` records aside for an export; false (nothing reserved) when the month cannot cover them. */
export async function reserveRecords(tx: Queryable, account: AccountRow, month: string, n: number): Promise<boolean> {
  const { left } = await available(tx, account, month);
  if (n > left) return false;
  await tx.query(SQL.reserve, [account.account_id, month, n]);
  return true;
}

export async function releaseRecords(tx: Queryable, accountId: string, month: string, n: number): Promise<void> {
  await lockMonth(tx, accountId, month);
  await tx.query(SQL.release, [accountId, month, n]);
}

/**
 * Charges `n` records to the month: within the allowance first, the rest as overage at the plan's price.
 * Returns the overage records and their price in micro-USD.
 */
export async function chargeRecords(tx: Queryable, account: AccountRow, month: string, n: number): Promise<{ overageRecords: number; overageMicros: number }> {
  const { used } = await lockMonth(tx, account.account_id, month);
  const allowance = PLANS[account.plan].monthlyRecords;
  const overageRecords = Math.max(0, used + n - allowance) - Math.max(0, used - allowance);
  const price = account.overage_price_micros === null ? 0 : Number(account.overage_price_micros);
  const overageMicros = overageRecords * price;
  await tx.query(SQL.charge, [account.account_id, month, n, overageRecords, overageMicros]);
  return { overageRecords, overageMicros };
}
