// One publication: delivery → normalise → merge → identity → jobs → events → an immutable snapshot.
// Everything is written under temporary names; moving the LATEST pointer is the commit, so a crash at
// any point leaves the previous catalog serving, and a rerun of the same delivery starts clean.

import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Duck } from '../../db/duckdb.js';
import { StoreLock } from '../../db/store-lock.js';
import { readDelivery } from '../delivery.js';
import {
  CATALOG_FORMAT, catalogRoot, latestPointer, pipelineDir, pipelineRoot, readCatalogManifest, readPointer, registryRoot, snapshotDir,
  type CatalogManifest,
} from '../layout.js';
import { removeDeadTemporaries, writeAtomically } from '../files.js';
import { activateRelease, loadRegistry, placeRelease, stageRelease } from './registry.js';
import { buildJobs, defineMacros, diff, foldState, identify, jobParts, load, merge, normalise, textsFile, writeSnapshot, writeState } from './stages.js';
import { Progress, peakRssGiB } from './progress.js';
import { finishSnapshot, pruneOld, readCounts } from './commit.js';

export interface PublishOptions {
  input: string;
  snapshotsDir: string;
  dataDir: string;
  quiet?: boolean;
  /** DuckDB memory limit before it spills to disk. */
  memoryLimit?: string;
  threads?: number;
  clock?: () => Date;
}

export interface PublishSummary {
  status: 'published' | 'already_published';
  watermark: string;
  previous_watermark: string | null;
  registry_release: string | null;
  counts: CatalogManifest['counts'];
  duration_s: number;
  peak_rss_gib: number;
}

export class PublishError extends Error {}

function busy(holder: { pid: number }, dataDir: string): PublishError {
  return new PublishError(`another publication (pid ${holder.pid}) is running on ${dataDir}; wait for it to finish`);
}

export async function publish(options: PublishOptions): Promise<PublishSummary> {
  const progress = new Progress(options.quiet);
  const delivery = await readDelivery(options.input);
  const watermark = new Date(delivery.manifest.cutoff).toISOString();
  const lock = StoreLock.acquire(options.dataDir, { role: 'cli' }, 'publish.lock');
  if (!(lock instanceof StoreLock)) throw busy(lock.heldBy, options.dataDir);
  const workDir = join(pipelineRoot(options.dataDir), `.work-${process.pid}`);
  let duck: Duck | undefined;
  try {
    // What runs killed mid-publication left (their work folders, temporary snapshots and pointers).
    for (const root of [catalogRoot(options.snapshotsDir), registryRoot(options.snapshotsDir), pipelineRoot(options.dataDir)]) await removeDeadTemporaries(root);
    const latest = await readPointer(latestPointer(options.snapshotsDir));
    if (latest === watermark) return alreadyPublished(options.snapshotsDir, watermark, progress);
    if (latest && latest > watermark) throw new PublishError(`the delivery's watermark ${watermark} is older than the latest publication ${latest}; deliveries are published in order`);
    const previousDir = latest ? snapshotDir(options.snapshotsDir, latest) : null;
    const previous = previousDir ? await readCatalogManifest(previousDir) : null;
    progress.step('open', `day ${delivery.manifest.day}, watermark ${watermark}, previous ${latest ?? 'none'}`);
    await rm(workDir, { recursive: true, force: true });
    await mkdir(join(workDir, 'spill'), { recursive: true });
    duck = await Duck.open({ threads: options.threads ?? 2, memoryLimit: options.memoryLimit ?? '4GB', tempDir: join(workDir, 'spill') });
    await defineMacros(duck);

    progress.step('load delivery');
    await load(duck, delivery, workDir, progress);
    progress.step('registry');
    const release = delivery.registry ? await stageRelease(duck, options.snapshotsDir, delivery.registry) : null;
    const activeRelease = await loadRegistry(duck, options.snapshotsDir, release);
    progress.step('normalise');
    await normalise(duck, progress);
    progress.step('posting state');
    await foldState(duck, latest ? pipelineDir(options.dataDir, latest) : null, workDir);
    progress.step('merge duplicates');
    await merge(duck, workDir, progress);
    progress.step('identity');
    await identify(duck, previousDir, watermark);
    const snapshotTmp = join(catalogRoot(options.snapshotsDir), `.tmp-${watermark}-${process.pid}`);
    const stateTmp = join(pipelineRoot(options.dataDir), `.tmp-${watermark}-${process.pid}`);
    const parts = jobParts(delivery.manifest.postings.reduce((n, f) => n + f.rows, 0));
    progress.step('state', `${stateTmp}`);
    await writeState(duck, stateTmp, parts);
    progress.step('jobs', `${parts} part${parts > 1 ? 's' : ''}`);
    await buildJobs(duck, watermark, stateTmp, snapshotTmp, parts);
    progress.step('events');
    const clock = options.clock ?? (() => new Date());
    const publishedAt = new Date(Math.max(clock().getTime(), previous ? Date.parse(previous.published_at) + 1 : 0)).toISOString();
    await diff(duck, previousDir, snapshotTmp, publishedAt, previous?.events.last_seq ?? 0);
    progress.step('write');
    await writeSnapshot(duck, snapshotTmp);
    const counts = await readCounts(duck, previous?.events.last_seq ?? 0, watermark);
    const manifest: CatalogManifest = {
      format: CATALOG_FORMAT,
      watermark,
      previous_watermark: latest,
      published_at: publishedAt,
      registry_release: activeRelease,
      input: { day: delivery.manifest.day, path: delivery.dir, cutoff: delivery.manifest.cutoff },
      counts: counts.counts,
      events: { first_seq: previous?.events.last_seq ?? 0, last_seq: counts.lastSeq },
      files: {},
    };
    duck.close();
    duck = undefined;
    progress.step('commit');
    await rename(textsFile(workDir), join(stateTmp, 'texts.parquet'));
    await finishSnapshot(snapshotTmp, stateTmp, manifest, options);
    if (release) await placeRelease(options.snapshotsDir, release);
    // The commit: LATEST names the catalog, and its manifest the registry release it was built with,
    // so one rename publishes both; ACTIVE follows, for people and tools (nothing reads it to serve).
    await writeAtomically(latestPointer(options.snapshotsDir), `${watermark}\n`);
    if (release) await activateRelease(options.snapshotsDir, release.releaseId);
    await pruneOld(options.snapshotsDir, options.dataDir);
    progress.finishStage();
    return {
      status: 'published',
      watermark,
      previous_watermark: latest,
      registry_release: activeRelease,
      counts: manifest.counts,
      duration_s: Math.round(progress.elapsedSeconds() * 10) / 10,
      peak_rss_gib: Math.round(peakRssGiB() * 100) / 100,
    };
  } finally {
    duck?.close();
    await rm(workDir, { recursive: true, force: true });
    lock.release();
  }
}

async function alreadyPublished(snapshotsDir: string, watermark: string, progress: Progress): Promise<PublishSummary> {
  const manifest = await readCatalogManifest(snapshotDir(snapshotsDir, watermark));
  progress.note(`watermark ${watermark} is already the latest publication: nothing to do`);
  return {
    status: 'already_published',
    watermark,
    previous_watermark: manifest.previous_watermark,
    registry_release: manifest.registry_release,
    counts: manifest.counts,
    duration_s: Math.round(progress.elapsedSeconds() * 10) / 10,
    peak_rss_gib: Math.round(peakRssGiB() * 100) / 100,
  };
}
