// Company registry releases: a delivery's release is written beside the catalog, and the active
// release gives the tables that link postings to companies.

import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Duck } from '../../db/duckdb.js';
import { runScript } from '../../db/duckdb.js';
import { namedScripts } from '../../db/sql-files.js';
import { exists, moveIntoPlace, writeAtomically } from '../files.js';
import { activePointer, publishedNames, readPointer, REGISTRY_FORMAT, registryRoot, releaseDir } from '../layout.js';

const SQL = namedScripts('publish/registry.sql', ['release_companies', 'write_release', 'active_release', 'no_registry']);

/** Releases kept, so that company cursors keep reading the release they started on. */
export const KEEP_RELEASES = 5;

export interface StagedRelease {
  releaseId: string;
  tmpDir: string;
}

/** Writes the delivery's release into a temporary folder (its final folder is written once, never changed). */
export async function stageRelease(
  duck: Duck,
  snapshotsDir: string,
  release: { releaseId: string; companiesPath: string; releasedAt: string },
): Promise<StagedRelease> {
  const tmpDir = join(registryRoot(snapshotsDir), `.tmp-${release.releaseId}-${process.pid}`);
  await runScript(duck, SQL.release_companies, { path: release.companiesPath });
  await rm(tmpDir, { recursive: true, force: true });
  await mkdir(tmpDir, { recursive: true });
  await runScript(duck, SQL.write_release, { dir: tmpDir });
  const counts = await duck.one<{ companies: number; redirects: number }>(
    'SELECT (SELECT count(*) FROM release_companies)::INTEGER AS companies, (SELECT count(*) FROM release_redirects)::INTEGER AS redirects',
  );
  const manifest = { format: REGISTRY_FORMAT, release_id: release.releaseId, released_at: release.releasedAt, ...counts };
  await writeAtomically(join(tmpDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return { releaseId: release.releaseId, tmpDir };
}

/** Loads the linking tables of the active release (the staged one when the delivery brings one). */
export async function loadRegistry(duck: Duck, snapshotsDir: string, staged: StagedRelease | null): Promise<string | null> {
  const releaseId = staged?.releaseId ?? (await readPointer(activePointer(snapshotsDir)));
  if (!releaseId) {
    await runScript(duck, SQL.no_registry);
    return null;
  }
  await runScript(duck, SQL.active_release, { dir: staged?.tmpDir ?? releaseDir(snapshotsDir, releaseId) });
  return releaseId;
}

/** Moves a staged release into place (unless an identical rerun already did) and makes it active. */
export async function commitRelease(snapshotsDir: string, staged: StagedRelease): Promise<void> {
  const target = releaseDir(snapshotsDir, staged.releaseId);
  if (await exists(join(target, 'manifest.json'))) await rm(staged.tmpDir, { recursive: true, force: true });
  else await moveIntoPlace(staged.tmpDir, target);
  await writeAtomically(activePointer(snapshotsDir), `${staged.releaseId}\n`);
  const releases = await publishedNames(registryRoot(snapshotsDir));
  for (const old of releases.filter((r) => r !== staged.releaseId).slice(0, Math.max(0, releases.length - KEEP_RELEASES))) {
    await rm(releaseDir(snapshotsDir, old), { recursive: true, force: true });
  }
}
