// The publisher's stage "trends": the versions of every job over the last TREND_PUBLICATIONS publications,
// and the text index of the versions whose text is no longer their job's (docs/adr/0012-trends.md), written
// into the publication's trends/ folder. Carried from the previous publication's versions; when it has
// none (the first publication, or one made before trends), built from the retained snapshots one by one.

import { listValue } from '@duckdb/node-api';
import { join } from 'node:path';
import { mkdir, rm } from 'node:fs/promises';
import type { Duck } from '../../db/duckdb.js';
import { runScript } from '../../db/duckdb.js';
import { namedScripts } from '../../db/sql-files.js';
import { sqlString as quote } from '../../db/sql-literal.js';
import { writeIndexParts } from '../../jobs/snapshot-indexes.js';
import { ownTextsSql } from '../../jobs/trends-view.js';
import { exists } from '../files.js';
import { CATALOG_FORMAT, catalogRoot, publishedNames, readCatalogManifest, snapshotDir, trendsFolder } from '../layout.js';

const SQL = namedScripts('publish/trends.sql', ['current', 'no_previous', 'previous_versions', 'previous_jobs', 'step', 'write', 'drop']);

/** How many publications a trend reads: a month of daily publications and the day before it. */
export const TREND_PUBLICATIONS = 31;

const jobsGlob = (dir: string) => join(dir, 'jobs*.parquet');

/**
 * Writes trends/ into `snapshotTmp` (the publication `watermark` being written), from the versions of
 * the previous publication in `snapshotsDir` or, lacking them, from the retained snapshots.
 */
export async function writeTrends(
  duck: Duck,
  snapshotsDir: string,
  previous: string | null,
  snapshotTmp: string,
  watermark: string,
  /** Worker threads for the text index of the own texts (the publisher's DuckDB threads). */
  workers = 1,
) {
  const folder = trendsFolder(snapshotTmp);
  await mkdir(folder, { recursive: true });
  const carried = previous ? await previousVersions(duck, snapshotsDir, previous) : null;
  const earlier = carried ? carried.publications : (await retainedNames(snapshotsDir, watermark)).slice(-(TREND_PUBLICATIONS - 1));
  const publications = [...earlier, watermark].slice(-TREND_PUBLICATIONS);
  const dirs = new Map([...earlier.map((name) => [name, snapshotDir(snapshotsDir, name)] as const), [watermark, snapshotTmp]]);
  // Carried: one step from the previous versions. Else each retained publication in turn, from none.
  const steps = carried ? [watermark] : publications;
  if (!carried) {
    await runScript(duck, SQL.current, { files: jobsGlob(dirs.get(steps[0]!)!) });
    await runScript(duck, SQL.no_previous);
  }
  let versions = carried?.file ?? null;
  for (const [i, name] of steps.entries()) {
    const before = publications[publications.indexOf(name) - 1] ?? null;
    // The first replayed publication's rows are trend_current already (no_previous took their shape).
    if (carried || i > 0) await runScript(duck, SQL.current, { files: jobsGlob(dirs.get(name)!) });
    if (versions) await runScript(duck, SQL.previous_versions, { file: versions });
    if (before) await runScript(duck, SQL.previous_jobs, { files: jobsGlob(dirs.get(before) ?? snapshotDir(snapshotsDir, before)) });
    const out = join(folder, i === steps.length - 1 ? 'versions.parquet' : `.step-${i}.parquet`);
    await runScript(duck, SQL.step, { watermark: name, oldest: publications[0]!, out });
    if (versions && versions !== carried?.file) await rm(versions);
    versions = out;
  }
  await runScript(duck, SQL.write, { dir: folder, publications: listValue(publications) });
  await runScript(duck, SQL.drop);
  await writeOwnTextIndex(duck, versions!, folder, workers);
}

/**
 * The text index of the versions' own texts, in `workers` parts of as many own texts each (a part: a range
 * of the file's rows), indexed at the same time (569,272 own texts on day 16 of a million jobs: 70 s in one, ADR 0012).
 */
async function writeOwnTextIndex(duck: Duck, versions: string, folder: string, workers: number): Promise<void> {
  // One scan: how many own texts, and the file rows where parts 2.. start (at the k/workers quantiles).
  const cuts = Array.from({ length: workers - 1 }, (_, k) => (k + 1) / workers);
  const [{ n, starts }] = (await duck.all<{ n: number; starts: number[] | null }>(
    `SELECT count(*)::INTEGER AS n, ${cuts.length > 0 ? `quantile_disc(file_row_number, [${cuts.join(', ')}])::BIGINT[]` : 'NULL'} AS starts
     FROM read_parquet(${quote(versions)}, file_row_number = true) WHERE own_text`,
  )) as [{ n: number; starts: number[] | null }];
  // A small part is indexed on the calling thread (writeIndexParts), so cutting costs nothing when few.
  const from = n < workers ? [0] : [0, ...(starts ?? []).map(Number)];
  const ranges = from.map((start, k): [number, number] => [start, from[k + 1] ?? Number.MAX_SAFE_INTEGER]);
  await writeIndexParts(
    ranges.map((rows) => ownTextsSql(versions, rows)),
    folder,
    n,
  );
}

/** The previous publication's versions and the publications they cover, if it has them. */
async function previousVersions(
  duck: Duck,
  snapshotsDir: string,
  previous: string,
): Promise<{ file: string; publications: string[] } | null> {
  const folder = trendsFolder(snapshotDir(snapshotsDir, previous));
  const file = join(folder, 'versions.parquet');
  if (!(await exists(file)) || !(await exists(join(folder, 'publications.parquet')))) return null;
  const rows = await duck.all<{ w: string }>(
    `SELECT strftime(watermark, '%Y-%m-%dT%H:%M:%S.%gZ') AS w FROM read_parquet(${quote(join(folder, 'publications.parquet'))}) ORDER BY 1`,
  );
  return { file, publications: rows.map((r) => r.w) };
}

/** The publications before `watermark` whose jobs a version can be read from (this format's). */
async function retainedNames(snapshotsDir: string, watermark: string): Promise<string[]> {
  const names: string[] = [];
  for (const name of await publishedNames(catalogRoot(snapshotsDir))) {
    if (name >= watermark) continue;
    const manifest = await readCatalogManifest(snapshotDir(snapshotsDir, name)).catch(() => null);
    if (manifest?.format === CATALOG_FORMAT) names.push(name);
  }
  return names;
}
