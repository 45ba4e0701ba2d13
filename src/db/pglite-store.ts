// The embedded state store: PGlite in this process, persisted under the data folder (or in memory).

import { PGlite } from '@electric-sql/pglite';
import { chmod, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Queryable, StateStore } from './state-store.js';

/**
 * PGlite lays out a new database from its bundled template with mode 0666 on every file, whatever the
 * process's umask; the files PostgreSQL creates later are 0600. The store holds key hashes and
 * balances: its files are made its owner's alone when it opens and when it closes.
 */
async function ownerOnly(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      await chmod(path, 0o700);
      await ownerOnly(path);
    } else if (entry.isFile()) await chmod(path, 0o600);
  }
}

/** Shared buffers for a store that holds few rows or lives briefly (a command, a test): set up in a fraction of 128MB's time. */
export const SMALL_BUFFERS = '16MB';

export class PgliteStore implements StateStore {
  readonly kind = 'pglite' as const;

  private constructor(
    private readonly db: PGlite,
    private readonly dir: string | undefined,
  ) {}

  /**
   * Opens the store in `dir`, or in memory when `dir` is undefined. `image` seeds a new store from a dump;
   * `sharedBuffers` (e.g. '16MB') replaces PostgreSQL's default of 128MB for this run: PostgreSQL zeroes its
   * buffers as it starts, a third of a short command's start, while the files stay in the OS's cache.
   */
  static async open(dir: string | undefined, options: { image?: Blob; sharedBuffers?: string } = {}): Promise<PgliteStore> {
    const { image, sharedBuffers } = options;
    const db = await PGlite.create({
      ...(dir ? { dataDir: dir } : {}),
      ...(image ? { loadDataDir: image } : {}),
      ...(sharedBuffers ? { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`] } : {}),
    });
    if (dir) await ownerOnly(dir);
    return new PgliteStore(db, dir);
  }

  async query<Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    const result = await this.db.query<Row>(sql, params as unknown[]);
    return result.rows;
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) =>
      work({ query: async <Row>(sql: string, params: readonly unknown[] = []) => (await tx.query<Row>(sql, params as unknown[])).rows }),
    );
  }

  /** PGlite is in this process: a notice is delivered with the result of the statement whose commit sent it, never lost. */
  async listen(channel: string, onNotice: (payload: string) => void): Promise<() => Promise<void>> {
    return this.db.listen(channel, onNotice);
  }

  /** A compressed copy of the whole database, to seed other stores quickly (tests). */
  async dump(): Promise<Blob> {
    return this.db.dumpDataDir('none');
  }

  async close(): Promise<void> {
    await this.db.close();
    if (this.dir) await ownerOnly(this.dir);
  }
}
