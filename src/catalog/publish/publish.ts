// One publication: delivery → normalise → merge → identity → jobs → events → an immutable snapshot.
// Everything is written under temporary names; moving the LATEST pointer is the commit, so a crash at
// any point leaves the previous catalog serving, and a rerun of the same delivery starts clean.

import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Duck } from '../../db/duckdb.js';
import { StoreLock } from '../../db/store-lock.js';
import { readDelivery } from '../delivery.js';
import {
  CATALOG_FORMAT,
  catalogRoot,
  latestPointer,
  pipelineDir,
  pipelineRoot,
  readCatalogManifest,
  registryRoot,
  releaseDir,
  snapshotDir,
  type CatalogManifest,
} from '../layout.js';
import { exists, moveIntoPlace, removeDeadTemporaries, writeAtomically } from '../files.js';
import { PublicationMirror } from '../mirror.js';
import { openStores, type Stores } from '../../storage/stores.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { buildServingFiles } from './serving.js';
import { writeTrends } from './trends.js';
import { activateRelease, loadRegistry, placeRelease, stageRelease } from './registry.js';
import {
  buildJobs,
  defineMacros,
  diff,
  foldState,
  identify,
  jobParts,
  load,
  merge,
  normalise,
  textsFile,
  writeSnapshot,
  writeState,
} from './stages.js';
import { Progress, peakRssGiB } from './progress.js';
import { finishSnapshot, pruneOld, readCounts } from './commit.js';
import { filesUnder, prunePipelineStates, removeUncommitted, Uploads } from './uploads.js';
import { OperatorError } from '../../shared/operator-error.js';

export interface PublishOptions {
  input: string;
  snapshotsDir: string;
  dataDir: string;
  /** The object store every node reads publications from (s3://bucket/prefix); empty or absent: the snapshots folder. */
  objectStore?: string;
  quiet?: boolean;
  /** DuckDB memory limit before it spills to disk. */
  memoryLimit?: string;
  /**
   * False: the publication goes out without its serving files (job documents, text indexes, change feed),
   * and each server builds them into its cache as it opens it, as for publications made before serving
   * files. Default true.
   */
  servingFiles?: boolean;
  /** DuckDB threads: by default one to merge a small delivery and write its serving files (catalogThreads), two for the rest. */
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

export class PublishError extends OperatorError {}

function busy(holder: { pid: number }, dataDir: string): PublishError {
  return new PublishError(`another publication (pid ${holder.pid}) is running on ${dataDir}; wait for it to finish`);
}

/** One publication under way: what its stages share. */
interface Run {
  options: PublishOptions;
  progress: Progress;
  delivery: Awaited<ReturnType<typeof readDelivery>>;
  watermark: string;
  /** The latest publication when this one started (null: the first). */
  latest: string | null;
  workDir: string;
  stores: Stores;
  mirror: PublicationMirror;
  uploads: Uploads;
}

/** What the catalog build leaves for the serving files and the commit. */
interface Built {
  manifest: CatalogManifest;
  /** DuckDB's threads for this delivery (PublishOptions.threads), for the serving files too. */
  threads: number;
  snapshotTmp: string;
  stateTmp: string;
  release: Awaited<ReturnType<typeof stageRelease>> | null;
}

export async function publish(options: PublishOptions): Promise<PublishSummary> {
  const progress = new Progress(options.quiet);
  const delivery = await readDelivery(options.input);
  const watermark = new Date(delivery.manifest.cutoff).toISOString();
  const lock = StoreLock.acquire(options.dataDir, { role: 'cli' }, 'publish.lock');
  if (!(lock instanceof StoreLock)) throw busy(lock.heldBy, options.dataDir);
  const workDir = join(pipelineRoot(options.dataDir), `.work-${process.pid}`);
  const stores = await openStores({ objectStore: options.objectStore ?? '', snapshotsDir: options.snapshotsDir, dataDir: options.dataDir });
  const mirror = new PublicationMirror(stores.publications, options.snapshotsDir);
  const uploads = new Uploads();
  try {
    // What runs killed mid-publication left (their work folders, temporary snapshots and pointers).
    for (const root of [catalogRoot(options.snapshotsDir), registryRoot(options.snapshotsDir), pipelineRoot(options.dataDir)])
      await removeDeadTemporaries(root);
    const latest = await mirror.latest();
    // What this publication builds on, copied from the object store when this node lacks it.
    if (mirror.remote) await fetchLatest(mirror, stores.data, options, latest, progress);
    if (mirror.remote) await removeUncommitted(mirror, stores.data, latest, progress);
    if (latest === watermark) return alreadyPublished(options.snapshotsDir, watermark, progress);
    if (latest && latest > watermark)
      throw new PublishError(
        `the delivery's watermark ${watermark} is older than the latest publication ${latest}; deliveries are published in order`,
      );
    const run: Run = { options, progress, delivery, watermark, latest, workDir, stores, mirror, uploads };
    const built = await buildCatalog(run);
    await buildServing(run, built);
    await commit(run, built);
    progress.finishStage();
    return {
      status: 'published',
      watermark,
      previous_watermark: latest,
      registry_release: built.manifest.registry_release,
      counts: built.manifest.counts,
      duration_s: Math.round(progress.elapsedSeconds() * 10) / 10,
      peak_rss_gib: Math.round(peakRssGiB() * 100) / 100,
    };
  } finally {
    // Uploads still running when the publish failed read from the folders removed here.
    await uploads.settled();
    await rm(workDir, { recursive: true, force: true });
    stores.close();
    lock.release();
  }
}

/** Sends the files under `dir` (but its manifest) to `root` in `store` as they are complete, with an object store. */
async function uploadFiles(run: Run, store: ObjectStore, root: string, dir: string): Promise<void> {
  if (!run.mirror.remote) return;
  for (const name of await filesUnder(dir))
    if (name !== 'manifest.json') run.uploads.add(store, `${root}${name}`, join(dir, ...name.split('/')));
}

/**
 * Fewer postings are merged on one DuckDB thread: as quick at that size and cheaper (20,000 jobs, 30,000
 * postings: 12.7-14.1 s and 16-18 s of CPU, 12.4-16.1 s and 19-25 s on two).
 */
const ONE_THREAD_POSTINGS = 40_000;
const catalogThreads = (postings: number): number => (postings < ONE_THREAD_POSTINGS ? 1 : 2);

/**
 * The DuckDB stages: the delivery loaded, normalised and merged into jobs with their identities, the
 * publisher's state and the snapshot's jobs and events written under temporary names, and its manifest.
 * With an object store, each file goes up as soon as it is complete, while the next stages run.
 */
async function buildCatalog(run: Run): Promise<Built> {
  const { options, progress, delivery, watermark, latest, workDir, stores, mirror } = run;
  const previousDir = latest ? snapshotDir(options.snapshotsDir, latest) : null;
  const previous = previousDir ? await readCatalogManifest(previousDir) : null;
  progress.step('open', `day ${delivery.manifest.day}, watermark ${watermark}, previous ${latest ?? 'none'}`);
  await rm(workDir, { recursive: true, force: true });
  await mkdir(join(workDir, 'spill'), { recursive: true });
  const postings = delivery.manifest.postings.reduce((n, f) => n + f.rows, 0);
  const threads = options.threads ?? catalogThreads(postings);
  const memoryLimit = options.memoryLimit ?? '4GB';
  const duck = await Duck.open({
    threads,
    memoryLimit,
    tempDir: join(workDir, 'spill'),
  });
  try {
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
    // The parts follow the live postings the jobs are built from (the delivery's and those carried on).
    const live = await duck.one<{ n: bigint }>('SELECT count(*) AS n FROM postings WHERE NOT withdrawn');
    const parts = jobParts(Number(live!.n), memoryLimit);
    progress.step('state', `${stateTmp}`);
    await writeState(duck, stateTmp, parts);
    await uploadFiles(run, stores.data, `pipeline/${watermark}/`, stateTmp);
    progress.step('jobs', `${parts} part${parts > 1 ? 's' : ''}`);
    await buildJobs(duck, watermark, { state: stateTmp, snapshot: snapshotTmp, work: workDir }, parts);
    await uploadFiles(run, mirror.store, `catalog/${watermark}/`, snapshotTmp);
    progress.step('events');
    const clock = options.clock ?? (() => new Date());
    const publishedAt = new Date(Math.max(clock().getTime(), previous ? Date.parse(previous.published_at) + 1 : 0)).toISOString();
    await diff(
      duck,
      previousDir && previous ? { dir: previousDir, format: previous.format } : null,
      snapshotTmp,
      publishedAt,
      previous?.events.last_seq ?? 0,
    );
    progress.step('write');
    await writeSnapshot(duck, snapshotTmp);
    progress.step('trends', 'the versions of the jobs over the recent publications');
    await writeTrends(duck, options.snapshotsDir, latest, snapshotTmp, watermark, threads);
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
      serving_files: options.servingFiles !== false,
    };
    return { manifest, threads, snapshotTmp, stateTmp, release };
  } finally {
    duck.close();
  }
}

/** The serving files (job documents, text indexes, change feed) beside the snapshot unless left to servers; every upload finished. */
async function buildServing(run: Run, { manifest, threads, snapshotTmp, stateTmp }: Built): Promise<void> {
  const { progress, watermark, workDir, stores, mirror, uploads } = run;
  if (manifest.serving_files) progress.step('serving files', 'job documents, text indexes, change feed');
  await writeAtomically(join(snapshotTmp, 'manifest.json'), JSON.stringify(manifest));
  await rename(textsFile(workDir), join(stateTmp, 'texts.parquet'));
  if (mirror.remote) uploads.add(stores.data, `pipeline/${watermark}/texts.parquet`, join(stateTmp, 'texts.parquet'));
  await uploadFiles(run, mirror.store, `catalog/${watermark}/`, snapshotTmp);
  if (manifest.serving_files)
    await buildServingFiles(snapshotTmp, manifest, threads, (name) => {
      if (mirror.remote) uploads.add(mirror.store, `catalog/${watermark}/${name}`, join(snapshotTmp, ...name.split('/')));
    });
  if (mirror.remote) {
    progress.step('upload', `waiting for the uploads of ${uploads.size} files to ${stores.publications.location}`);
    await uploads.done();
  }
}

/** The snapshot moved into place and named the latest; then what is no longer kept pruned. */
async function commit(run: Run, { manifest, snapshotTmp, stateTmp, release }: Built): Promise<void> {
  const { options, progress, watermark, latest, stores, mirror } = run;
  progress.step('commit');
  await finishSnapshot(snapshotTmp, stateTmp, manifest, options);
  if (release) await placeRelease(options.snapshotsDir, release);
  if (mirror.remote) {
    if (release) await mirror.push(`registry/${release.releaseId}/`, await filesUnder(releaseDir(options.snapshotsDir, release.releaseId)));
    await mirror.push(`catalog/${watermark}/`, ['manifest.json']);
  }
  // One publisher at a time (docs/deployment.md): one that published meanwhile is not overwritten.
  const now = await mirror.latest();
  if (now !== latest)
    throw new PublishError(
      `another publisher committed ${now} while this one ran from ${latest ?? 'nothing'}; run one publisher at a time, then publish again`,
    );
  // The commit: LATEST names the catalog, and its manifest the registry release it was built with,
  // so one write publishes both; ACTIVE follows, for people and tools (nothing reads it to serve).
  await mirror.commit(watermark);
  if (mirror.remote) await writeAtomically(latestPointer(options.snapshotsDir), `${watermark}\n`);
  if (release) await activateRelease(options.snapshotsDir, release.releaseId);
  if (release && mirror.remote) await mirror.activate(release.releaseId);
  await pruneOld(options.snapshotsDir, options.dataDir);
  await mirror.pruneServing();
  if (mirror.remote) await prunePipelineStates(stores.data, watermark);
}

/** Copies the latest publication, its registry release and the publisher's state of it from the object store. */
async function fetchLatest(
  mirror: PublicationMirror,
  data: ObjectStore,
  options: PublishOptions,
  latest: string | null,
  progress: Progress,
): Promise<void> {
  if (latest === null) return;
  progress.step('fetch', `publication ${latest} from ${data.location}`);
  if (!(await mirror.fetchCatalog(latest)))
    throw new PublishError(`catalog/LATEST names ${latest}, and the object store holds no such publication`);
  const releaseId = (await mirror.manifest(latest)).registry_release;
  if (releaseId && !(await mirror.fetchRelease(releaseId)))
    throw new PublishError(`publication ${latest} uses registry release ${releaseId}, and the object store holds none`);
  const stateDir = pipelineDir(options.dataDir, latest);
  if (!(await exists(stateDir))) {
    const objects = await data.list(`pipeline/${latest}/`);
    if (objects.length === 0) throw new PublishError(`the object store holds no publisher state of ${latest} (pipeline/${latest}/)`);
    const tmp = join(pipelineRoot(options.dataDir), `.tmp-fetch-${process.pid}`);
    for (const object of objects) await data.getFile(object.key, join(tmp, object.key.slice(`pipeline/${latest}/`.length)));
    await moveIntoPlace(tmp, stateDir);
  }
  await writeAtomically(latestPointer(options.snapshotsDir), `${latest}\n`);
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
