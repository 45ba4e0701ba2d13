// Company registry releases: a delivery's release is written beside the catalog, and the active
// release gives the tables that link postings to companies.

import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Duck } from '../../db/duckdb.js';
import { runScript } from '../../db/duckdb.js';
import { namedScripts } from '../../db/sql-files.js';
import { exists, moveIntoPlace, writeAtomically } from '../files.js';
import {
  activePointer,
  latestPointer,
  publishedNames,
  readCatalogManifest,
  readPointer,
  REGISTRY_FORMAT,
  registryRoot,
  releaseDir,
  snapshotDir,
} from '../layout.js';

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

/**
 * Loads the linking tables of the active release: the staged one when the delivery brings one, else the
 * one the latest catalog was published with (its manifest names it: LATEST is the one commit point).
 */
export async function loadRegistry(duck: Duck, snapshotsDir: string, staged: StagedRelease | null): Promise<string | null> {
  const releaseId = staged?.releaseId ?? (await publishedRelease(snapshotsDir));
  if (!releaseId) {
    await runScript(duck, SQL.no_registry);
    return null;
  }
  await runScript(duck, SQL.active_release, { dir: staged?.tmpDir ?? releaseDir(snapshotsDir, releaseId) });
  return releaseId;
}

/** The registry release of the latest catalog publication, or null (none yet, or published without one). */
export async function publishedRelease(snapshotsDir: string): Promise<string | null> {
  const watermark = await readPointer(latestPointer(snapshotsDir));
  return watermark ? (await readCatalogManifest(snapshotDir(snapshotsDir, watermark))).registry_release : null;
}

/** Moves a staged release into place, unless an identical rerun already did (a release folder is written once). */
export async function placeRelease(snapshotsDir: string, staged: StagedRelease): Promise<void> {
  const target = releaseDir(snapshotsDir, staged.releaseId);
  if (await exists(join(target, 'manifest.json'))) await rm(staged.tmpDir, { recursive: true, force: true });
  else await moveIntoPlace(staged.tmpDir, target);
}

/** After the catalog that uses it is committed: ACTIVE names the release, and the oldest beyond KEEP_RELEASES go. */
export async function activateRelease(snapshotsDir: string, releaseId: string): Promise<void> {
  await writeAtomically(activePointer(snapshotsDir), `${releaseId}\n`);
  const releases = await publishedNames(registryRoot(snapshotsDir));
  for (const old of releases.filter((r) => r !== releaseId).slice(0, Math.max(0, releases.length - KEEP_RELEASES))) {
    await rm(releaseDir(snapshotsDir, old), { recursive: true, force: true });
  }
}
