// The server's DuckDB: one in-memory database holding the serving tables of the open snapshots, and
// a small pool of connections. @duckdb/node-api runs each query on libuv's thread pool (4 threads
// by default, shared with fs and zlib), so the pool stays below it: more concurrent queries than
// threads would stall the process. A query running past the time limit is interrupted.

import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { ApiError } from '../errors.js';

export class QueryEngine {
  private readonly idle: DuckDBConnection[] = [];
  private readonly waiting: ((c: DuckDBConnection) => void)[] = [];

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly timeoutMs: number,
  ) {}

  static async open(options: { threads?: number; connections?: number; timeoutMs: number }): Promise<QueryEngine> {
    const instance = await DuckDBInstance.create(':memory:', { threads: String(options.threads ?? 2) });
    const engine = new QueryEngine(instance, options.timeoutMs);
    for (let i = 0; i < (options.connections ?? 3); i++) {
      const c = await instance.connect();
      await c.run("SET TimeZone = 'UTC'");
      engine.idle.push(c);
    }
    return engine;
  }

  /** Runs `work` with a connection of the pool, waiting for one when all are busy. */
  async withConnection<T>(work: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const c = this.idle.pop() ?? (await new Promise<DuckDBConnection>((resolve) => this.waiting.push(resolve)));
    try {
      return await work(c);
    } finally {
      const next = this.waiting.shift();
      if (next) next(c);
      else this.idle.push(c);
    }
  }

  /** Runs `work` with a connection under the time limit: past it the query is interrupted (504 query_timeout). */
  private timed<T>(work: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    return this.withConnection(async (c) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        c.interrupt();
      }, this.timeoutMs);
      try {
        return await work(c);
      } catch (error) {
        if (timedOut) throw new ApiError('query_timeout');
        throw error;
      } finally {
        clearTimeout(timer);
      }
    });
  }

  /** Rows of a parameterised query as arrays. */
  async rows(sql: string, params: Record<string, DuckDBValue> = {}): Promise<unknown[][]> {
    return this.timed(async (c) => (await c.runAndReadAll(sql, Object.keys(params).length > 0 ? params : undefined)).getRows());
  }

  /** Marks in `into` every value of the query's single INTEGER column (document numbers), chunk by chunk. */
  async mark(sql: string, params: Record<string, DuckDBValue>, into: Uint8Array): Promise<void> {
    await this.timed(async (c) => {
      const result = await c.stream(sql, Object.keys(params).length > 0 ? params : undefined);
      for (;;) {
        const chunk = await result.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        const vector = chunk.getColumnVector(0);
        for (let i = 0; i < chunk.rowCount; i++) into[vector.getItem(i) as number] = 1;
      }
    });
  }

  close(): void {
    for (const c of this.idle) c.closeSync();
    this.instance.closeSync();
  }
}
