// Opens the configured state store (a PostgreSQL URL, else embedded PGlite under the data folder) and migrates it.

import { join } from 'node:path';
import type { Config } from '../config.js';
import { migrate } from './migrate.js';
import { PgliteStore, SMALL_BUFFERS } from './pglite-store.js';
import { PgStore } from './pg-store.js';
import { PgliteThreadStore } from './pglite-thread-store.js';
import type { StateStore } from './state-store.js';
import { StoreLock, type LockHolder } from './store-lock.js';
import { OperatorError } from '../shared/operator-error.js';
import { journalDir, replayJournal, type JournalReplay } from '../metering/journal.js';

export class StoreBusyError extends OperatorError {
  constructor(
    readonly holder: LockHolder,
    dataDir: string,
    hint?: string,
  ) {
    super(
      holder.role === 'server'
        ? `a server (pid ${holder.pid}) is already serving the data folder ${dataDir}; ${hint ?? 'stop it or give this one another --data-dir'}`
        : `the state store in ${dataDir} is in use by a CLI command (pid ${holder.pid}); try again when it finishes`,
    );
  }
}

export interface OpenedState {
  store: StateStore;
  /** Held while the embedded store is open; undefined for a PostgreSQL server, which has its own locking. */
  lock?: StoreLock;
  /** The embedded store's meter journal, as its opening settled it. */
  journal?: JournalReplay;
  close(): Promise<void>;
}

/** Opens the store for this process, or throws StoreBusyError when another live process holds the embedded one. */
export async function openState(config: Config, holder: Omit<LockHolder, 'pid' | 'started_at'>): Promise<OpenedState> {
  if (config.databaseUrl) {
    const store = await PgStore.open(config.databaseUrl);
    await migrate(store);
    return { store, close: () => store.close() };
  }
  const taken = StoreLock.acquire(config.dataDir, holder);
  if (!(taken instanceof StoreLock)) throw new StoreBusyError(taken.heldBy, config.dataDir);
  try {
    // A command runs a few statements: PostgreSQL's 128MB of buffers would take longer to set up than to use.
    // A server's buffers are its configuration's (--state-buffers).
    const dir = join(config.dataDir, 'state');
    const store =
      holder.role === 'cli'
        ? await PgliteStore.open(dir, { sharedBuffers: SMALL_BUFFERS })
        : await PgliteThreadStore.open(dir, { sharedBuffers: config.stateBuffers });
    await migrate(store);
    // What a server stopped by kill -9 settled in memory and journaled is settled in the store first.
    const journal = await replayJournal(store, journalDir(config.dataDir));
    return {
      store,
      journal,
      lock: taken,
      close: async () => {
        await store.close();
        taken.release();
      },
    };
  } catch (error) {
    taken.release();
    throw error;
  }
}
