import { expect } from 'chai';
import { migrate } from '../../src/db/migrate.js';
import { SMALL_BUFFERS } from '../../src/db/pglite-store.js';
import { PgStore } from '../../src/db/pg-store.js';
import { PgliteThreadStore } from '../../src/db/pglite-thread-store.js';
import type { StateStore } from '../../src/db/state-store.js';
import { createAccount, listAccounts, updateAccount } from '../../src/metering/accounts.js';
import { authenticate, issueKey, revokeKey } from '../../src/metering/keys.js';
import { setOverage } from '../../src/metering/overage.js';
import { freshStore } from '../support/app.js';
import { testPostgres } from '../support/postgres.js';

const backends: [string, () => Promise<StateStore>][] = [
  ['embedded PGlite', () => freshStore()],
  [
    "embedded PGlite in a thread of its own (a server's)",
    async () => {
      const store = await PgliteThreadStore.open(undefined, { sharedBuffers: SMALL_BUFFERS });
      await migrate(store);
      return store;
    },
  ],
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

    it("rejects values the schema forbids, with PostgreSQL's code and constraint", async () => {
      const failure = await store.query("INSERT INTO accounts (account_id, plan) VALUES ('acct_x', 'gold')").then(
        () => undefined,
        (error: unknown) => error as { code?: string; constraint?: string; message: string },
      );
      expect(failure?.code).to.equal('23514');
      expect(failure?.constraint).to.be.a('string').and.not.equal('');
      expect(failure?.message).to.match(/check constraint/);
    });

    it('commits a transaction whose work resolves, and rolls back one whose work throws, with its error', async () => {
      const ids = ['acct_tx_kept', 'acct_tx_dropped'];
      const insert = "INSERT INTO accounts (account_id, plan) VALUES ($1, 'free')";
      expect(await store.transaction(async (tx) => (await tx.query(insert, [ids[0]]), 'done'))).to.equal('done');
      const thrown = new Error('changed my mind');
      const failure = await store
        .transaction(async (tx) => {
          await tx.query(insert, [ids[1]]);
          throw thrown;
        })
        .catch((error: unknown) => error);
      expect(failure).to.equal(thrown);
      const rows = await store.query<{ account_id: string }>('SELECT account_id FROM accounts WHERE account_id = ANY($1)', [ids]);
      expect(rows.map((r) => r.account_id)).to.deep.equal([ids[0]]);
    });

    it('carries parameters and results of every type the metering uses', async () => {
      const at = new Date('2026-11-28T10:15:30.123Z');
      const [row] = await store.query<Record<string, unknown>>(
        'SELECT $1::timestamptz AS at, $2::bigint AS big, $3::jsonb AS doc, $4::text[] AS list, $5::boolean AS yes, NULL::text AS none',
        [at, '9007199254740993', JSON.stringify({ rows: [{ i: 1 }] }), ['a', 'b'], true],
      );
      expect(row).to.deep.equal({ at, big: row!.big, doc: { rows: [{ i: 1 }] }, list: ['a', 'b'], yes: true, none: null });
      expect(String(row!.big)).to.equal('9007199254740993');
    });
  });
}

describe('the embedded store, in process and in a thread of its own', function () {
  this.timeout(60_000);
  const stores: [string, () => Promise<StateStore>][] = backends.slice(0, 2);

  for (const [name, open] of stores) {
    it(`${name}: hears a notice before the result of the statement whose commit sent it`, async () => {
      const store = await open();
      try {
        const heard: string[] = [];
        const stop = await store.listen(
          'jps_test',
          (payload) => heard.push(payload),
          () => undefined,
        );
        await store.query("SELECT pg_notify('jps_test', 'first')");
        expect(heard).to.deep.equal(['first']);
        await stop();
        await store.query("SELECT pg_notify('jps_test', 'second')");
        expect(heard).to.deep.equal(['first']);
      } finally {
        await store.close();
      }
    });
  }

  it('a thread store fails a call whose parameters cannot reach its thread, and goes on answering', async () => {
    const store = await PgliteThreadStore.open(undefined, { sharedBuffers: SMALL_BUFFERS });
    try {
      const failure = await store.query('SELECT $1::text AS x', [() => 'a function']).catch((error: unknown) => error as Error);
      expect(failure).to.be.instanceOf(Error);
      expect(await store.query('SELECT 1 AS one')).to.deep.equal([{ one: 1 }]);
    } finally {
      await store.close();
    }
  });

  it('a thread store refuses calls once closed, saying so', async () => {
    const store = await PgliteThreadStore.open(undefined, { sharedBuffers: SMALL_BUFFERS });
    await store.close();
    const failure = await store.query('SELECT 1').catch((error: unknown) => error as Error);
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.match(/closed/);
  });
});
