// Starts the real service on port 0 with a fresh in-memory state store and temporary folders.
// TEST_STATE_STORE=postgres runs it on a fresh database of the test PostgreSQL server instead.

import { cp, mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { publish } from '../../src/catalog/publish/publish.js';
import { loadConfig, type Config } from '../../src/config.js';
import { migrate } from '../../src/db/migrate.js';
import { PgStore } from '../../src/db/pg-store.js';
import { PgliteStore, SMALL_BUFFERS } from '../../src/db/pglite-store.js';
import type { StateStore } from '../../src/db/state-store.js';
import { startService, type Service, type ServiceOptions } from '../../src/service.js';
import { createAccount, type NewAccount } from '../../src/metering/accounts.js';
import { issueKey, type KeyOptions } from '../../src/metering/keys.js';
import { ApiClient } from './client.js';
import { tempDir } from './folders.js';
import { testPostgres } from './postgres.js';

let template: Promise<{ image: Blob; schema: string }> | undefined;
/** Stores of closed apps, emptied: taking one costs a few milliseconds, opening one from the image half a second. */
const spare: PgliteStore[] = [];

/** The schema's shape (tables, columns, functions): a store whose test altered it is not reused. */
const SCHEMA = `SELECT md5(coalesce(string_agg(item, ',' ORDER BY item), '')) AS schema FROM (
    SELECT c.relname::text || '.' || c.relkind::text || '.' || coalesce(a.attname::text, '') || '.' || coalesce(format_type(a.atttypid, a.atttypmod), '') AS item
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    WHERE n.nspname = 'public'
    UNION ALL
    SELECT p.proname::text || '(' || pg_get_function_identity_arguments(p.oid) || ')' || md5(p.prosrc)
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public') items`;

/** A migrated empty store's image, made once per test process; loading one takes a fraction of making one. */
function storeTemplate(): Promise<{ image: Blob; schema: string }> {
  template ??= (async () => {
    const store = await PgliteStore.open(undefined, { sharedBuffers: SMALL_BUFFERS });
    await migrate(store);
    const [{ schema }] = (await store.query<{ schema: string }>(SCHEMA)) as [{ schema: string }];
    const image = await store.dump();
    await store.close();
    return { image, schema };
  })();
  return template;
}

/** A migrated empty store, in memory. */
export async function freshStore(): Promise<PgliteStore> {
  return spare.pop() ?? PgliteStore.open(undefined, { image: (await storeTemplate()).image, sharedBuffers: SMALL_BUFFERS });
}

/**
 * Makes `dataDir` with its embedded state store created and migrated, as a first command leaves it,
 * from the image: a new store on disk takes 3 s to initialise, this well under one. For tests of what
 * commands do with a data folder; a test of how the first command makes one (file modes) starts empty.
 */
export async function seededDataDir(dataDir: string): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const store = await PgliteStore.open(join(dataDir, 'state'), { image: (await storeTemplate()).image, sharedBuffers: SMALL_BUFFERS });
  await store.close();
  return dataDir;
}

/**
 * Gives a closed app's store back for the next app: every table but the migrations' emptied (identities
 * restarted) and session locks released, as a new one from the image would be; closed instead when its
 * test changed the schema or closed it.
 */
async function recycle(store: PgliteStore): Promise<void> {
  try {
    const [{ schema }] = (await store.query<{ schema: string }>(SCHEMA)) as [{ schema: string }];
    if (template && schema === (await template).schema) {
      const tables = await store.query<{ name: string }>(
        "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'",
      );
      await store.query(`TRUNCATE ${tables.map((t) => t.name).join(', ')} RESTART IDENTITY CASCADE`);
      await store.query('SELECT pg_advisory_unlock_all()');
      spare.push(store);
      return;
    }
  } catch {
    // Closed or broken by its test: not reused.
  }
  await store.close().catch(() => undefined);
}

/** Gives back a store of freshStore() (or closes a PostgreSQL one): the next freshStore() takes it emptied. */
export async function releaseStore(store: StateStore): Promise<void> {
  await (store instanceof PgliteStore ? recycle(store) : store.close());
}

let databases = 0;

/** A migrated empty database on the test PostgreSQL server. */
export async function freshPostgresStore(): Promise<PgStore> {
  const url = await (await testPostgres()).database(`app_${process.pid}_${++databases}`);
  const store = await PgStore.open(url);
  await migrate(store);
  return store;
}

export { tempDir };

export interface TestApp {
  url: string;
  service: Service;
  store: StateStore;
  api: ApiClient;
  config: Config;
  /** Moves the service clock; tests cross windows and months without sleeping. */
  setNow(at: Date | undefined): void;
  /** The service clock's time: ahead of the real one once a full request window was waited out. */
  now(): Date;
  /** An account with a key, ready to call the API. */
  account(input?: Partial<NewAccount>, keyOptions?: KeyOptions): Promise<{ accountId: string; key: string; keyId: string }>;
  /**
   * Changes an account's monthly figures in the store behind the server's back (as an operator's
   * correction would): what the server settled in memory reaches the store first, and the server reads
   * the account again after it (Meter.reread). `params` default to the account id alone.
   */
  alter(accountId: string, sql: string, params?: unknown[]): Promise<void>;
  /** Stops the service (as a crash would, unless `stopped` already did) and starts a new one on the same store and folders. */
  restart(stopped?: Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/** Where published corpora are kept for the whole run (folders.ts); unset in a run without that fixture. */
const CATALOGS = 'JPS_TEST_CATALOGS';

/**
 * A generated corpus of `jobs` jobs (one day) published, as a folder holding `snapshots/` and `data/` (the
 * publisher's state). Built once per run and corpus and kept for every later file of either worker: a
 * publication is immutable, and its files are copied into each app that serves it.
 */
async function publishedCorpus(corpus: { jobs: number; seed: number }): Promise<string> {
  const cache = process.env[CATALOGS];
  const kept = cache && join(cache, `${corpus.jobs}-${corpus.seed}`);
  if (kept && (await stat(kept).catch(() => undefined))) return kept;
  const build = await mkdtemp(join(cache ?? tmpdir(), 'jps-build-'));
  await generateCorpus({ ...corpus, days: 1, start: '2026-11-18' }, join(build, 'corpus'), { workers: 0 });
  await publish({
    input: join(build, 'corpus', 'day-001'),
    snapshotsDir: join(build, 'snapshots'),
    dataDir: join(build, 'data'),
    quiet: true,
    memoryLimit: '1GB',
  });
  await rm(join(build, 'corpus'), { recursive: true, force: true });
  if (!kept) return build;
  // The other worker may have kept the same corpus meanwhile: its copy is as good.
  await rename(build, kept).catch(() => rm(build, { recursive: true, force: true }));
  return kept;
}

/**
 * Copies published folders as publish leaves them for a server that may look at any moment (it polls):
 * every file first, then the LATEST pointers, each written beside and renamed into place.
 */
async function copyPublished(from: string, to: string): Promise<void> {
  const isPointer = (path: string) => basename(path) === 'LATEST';
  await cp(from, to, { recursive: true, filter: (path) => !isPointer(path) });
  const entries = await readdir(from, { recursive: true, withFileTypes: true });
  for (const pointer of entries.filter((e) => e.isFile() && isPointer(e.name))) {
    const target = join(to, relative(from, join(pointer.parentPath, pointer.name)));
    await cp(join(pointer.parentPath, pointer.name), `${target}.copy`);
    await rename(`${target}.copy`, target);
  }
}

/** A test app serving a generated corpus of `jobs` jobs (one day, published and picked up). */
export async function startTestAppWithCatalog(corpus: { jobs: number; seed: number }): Promise<TestApp> {
  const [published, app] = await Promise.all([publishedCorpus(corpus), startTestApp()]);
  await copyPublished(join(published, 'snapshots'), app.config.snapshotsDir);
  await copyPublished(join(published, 'data'), app.config.dataDir);
  if (!process.env[CATALOGS]) await rm(published, { recursive: true, force: true });
  await app.service.watcher.check();
  return app;
}

/**
 * `options.store`: another app's store, for a second replica of one service (the store stays open when
 * this app closes); pass `objectStore` (and the AWS environment, test/support/s3.ts) to share the rest.
 */
export async function startTestApp(
  overrides: Partial<Config> = {},
  options: Pick<ServiceOptions, 'exportRunner' | 'logger'> & { store?: StateStore } = {},
): Promise<TestApp> {
  const { store: shared, ...serviceOptions } = options;
  const store = shared ?? (process.env.TEST_STATE_STORE === 'postgres' ? await freshPostgresStore() : await freshStore());
  const root = await tempDir('app');
  const config: Config = {
    ...loadConfig({}, {}),
    host: '127.0.0.1',
    port: 0,
    dataDir: join(root, 'data'),
    snapshotsDir: join(root, 'snapshots'),
    logLevel: 'silent',
    // Tests compact the ledger themselves (ctx.ledger.compact()).
    ledgerCompactMs: 0,
    ...overrides,
  };
  let now: Date | undefined;
  // How far the clock has been moved past a full request window (see ApiClient).
  let ahead = 0;
  const clock = () => now ?? new Date(Date.now() + ahead);
  const waitWindow = (seconds: number) => {
    if (now) now = new Date(now.getTime() + seconds * 1000);
    else ahead += seconds * 1000;
  };
  const start = () => startService(config, { ...serviceOptions, store, clock });
  const service = await start();
  const app: TestApp = {
    url: service.url,
    service,
    store,
    config,
    api: new ApiClient(service.url, waitWindow),
    setNow: (at) => {
      now = at;
    },
    now: clock,
    async account(input = {}, keyOptions = {}) {
      const account = await createAccount(store, { plan: 'paid-25k', ...input });
      const key = await issueKey(store, account.account_id, keyOptions);
      return { accountId: account.account_id, key: key.key, keyId: key.key_id };
    },
    async alter(accountId, sql, params = [accountId]) {
      await app.service.ctx.meter.idle();
      await store.query(sql, params);
      await app.service.ctx.meter.reread(accountId);
    },
    async restart(stopped) {
      await (stopped ?? app.service.close());
      app.service = await start();
      app.url = app.service.url;
      app.api = new ApiClient(app.url, waitWindow);
    },
    async close() {
      await app.service.close();
      if (!shared) await releaseStore(store);
      await rm(root, { recursive: true, force: true });
    },
  };
  return app;
}
