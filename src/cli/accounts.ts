// `accounts create|list|set`: operator commands on accounts.

import {
  BILLING_MODELS,
  PLAN_IDS,
  SUBSCRIPTION_STATUSES,
  type BillingModel,
  type PlanId,
  type SubscriptionStatus,
} from '../metering/plans.js';
import type { Account, AccountChanges } from '../metering/accounts.js';
import { JSON_OPTION, UsageError, type Command } from './command.js';
import { print, table } from './output.js';
import { runOnStore } from './state-access.js';

const STORE_SETTINGS = ['dataDir', 'databaseUrl'] as const;

function accountRows(accounts: Account[]): Record<string, unknown>[] {
  return accounts.map((a) => ({
    account_id: a.account_id,
    name: a.name || null,
    plan: a.plan,
    billing_model: a.billing_model,
    subscription: a.subscription,
    overage: a.overage.enabled ? `on${a.overage.monthly_limit_usd === null ? '' : ` (limit ${a.overage.monthly_limit_usd} USD)`}` : 'off',
    created_at: a.created_at,
  }));
}

export const accountsCreate: Command = {
  name: 'accounts create',
  summary: 'Creates an account and prints it as JSON. A paid plan starts with an active subscription unless --subscription says otherwise.',
  options: [
    { name: 'plan', choices: PLAN_IDS, required: true, help: 'the plan: monthly records, requests and rate window' },
    { name: 'billing-model', choices: BILLING_MODELS, help: 'records (plan allowances, default) or requests (spec 8.4)' },
    { name: 'subscription', choices: SUBSCRIPTION_STATUSES, help: 'subscription state (default: active on paid plans, none on free)' },
    { name: 'name', value: 'text', help: 'a name for people' },
    JSON_OPTION,
  ],
  settings: [...STORE_SETTINGS],
  async run({ options, config, json }) {
    const account = await runOnStore(config, 'accounts.create', {
      plan: options.plan as PlanId,
      ...(options['billing-model'] ? { billing_model: options['billing-model'] as BillingModel } : {}),
      ...(options.subscription ? { subscription: options.subscription as SubscriptionStatus } : {}),
      ...(typeof options.name === 'string' ? { name: options.name } : {}),
    });
    print(json, account);
  },
};

export const accountsList: Command = {
  name: 'accounts list',
  summary: 'Lists every account.',
  options: [JSON_OPTION],
  settings: [...STORE_SETTINGS],
  async run({ config, json }) {
    const accounts = await runOnStore(config, 'accounts.list', {} as never);
    print(json, accounts, () =>
      table(accountRows(accounts), ['account_id', 'name', 'plan', 'billing_model', 'subscription', 'overage', 'created_at']),
    );
  },
};

function parsePrice(text: string): number | null {
  if (text === 'none') return null;
  const price = Number(text);
  if (!(price > 0) || !Number.isFinite(price))
    throw new UsageError(`--overage-price must be a positive number of USD per record or "none"; got "${text}"`);
  return price;
}

export const accountsSet: Command = {
  name: 'accounts set',
  summary: 'Changes an account: plan, billing model, subscription state, name, or the overage price item its subscription carries.',
  positionals: '<account_id>',
  options: [
    { name: 'plan', choices: PLAN_IDS, help: 'a new plan' },
    { name: 'billing-model', choices: BILLING_MODELS, help: 'a new billing model' },
    { name: 'subscription', choices: SUBSCRIPTION_STATUSES, help: 'a new subscription state' },
    { name: 'name', value: 'text', help: 'a new name' },
    { name: 'overage-price', value: 'usd-per-record|none', help: 'the overage price item on the subscription; "none" detaches it' },
    { name: 'prepaid', value: 'usd', help: 'the prepaid balance paid requests draw on (requests billing model), e.g. 50 or 12.5' },
    JSON_OPTION,
  ],
  settings: [...STORE_SETTINGS],
  async run({ options, positionals, config, json }) {
    const [accountId] = positionals;
    if (!accountId || positionals.length > 1) throw new UsageError('give exactly one <account_id>');
    const changes: AccountChanges = {};
    if (options.plan) changes.plan = options.plan as PlanId;
    if (options['billing-model']) changes.billing_model = options['billing-model'] as BillingModel;
    if (options.subscription) changes.subscription = options.subscription as SubscriptionStatus;
    if (typeof options.name === 'string') changes.name = options.name;
    if (typeof options['overage-price'] === 'string') changes.overage_price_usd = parsePrice(options['overage-price']);
    if (typeof options.prepaid === 'string') {
      if (!/^\d{1,9}(\.\d{1,2})?$/.test(options.prepaid))
        throw new UsageError('--prepaid takes US dollars with at most two decimals, e.g. 50 or 12.5');
      changes.prepaid_usd = Number(options.prepaid);
    }
    if (Object.keys(changes).length === 0)
      throw new UsageError(
        'nothing to change: give at least one of --plan, --billing-model, --subscription, --name, --overage-price, --prepaid',
      );
    print(json, await runOnStore(config, 'accounts.set', { account_id: accountId, ...changes }));
  },
};
