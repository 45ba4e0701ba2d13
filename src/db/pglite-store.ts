// The embedded state store: PGlite in this process, persisted under the data folder (or in memory).

import { PGlite } from '@electric-sql/pglite';
import type { Queryable, StateStore } from './state-store.js';

export class PgliteStore implements StateStore {
  readonly kind = 'pglite' as const;

  private constructor(private readonly db: PGlite) {}

  /** Opens the store in `dir`, or in memory when `dir` is undefined; `image` seeds a new store from a dump. */
  static async open(dir: string | undefined, image?: Blob): Promise<PgliteStore> {
    const db = await PGlite.create({ ...(dir ? { dataDir: dir } : {}), ...(image ? { loadDataDir: image } : {}) });
    return new PgliteStore(db);
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

  /** A compressed copy of the whole database, to seed other stores quickly (tests). */
  async dump(): Promise<Blob> {
    return this.db.dumpDataDir('none');
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
