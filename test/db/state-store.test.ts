import { expect } from 'chai';
import { migrate } from '../../src/db/migrate.js';
import { PgStore } from '../../src/db/pg-store.js';
import type { StateStore } from '../../src/db/state-store.js';
import { createAccount, listAccounts, updateAccount } from '../../src/metering/accounts.js';
import { authenticate, issueKey, revokeKey } from '../../src/metering/keys.js';
import { setOverage } from '../../src/metering/overage.js';
import { freshStore } from '../support/app.js';
import { testPostgres } from '../support/postgres.js';

const backends: [string, () => Promise<StateStore>][] = [
  ['embedded PGlite', () => freshStore()],
  [
    'a PostgreSQL 18 server',
    async () => {
      const server = await testPostgres();
      const store = await PgStore.open(await server.database(`state_${Date.now()}`));
      await migrate(store);
      return store;
    },
  ],
];

for (const [name, open] of backends) {
  describe(`state store on ${name}`, function () {
    this.timeout(60_000);
    let store: StateStore;
    before(async () => {
      store = await open();
    });
    after(() => store.close());

    it('applies every migration once, and a second run applies none', async () => {
      expect(await migrate(store)).to.deep.equal([]);
      const rows = await store.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).to.include('0001_accounts_and_keys.sql');
    });

    it('creates accounts, issues, authenticates and revokes keys', async () => {
      const account = await createAccount(store, { plan: 'paid-100k', billing_model: 'requests' });
      expect(account).to.include({ plan: 'paid-100k', billing_model: 'requests', subscription: 'active' });
      const issued = await issueKey(store, account.account_id, { name: 'ci' });
      const caller = await authenticate(store, issued.key);
      expect(caller?.account.account_id).to.equal(account.account_id);
      expect(caller?.keyId).to.equal(issued.key_id);
      await revokeKey(store, issued.key_id);
      expect(await authenticate(store, issued.key)).to.equal(undefined);
      expect((await listAccounts(store)).map((a) => a.account_id)).to.include(account.account_id);
    });

    it('keeps overage limits exact in cents and rolls back a refused change', async () => {
      const account = await createAccount(store, { plan: 'paid-5k' });
      const { status } = await setOverage(
        store,
        account.account_id,
        { enabled: true, monthlyLimitUsd: 0.07 },
        { now: new Date(), upgradeUrl: 'u' },
      );
      expect(status.monthlyLimitUsd).to.equal(0.07);
      await updateAccount(store, account.account_id, { subscription: 'canceled' });
      let refused: unknown;
      try {
        await setOverage(store, account.account_id, { enabled: false }, { now: new Date(), upgradeUrl: 'u' });
      } catch (error) {
        refused = error;
      }
      expect((refused as { code?: string }).code).to.equal('no_active_subscription');
      const [row] = await store.query<{ overage_enabled: boolean }>('SELECT overage_enabled FROM accounts WHERE account_id = $1', [
        account.account_id,
      ]);
      expect(row!.overage_enabled).to.equal(true);
    });

    it('rejects values the schema forbids', async () => {
      let failed = false;
      try {
        await store.query("INSERT INTO accounts (account_id, plan) VALUES ('acct_x', 'gold')");
      } catch {
        failed = true;
      }
      expect(failed).to.equal(true);
    });
  });
}
