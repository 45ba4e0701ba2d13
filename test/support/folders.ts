// Temporary folders of a test run. Every folder a test file makes with tempDir() is removed once the file
// has run (a root hook), whatever its tests left in it. Published corpora shared by the files of both
// workers (app.ts, startTestAppWithCatalog) live in one folder for the run, made before the workers start
// (they inherit its name) and removed after the run.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A new empty folder under the system's temporary folder, which its maker removes (a fixture's, a server's). */
export const runDir = (prefix: string): Promise<string> => mkdtemp(join(tmpdir(), `jps-${prefix}-`));

/** A new empty folder under the system's temporary folder, removed after the test file that made it. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await runDir(prefix);
  made.push(dir);
  return dir;
}

export const mochaHooks = {
  async afterAll() {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  },
};

let catalogs: string | undefined;

export async function mochaGlobalSetup(): Promise<void> {
  catalogs = await runDir('catalogs');
  process.env.JPS_TEST_CATALOGS = catalogs;
}

export async function mochaGlobalTeardown(): Promise<void> {
  if (catalogs) await rm(catalogs, { recursive: true, force: true });
}
