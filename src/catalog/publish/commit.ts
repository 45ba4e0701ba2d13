// Finishing a publication: the manifest, durable files, folders moved into place, old ones pruned.

import { readdir, rm, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Duck } from '../../db/duckdb.js';
import { namedQueries } from '../../db/sql-files.js';
import { fsyncPath, moveIntoPlace, writeAtomically } from '../files.js';
import {
  catalogRoot,
  pipelineDir,
  pipelineRoot,
  publishedNames,
  readPointer,
  latestPointer,
  snapshotDir,
  type CatalogManifest,
} from '../layout.js';

const SQL = namedQueries('publish/write.sql', ['counts']);

/** Pipeline states kept: the latest and a few before it, to rerun or inspect recent publications. */
export const KEEP_STATES = 3;

export async function readCounts(
  duck: Duck,
  lastSeq: number,
  watermark: string,
): Promise<{ counts: CatalogManifest['counts']; lastSeq: number }> {
  const row = (await duck.one<Record<string, number | string>>(SQL.counts, { last_seq: lastSeq, watermark }))!;
  const n = (key: string) => Number(row[key]);
  return {
    counts: {
      jobs: n('jobs'),
      postings: n('postings'),
      by_currentness: { current: n('current'), uncertain: n('uncertain'), not_current: n('not_current') },
      events: { created: n('created'), updated: n('updated'), expired: n('expired') },
      redirects: n('redirects'),
      withdrawn: n('withdrawn'),
      merged: n('merged'),
    },
    lastSeq: n('last_seq'),
  };
}

/** Every file under `dir` (its serving/ and feed/ folders too), by path relative to it, made durable. */
async function fileStats(dir: string): Promise<CatalogManifest['files']> {
  const files: CatalogManifest['files'] = {};
  for (const entry of (await readdir(dir, { withFileTypes: true, recursive: true })).sort((a, b) =>
    (a.parentPath + a.name).localeCompare(b.parentPath + b.name),
  )) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    await fsyncPath(path);
    files[relative(dir, path).split(sep).join('/')] = { rows: -1, bytes: (await stat(path)).size };
  }
  return files;
}

/** Writes the manifest last, makes every file durable, then moves the state and the snapshot into place. */
export async function finishSnapshot(
  snapshotTmp: string,
  stateTmp: string,
  manifest: CatalogManifest,
  options: { snapshotsDir: string; dataDir: string },
): Promise<void> {
  manifest.files = await fileStats(snapshotTmp);
  delete manifest.files['manifest.json'];
  await writeAtomically(join(snapshotTmp, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await fileStats(stateTmp);
  await moveIntoPlace(stateTmp, pipelineDir(options.dataDir, manifest.watermark));
  await moveIntoPlace(snapshotTmp, snapshotDir(options.snapshotsDir, manifest.watermark));
}

/** Removes temporaries of crashed runs, snapshots newer than LATEST (never committed) and old pipeline states. */
export async function pruneOld(snapshotsDir: string, dataDir: string): Promise<void> {
  const latest = await readPointer(latestPointer(snapshotsDir));
  for (const root of [catalogRoot(snapshotsDir), pipelineRoot(dataDir)]) {
    for (const entry of await readdir(root).catch(() => [] as string[])) {
      if (entry.startsWith('.tmp-')) await rm(join(root, entry), { recursive: true, force: true });
    }
  }
  for (const name of await publishedNames(catalogRoot(snapshotsDir))) {
    if (latest && name > latest) await rm(snapshotDir(snapshotsDir, name), { recursive: true, force: true });
  }
  const states = await publishedNames(pipelineRoot(dataDir));
  for (const name of states.slice(0, Math.max(0, states.length - KEEP_STATES))) {
    await rm(pipelineDir(dataDir, name), { recursive: true, force: true });
  }
}
