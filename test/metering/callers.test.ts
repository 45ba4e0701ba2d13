import { expect } from 'chai';
import pino from 'pino';
import { migrate } from '../../src/db/migrate.js';
import { PgStore } from '../../src/db/pg-store.js';
import type { StateStore } from '../../src/db/state-store.js';
import { createAccount } from '../../src/metering/accounts.js';
import { Callers } from '../../src/metering/callers.js';
import { issueKey, revokeKey } from '../../src/metering/keys.js';
import { freshStore } from '../support/app.js';
import { testPostgres } from '../support/postgres.js';

const logger = pino({ level: 'silent' });

/** Waits until `check` holds (a notice from another connection of a server store arrives after its commit). */
async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 10))) if (await check()) return true;
  return check();
}

/** One store for the server that remembers callers, and the connection another process (or replica) changes them through. */
const backends: [string, () => Promise<{ server: StateStore; other: StateStore; close(): Promise<void> }>][] = [
  [
    'embedded PGlite (one process: the other is the same store)',
    async () => {
      const store = await freshStore();
      return { server: store, other: store, close: () => store.close() };
    },
  ],
  [
    'a PostgreSQL 18 server (another replica changes them)',
    async () => {
      const url = await (await testPostgres()).database('callers');
      const server = await PgStore.open(url);
      await migrate(server);
      const other = await PgStore.open(url);
      return {
        server,
        other,
        close: async () => {
          await other.close();
          await server.close();
        },
      };
    },
  ],
];

for (const [name, open] of backends) {
  describe(`callers remembered by a server, on ${name}`, function () {
    this.timeout(60_000);
    let stores: Awaited<ReturnType<(typeof backends)[number][1]>>;
    let callers: Callers;
    before(async () => {
      stores = await open();
      callers = await Callers.open(stores.server, logger);
    });
    after(async () => {
      await callers.close();
      await stores.close();
    });

    async function newKey(plan: 'paid-5k' | 'paid-100k' = 'paid-5k') {
      const account = await createAccount(stores.other, { plan });
      return { account, key: await issueKey(stores.other, account.account_id) };
    }

    it('authenticates a remembered key without reading it again, and refuses a wrong secret or prefix for it', async () => {
      const { account, key } = await newKey();
      expect((await callers.authenticate(key.key))?.account.account_id).to.equal(account.account_id);
      // Deleted behind the store's back (no trigger sees a TRUNCATE-like path here: the row is gone and no
      // notice said so), the remembered key still answers: it was not read again.
      await stores.server.query('ALTER TABLE api_keys DISABLE TRIGGER api_keys_deleted');
      try {
        await stores.server.query('DELETE FROM api_keys WHERE key_id = $1', [key.key_id]);
        expect((await callers.authenticate(key.key))?.keyId).to.equal(key.key_id);
      } finally {
        await stores.server.query('ALTER TABLE api_keys ENABLE TRIGGER api_keys_deleted');
      }
      const [prefix, rest] = [key.key.slice(0, key.key.indexOf('_live_') + 6), key.key.slice(key.key.indexOf('_live_') + 6)];
      const wrongSecret = `${prefix}${rest.slice(0, -1)}${rest.endsWith('A') ? 'B' : 'A'}`;
      expect(await callers.authenticate(wrongSecret)).to.equal(undefined);
      expect(await callers.authenticate(`${prefix === 'jps_live_' ? 'jp_live_' : 'jps_live_'}${rest}`)).to.equal(undefined);
    });

    it('stops a key revoked elsewhere at once (on a shared server, as soon as its notice arrives)', async () => {
      const { key } = await newKey();
      expect(await callers.authenticate(key.key)).to.not.equal(undefined);
      await revokeKey(stores.other, key.key_id);
      if (stores.server === stores.other) expect(await callers.authenticate(key.key)).to.equal(undefined);
      else expect(await eventually(async () => (await callers.authenticate(key.key)) === undefined)).to.equal(true);
      expect(await callers.authenticate(key.key)).to.equal(undefined);
    });

    it("reads an account again once it changed: another key's revocation, or overage turned on", async () => {
      const { account, key } = await newKey('paid-100k');
      const first = await callers.authenticate(key.key);
      expect(first?.account.overage_enabled).to.equal(false);
      await stores.other.query('UPDATE accounts SET overage_enabled = true WHERE account_id = $1', [account.account_id]);
      const changed = async () => (await callers.authenticate(key.key))?.account.overage_enabled === true;
      expect(stores.server === stores.other ? await changed() : await eventually(changed)).to.equal(true);
    });

    it('gives each request its own copy of the account', async () => {
      const { key } = await newKey();
      const one = await callers.authenticate(key.key);
      one!.account.name = 'changed by a handler';
      expect((await callers.authenticate(key.key))?.account.name).to.not.equal('changed by a handler');
    });
  });
}

describe('callers remembered by a server, when the store cannot tell it of changes', function () {
  this.timeout(60_000);

  it('remembers nothing while its listening connection is down, and resumes once it listens again', async () => {
    const url = await (await testPostgres()).database('callers_lost');
    const server = await PgStore.open(url);
    await migrate(server);
    const other = await PgStore.open(url);
    const callers = await Callers.open(server, logger);
    try {
      const account = await createAccount(other, { plan: 'paid-5k' });
      const key = await issueKey(other, account.account_id);
      expect(await callers.authenticate(key.key)).to.not.equal(undefined);
      // The listening connection dies (a restart of the server, a network cut): notices sent now are lost.
      await other.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND datname = current_database()",
      );
      await new Promise((r) => setTimeout(r, 300)); // the connection's end reaches the server's event loop
      await revokeKey(other, key.key_id);
      expect(await callers.authenticate(key.key), 'read again, not remembered').to.equal(undefined);
      // Once it listens again, a second key is remembered and its revocation heard.
      const second = await issueKey(other, account.account_id);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(await callers.authenticate(second.key)).to.not.equal(undefined);
      await revokeKey(other, second.key_id);
      expect(await eventually(async () => (await callers.authenticate(second.key)) === undefined)).to.equal(true);
    } finally {
      await callers.close();
      await other.close();
      await server.close();
    }
  });
});
