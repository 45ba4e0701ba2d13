// Callers and admissions for tests that drive the Meter directly, without HTTP.

import { expect } from 'chai';
import type { StateStore } from '../../src/db/state-store.js';
import { createAccount, findAccount } from '../../src/metering/accounts.js';
import { issueKey, type Caller } from '../../src/metering/keys.js';
import type { Meter, Ticket } from '../../src/metering/meter.js';

/** A caller of a new paid-5k account (records model) with a key of its own. */
export async function callerOn(store: StateStore): Promise<Caller> {
  const account = await createAccount(store, { plan: 'paid-5k' });
  const key = await issueKey(store, account.account_id);
  return { keyId: key.key_id, account: (await findAccount(store, account.account_id))! };
}

/** Admits one GET /v1/jobs of `caller` as `requestId`, which must not be refused. */
export async function admitOne(meter: Meter, caller: Caller, requestId: string): Promise<Ticket> {
  const { ticket, refusal } = await meter.admit(caller, {
    requestId,
    method: 'GET',
    route: '/v1/jobs',
    routeClass: 'jobs_list',
    windowed: true,
  });
  expect(refusal).to.equal(null);
  return ticket;
}
