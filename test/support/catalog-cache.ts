// Published corpora shared by the test files of a run (app.ts, startTestAppWithCatalog): a folder for the
// run, made before the workers start (they inherit its name) and removed after the run.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let folder: string | undefined;

export async function mochaGlobalSetup(): Promise<void> {
  folder = await mkdtemp(join(tmpdir(), 'jps-catalogs-'));
  process.env.JPS_TEST_CATALOGS = folder;
}

export async function mochaGlobalTeardown(): Promise<void> {
  if (folder) await rm(folder, { recursive: true, force: true });
}
