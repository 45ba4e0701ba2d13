// The shared state store: a PostgreSQL server reached by URL, for several API replicas.

import pg from 'pg';
import type { Queryable, StateStore } from './state-store.js';

export class PgStore implements StateStore {
  readonly kind = 'postgres' as const;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
  ) {}

  static async open(url: string): Promise<PgStore> {
    // Dates and days are UTC throughout (spec 8): the session time zone too, whatever the server's default.
    const pool = new pg.Pool({ connectionString: url, max: 10, options: '-c TimeZone=UTC' });
    pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it on next use.
    });
    await pool.query('SELECT 1');
    return new PgStore(pool, url);
  }

  async query<Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    const result = await this.pool.query(sql, params as unknown[]);
    return result.rows as Row[];
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work({
        query: async <Row>(sql: string, params: readonly unknown[] = []) => (await client.query(sql, params as unknown[])).rows as Row[],
      });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** LISTEN on a connection of its own, outside the pool (a pooled connection is shared between queries). */
  async listen(channel: string, onNotice: (payload: string) => void, onLost: () => void): Promise<() => Promise<void>> {
    const client = new pg.Client({ connectionString: this.url });
    let closing = false;
    const lost = () => {
      if (closing) return;
      closing = true;
      onLost();
      void client.end().catch(() => undefined);
    };
    client.on('notification', (notice) => {
      if (notice.channel === channel) onNotice(notice.payload ?? '');
    });
    client.on('error', lost);
    client.on('end', lost);
    await client.connect();
    await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    return async () => {
      closing = true;
      await client.end().catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
