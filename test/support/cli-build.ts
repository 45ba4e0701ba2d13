// The CLI as the tests start it (a hundred processes a run): src/ transpiled once per run by esbuild,
// the transform tsx applies to every file of every process it starts, into a folder beside links to the
// rest of the repository (openapi.yaml, sql/, docs/, package.json; node_modules is found by walking up).
// A process then starts without the TypeScript loader: half a second less of CPU for each. The code is
// the same; `npm start` and the operator's `npm run cli` run src/ through tsx, and so does a test run
// without this fixture (one file with mocha --no-config). Its servers start with small state buffers.

import { build } from 'esbuild';
import { mkdir, readdir, rm, symlink } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMALL_BUFFERS } from '../../src/db/pglite-store.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Inside node_modules: ignored by git and by every tool, and packages resolve from it as from src/. */
const BUILD = join(ROOT, 'node_modules', '.cache', 'jps-cli', String(process.pid));

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Mocha global fixture: runs once in the main process, before the workers start (they inherit the variable). */
export async function mochaGlobalSetup(): Promise<void> {
  await rm(BUILD, { recursive: true, force: true });
  await mkdir(BUILD, { recursive: true });
  const files = await filesUnder(join(ROOT, 'src'));
  await build({
    entryPoints: files.filter((f) => f.endsWith('.ts')),
    outdir: join(BUILD, 'src'),
    outbase: join(ROOT, 'src'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  // Files of src/ that are not code, and everything beside src/, as links.
  for (const file of files.filter((f) => !f.endsWith('.ts'))) {
    const link = join(BUILD, relative(ROOT, file));
    await mkdir(dirname(link), { recursive: true });
    await symlink(file, link);
  }
  for (const entry of await readdir(ROOT)) {
    if (!['src', 'node_modules', '.git'].includes(entry)) await symlink(join(ROOT, entry), join(BUILD, entry));
  }
  process.env.JPS_TEST_CLI = join(BUILD, 'src', 'cli', 'main.js');
  // A test's server holds a few rows: PostgreSQL's 128MB of buffers took a second of CPU at each of its twenty starts.
  process.env.JPS_STATE_BUFFERS ??= SMALL_BUFFERS;
}

export async function mochaGlobalTeardown(): Promise<void> {
  await rm(BUILD, { recursive: true, force: true });
}
