// What every handler and MCP tool may use: configuration, stores, the published catalog and registry, the clock, the logger.

import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { StateStore } from './db/state-store.js';
import type { Publications } from './catalog/publications.js';
import type { CompaniesService } from './companies/service.js';
import type { JobsService } from './jobs/service.js';
import type { TrendsService } from './jobs/trends.js';
import type { ChangeFeed } from './feed/feed.js';
import type { Exports } from './exports/exports.js';
import type { Meter } from './metering/meter.js';
import type { Callers } from './metering/callers.js';
import type { Ledger } from './metering/ledger.js';
import type { CursorSigner } from './shared/cursor.js';
import type { Stores } from './storage/stores.js';

export interface AppContext {
  config: Config;
  store: StateStore;
  /** Where publications, export files, ledger segments and MCP files are kept: a shared object store, or this node's folders. */
  stores: Stores;
  publications: Publications;
  jobs: JobsService;
  trends: TrendsService;
  companies: CompaniesService;
  feed: ChangeFeed;
  exports: Exports;
  meter: Meter;
  /** The callers (a key and its account) this server authenticated, forgotten as soon as the store says they changed. */
  callers: Callers;
  ledger: Ledger;
  cursors: CursorSigner;
  logger: Logger;
  /** The time as the service sees it; tests move it to cross a window, a day or a month without sleeping. */
  clock: () => Date;
  /** True once shutdown has begun: health answers 503 so load balancers stop sending traffic. */
  draining: boolean;
}
