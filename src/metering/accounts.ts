// Accounts: plan, billing model and subscription state, created and changed by operators through the CLI.

import type { Queryable } from '../db/state-store.js';
import { namedQueries } from '../db/sql-files.js';
import { newAccountId } from './ids.js';
import type { BillingModel, PlanId, SubscriptionStatus } from './plans.js';

const SQL = namedQueries('state/accounts.sql', ['insert_account', 'get_account', 'list_accounts', 'update_account']);

/** A row of the accounts table as the store returns it. */
export interface AccountRow {
  account_id: string;
  name: string;
  plan: PlanId;
  billing_model: BillingModel;
  subscription_status: SubscriptionStatus;
  overage_price_micros: string | number | null;
  overage_enabled: boolean;
  overage_limit_cents: string | number | null;
  /** Prepaid balance of the requests model, micro-USD. */
  prepaid_micros: string | number;
  created_at: Date;
  updated_at: Date;
}

/** An account as the CLI and the admin socket show it. */
export interface Account {
  account_id: string;
  name: string;
  plan: PlanId;
  billing_model: BillingModel;
  subscription: SubscriptionStatus;
  overage: { enabled: boolean; monthly_limit_usd: number | null; price_usd_per_record: number | null };
  /** Requests billing model: the prepaid balance paid requests draw on. */
  prepaid_usd: number;
  created_at: string;
  updated_at: string;
}

export function toAccount(row: AccountRow): Account {
  return {
    account_id: row.account_id,
    name: row.name,
    plan: row.plan,
    billing_model: row.billing_model,
    subscription: row.subscription_status,
    overage: {
      enabled: row.overage_enabled,
      monthly_limit_usd: row.overage_limit_cents === null ? null : Number(row.overage_limit_cents) / 100,
      price_usd_per_record: row.overage_price_micros === null ? null : Number(row.overage_price_micros) / 1_000_000,
    },
    prepaid_usd: Number(row.prepaid_micros) / 1_000_000,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export interface NewAccount {
  name?: string;
  plan: PlanId;
  billing_model?: BillingModel;
  subscription?: SubscriptionStatus;
}

export async function createAccount(db: Queryable, input: NewAccount): Promise<Account> {
  const subscription = input.subscription ?? (input.plan === 'free' ? 'none' : 'active');
  const [row] = await db.query<AccountRow>(SQL.insert_account, [
    newAccountId(),
    input.name ?? '',
    input.plan,
    input.billing_model ?? 'records',
    subscription,
  ]);
  return toAccount(row!);
}

export async function findAccount(db: Queryable, accountId: string): Promise<AccountRow | undefined> {
  const [row] = await db.query<AccountRow>(SQL.get_account, [accountId]);
  return row;
}

export async function listAccounts(db: Queryable): Promise<Account[]> {
  return (await db.query<AccountRow>(SQL.list_accounts)).map(toAccount);
}

export interface AccountChanges {
  name?: string;
  plan?: PlanId;
  billing_model?: BillingModel;
  subscription?: SubscriptionStatus;
  /** The overage price item of the subscription in USD per record; null detaches it. */
  overage_price_usd?: number | null;
  /** Sets the prepaid balance (requests billing model), in USD. */
  prepaid_usd?: number;
}

/** Applies the given changes; returns undefined when the account does not exist. */
export async function updateAccount(db: Queryable, accountId: string, changes: AccountChanges): Promise<Account | undefined> {
  const price = changes.overage_price_usd;
  const [row] = await db.query<AccountRow>(SQL.update_account, [
    accountId,
    changes.name ?? null,
    changes.plan ?? null,
    changes.billing_model ?? null,
    changes.subscription ?? null,
    price === null,
    price === undefined || price === null ? null : Math.round(price * 1_000_000),
    changes.prepaid_usd === undefined ? null : Math.round(changes.prepaid_usd * 1_000_000),
  ]);
  return row ? toAccount(row) : undefined;
}
