// The service core, without HTTP: the state store, the published catalog and registry, the services the
// HTTP routes and the MCP tools share, and the background work (publication watcher, export runner,
// ledger compactor). `serve` puts the HTTP API in front of it; `mcp` the stdio MCP server.

import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { Publications } from './catalog/publications.js';
import { readCatalogManifest } from './catalog/layout.js';
import { PublicationWatcher, type SnapshotOpener } from './catalog/watcher.js';
import { CompanyReleases, companyReleaseOpener } from './companies/releases.js';
import { CompaniesService } from './companies/service.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openState } from './db/open-state.js';
import type { StateStore } from './db/state-store.js';
import { Exports } from './exports/exports.js';
import { ExportRunner, type RunnerOptions } from './exports/runner.js';
import { ChangeFeed } from './feed/feed.js';
import { adminSocketPath, startAdminSocket } from './http/admin-socket.js';
import { CursorSigner } from './shared/cursor.js';
import { QueryEngine } from './db/engine.js';
import { JobsService } from './jobs/service.js';
import { TrendsService } from './jobs/trends.js';
import { jobsSnapshotOpener } from './jobs/snapshot.js';
import { createLogger } from './logger.js';
import { Ledger } from './metering/ledger.js';
import { Meter } from './metering/meter.js';
import { Callers } from './metering/callers.js';
import { Nodes } from './metering/nodes.js';
import { journalDir, MeterJournal, replayJournal, type JournalReplay } from './metering/journal.js';
import { returnHeld } from './metering/leases.js';
import { openStores } from './storage/stores.js';
import { PublicationMirror } from './catalog/mirror.js';
import { SnapshotLibrary } from './catalog/library.js';

export interface CoreOptions {
  /** An already open store (tests); otherwise the configured one is opened, locked and migrated. */
  store?: StateStore;
  logger?: Logger;
  clock?: () => Date;
  /** Export runner knobs for tests: jobs per file, and a hook called as each file is listed. */
  exportRunner?: Pick<RunnerOptions, 'fileRecords' | 'onFileWritten'>;
  /** Also given the progress lines of a snapshot being opened, readable (`npm start` writes them to stderr). */
  echoProgress?: (line: string) => void;
}

export interface Core {
  ctx: AppContext;
  /** Looks for new publications; tests call check() instead of waiting for the next poll. */
  watcher: PublicationWatcher;
  /** Runs queued exports; tests wait for it with idle(). */
  exportRunner: ExportRunner;
  /**
   * Stops the exports at once (after the file being written: they resume on the next start), waits for
   * `drain` (the front end finishing the requests in flight), then settles what is left and closes the stores.
   */
  close(drain?: () => Promise<void>): Promise<void>;
}

/** Opens the latest catalog with DuckDB's threads fitted to its size first (an older one an export opens is not larger). */
function fittedOpener(engine: QueryEngine, open: SnapshotOpener): SnapshotOpener {
  return async (dir, watermark) => {
    await engine.fitThreads((await readCatalogManifest(dir)).counts.jobs);
    return open(dir, watermark);
  };
}

/**
 * The meter: where this process alone holds the store (embedded), requests are admitted from leases of
 * their window and settled in memory, journaled (ADR 0013); what the last server journaled and did not
 * settle is settled first (openState did it already when it opened the store), then the window slots it
 * held unused are given back.
 */
async function openMeter(
  config: Config,
  store: StateStore,
  replayed: JournalReplay | undefined,
  clock: () => Date,
  logger: Logger,
  nodeId: string,
): Promise<Meter> {
  const alone = store.kind === 'pglite';
  replayed ??= alone ? await replayJournal(store, journalDir(config.dataDir)) : undefined;
  // Only a server that stopped without settling (killed, or crashed) leaves journaled requests unsettled.
  if (replayed?.lines) logger.warn({ journaled: replayed.lines }, 'requests the last server journaled and did not settle are settled now');
  if (replayed?.refused)
    logger.error({ journaled: replayed.refused }, 'requests the last server journaled were settled otherwise in the store');
  // The window slots the last server held unused, once what it journaled counts as used.
  const returned = alone ? await returnHeld(store) : 0;
  if (returned > 0) logger.warn({ slots: returned }, 'window slots the last server held and did not use are given back');
  const journal = replayed ? new MeterJournal(journalDir(config.dataDir), replayed.nextSeq) : undefined;
  return new Meter(store, clock, logger, nodeId, { leases: alone, journal });
}

export async function openCore(config: Config, options: CoreOptions = {}): Promise<Core> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // The data folder is its owner's alone, also when an older version created it open to others.
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  await chmod(config.dataDir, 0o700);
  const socket = adminSocketPath(config.dataDir);
  const state = options.store ? undefined : await openState(config, { role: 'server', socket });
  const store = options.store ?? state!.store;
  const stores = await openStores(config);
  const mirror = new PublicationMirror(stores.publications, config.snapshotsDir);
  const publications = new Publications();
  const engine = await QueryEngine.open({ timeoutMs: config.queryTimeoutMs });
  const cursors = await CursorSigner.open(store, join(config.dataDir, 'cursor-secret'));
  const jobs = new JobsService(engine, cursors);
  const trends = new TrendsService(engine);
  const openRelease = companyReleaseOpener(engine);
  const releases = new CompanyReleases(publications, mirror, openRelease);
  const companies = new CompaniesService(engine, releases, cursors);
  const progress = { intervalMs: config.progressLogMs, echo: options.echoProgress };
  const feed = new ChangeFeed(engine, join(config.dataDir, 'feed'), cursors, logger, progress);
  const clock = options.clock ?? (() => new Date());
  const jobsOpener = jobsSnapshotOpener(engine, join(config.dataDir, 'serving'), logger, progress, config.documentCacheMb * 2 ** 20);
  const opener = feed.opener(jobsOpener);
  // Older publications, for the exports created on them.
  const library = new SnapshotLibrary(publications, mirror, jobsOpener);
  const exports = new Exports(store, jobs, publications, stores.data, stores.cacheDir, clock, () => runner.kick());
  // The embedded store belongs to this process alone: any other server registered in it has stopped.
  const nodes = new Nodes(store, clock, logger, { leaseMs: config.nodeLeaseMs, alone: store.kind === 'pglite' });
  const meter = await openMeter(config, store, state?.journal, clock, logger, nodes.id);
  const callers = await Callers.open(store, logger);
  const ledger = new Ledger(store, engine, stores, logger, { clock });
  const runner = new ExportRunner(exports, store, jobs, engine, publications, library, clock, logger, meter, {
    leaseMs: config.exportLeaseMs,
    fileRecords: config.exportFileRecords,
    pollMs: 1000,
    ...options.exportRunner,
  });
  const ctx: AppContext = {
    config,
    store,
    stores,
    publications,
    jobs,
    trends,
    companies,
    feed,
    exports,
    meter,
    callers,
    ledger,
    cursors,
    logger,
    clock,
    draining: false,
  };
  // Before any request is admitted: what a stopped server left unanswered is settled.
  await nodes.start();
  const watcher = new PublicationWatcher(mirror, publications, logger, fittedOpener(engine, opener), openRelease);
  await watcher.start(config.catalogPollMs);
  // The embedded store belongs to this process alone: an export left running was this server's, before a crash.
  await runner.start({ resumeRunning: store.kind === 'pglite' });
  ledger.startCompacting(config.ledgerCompactMs);
  // Operator commands (accounts, keys) reach the embedded store this process holds through its admin socket.
  const admin = state?.lock ? await startAdminSocket(socket, store, logger) : undefined;

  let closing: Promise<void> | undefined;
  const close = (drain: () => Promise<void> = () => Promise.resolve()) => {
    const exportsStopped = runner.stop();
    return (closing ??= drain().finally(async () => {
      if (admin) await new Promise<void>((done) => admin.close(() => done()));
      // A publication being opened is closed before the stores and the engine it writes with.
      await watcher.close();
      await exportsStopped;
      // Requests answered during the drain settle before the store closes.
      await meter.stop();
      await callers.close();
      await nodes.stop();
      await ledger.stopCompacting();
      await publications.closeNow();
      await library.closeNow();
      await releases.closeNow();
      await Promise.all([feed.close(), trends.close()]);
      engine.close();
      await state?.close();
      stores.close();
    }));
  };
  return { ctx, watcher, exportRunner: runner, close };
}
