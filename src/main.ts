// Wiring only: config → stores → app → listen, and an orderly drain on close.

import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Publications } from './catalog/publications.js';
import type { Config } from './config.js';
import { openState } from './db/open-state.js';
import type { StateStore } from './db/state-store.js';
import { adminSocketPath, startAdminSocket } from './http/admin-socket.js';
import { createApp } from './http/app.js';
import type { AppContext } from './http/context.js';
import { createLogger } from './logger.js';
import { PublicationWatcher } from './catalog/watcher.js';
import { join } from 'node:path';
import { CursorSigner } from './jobs/cursor.js';
import { CompanyReleases, companyReleaseOpener } from './companies/releases.js';
import { CompaniesService } from './companies/service.js';
import { QueryEngine } from './jobs/engine.js';
import { JobsService } from './jobs/service.js';
import { jobsSnapshotOpener } from './jobs/snapshot.js';
import { ChangeFeed } from './feed/feed.js';
import { Exports } from './exports/exports.js';
import { ExportRunner, type RunnerOptions } from './exports/runner.js';
import { Meter } from './metering/meter.js';
import { Ledger } from './metering/ledger.js';

export interface Service {
  url: string;
  ctx: AppContext;
  /** Looks for new publications; tests call check() instead of waiting for the next poll. */
  watcher: PublicationWatcher;
  /** Runs queued exports; tests wait for it with idle(). */
  exportRunner: ExportRunner;
  /** Stops accepting requests, lets those in flight finish (up to shutdownTimeoutMs), closes the stores. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** An already open store (tests); otherwise the configured one is opened, locked and migrated. */
  store?: StateStore;
  logger?: Logger;
  clock?: () => Date;
  /** Export runner knobs for tests: jobs per file, and a hook called as each file is listed. */
  exportRunner?: Pick<RunnerOptions, 'fileRecords' | 'onFileWritten'>;
}

export async function startService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const socket = adminSocketPath(config.dataDir);
  const state = options.store ? undefined : await openState(config, { role: 'server', socket });
  const store = options.store ?? state!.store;
  const publications = new Publications();
  const engine = await QueryEngine.open({ timeoutMs: config.queryTimeoutMs });
  const cursors = await CursorSigner.open(config.dataDir);
  const jobs = new JobsService(engine, cursors);
  const openRelease = companyReleaseOpener(engine);
  const releases = new CompanyReleases(publications, config.snapshotsDir, openRelease);
  const companies = new CompaniesService(engine, releases, cursors);
  const feed = new ChangeFeed(engine, join(config.dataDir, 'feed'), cursors, logger);
  const clock = options.clock ?? (() => new Date());
  const exports = new Exports(store, jobs, publications, join(config.dataDir, 'exports'), clock, () => runner.kick());
  const meter = new Meter(store, clock, logger);
  const ledger = new Ledger(store, engine, join(config.dataDir, 'ledger'), logger);
  const runner = new ExportRunner(exports, store, jobs, engine, publications, clock, logger, meter, { leaseMs: config.exportLeaseMs, pollMs: 1000, ...options.exportRunner });
  const ctx: AppContext = { config, store, publications, jobs, companies, feed, exports, meter, ledger, cursors, logger, clock, draining: false };
  const opener = feed.opener(jobsSnapshotOpener(engine, join(config.dataDir, 'serving'), logger));
  const watcher = new PublicationWatcher(config.snapshotsDir, publications, logger, opener, openRelease);
  await watcher.start(config.catalogPollMs);
  // The embedded store belongs to this process alone: an export left running was this server's, before a crash.
  await runner.start({ resumeRunning: store.kind === 'pglite' });
  ledger.startCompacting(config.ledgerCompactMs);

  const server = createServer(createApp(ctx));
  server.listen(config.port, config.host);
  await once(server, 'listening');
  const admin = state?.lock ? await startAdminSocket(socket, store, logger) : undefined;
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, store: store.kind, data_dir: config.dataDir }, 'listening');

  let closing: Promise<void> | undefined;
  const close = () => {
    // Exports stop first, after the file being written: they resume on the next start.
    const exportsStopped = runner.stop();
    return (closing ??= drain(ctx, server, admin, config.shutdownTimeoutMs).finally(async () => {
      watcher.stop();
      await exportsStopped;
      // Requests answered during the drain settle before the store closes.
      await meter.idle();
      await ledger.stopCompacting();
      await publications.closeNow();
      await releases.closeNow();
      await feed.close();
      engine.close();
      await state?.close();
    }));
  };
  return { url, ctx, watcher, exportRunner: runner, close };
}

async function drain(ctx: AppContext, server: Server, admin: Server | undefined, timeoutMs: number): Promise<void> {
  ctx.draining = true;
  ctx.logger.info('draining: no new connections, waiting for requests in flight');
  const closed = new Promise<void>((done) => server.close(() => done()));
  // A keep-alive connection turns idle when its last response ends: close those as they appear.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
  await closed;
  clearInterval(sweep);
  clearTimeout(deadline);
  if (admin) await new Promise<void>((done) => admin.close(() => done()));
  ctx.logger.info('stopped');
}
