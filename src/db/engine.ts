// The server's DuckDB: one in-memory database holding the serving tables of the open snapshots, and
// a small pool of connections. @duckdb/node-api runs each query on libuv's thread pool (4 threads
// by default, shared with fs and zlib), so the pool stays below it: more concurrent queries than
// threads would stall the process. A query running past the time limit is interrupted.

import { DuckDBInstance, type DuckDBBitValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { ApiError } from '../errors.js';

/** Rows of a DuckDB row group, its unit of parallel work (DuckDB's default row_group_size). */
const ROW_GROUP_ROWS = 122_880;

export class QueryEngine {
  private readonly idle: DuckDBConnection[] = [];
  private readonly waiting: ((c: DuckDBConnection) => void)[] = [];

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly timeoutMs: number,
    private readonly threads: number,
  ) {}

  static async open(options: { threads?: number; connections?: number; timeoutMs: number }): Promise<QueryEngine> {
    // Insertion order kept (DuckDB's default, said here because it is relied on): the job documents are
    // written in doc order by copying the jobs files in order, without a sort (sql/serve/catalog.sql).
    const threads = options.threads ?? 2;
    const instance = await DuckDBInstance.create(':memory:', { threads: String(threads), preserve_insertion_order: 'true' });
    const engine = new QueryEngine(instance, options.timeoutMs, threads);
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

  /**
   * Marks in `into` every value of the query's single INTEGER column (document numbers, 0 to
   * into.length - 1). DuckDB folds them into one bitstring (bitstring_agg), so a million matches come
   * back as 125 KB in one row rather than as a million values.
   */
  async mark(sql: string, params: Record<string, DuckDBValue>, into: Uint8Array): Promise<void> {
    if (into.length === 0) return;
    const [[bits]] = (await this.rows(`SELECT bitstring_agg(doc, 0, ${into.length - 1}) FROM (${sql}) AS matching(doc)`, params)) as [
      [DuckDBBitValue | null],
    ];
    if (bits === null) return;
    // BIT's bytes: the number of padding bits, then the bits, most significant first, padding first.
    const data = bits.data;
    const padding = data[0]!;
    for (let byte = 1; byte < data.length; byte++) {
      const value = data[byte]!;
      if (value === 0) continue;
      for (let bit = 0; bit < 8; bit++) {
        const doc = (byte - 1) * 8 + bit - padding;
        if (doc >= 0 && (value & (0x80 >> bit)) !== 0) into[doc] = 1;
      }
    }
  }

  /**
   * Fits DuckDB's threads to a catalog of `jobs` jobs: one while its tables fit in one row group (DuckDB
   * splits a scan by row group, so a second thread has nothing to scan and only adds the cost of its
   * per-thread states), the engine's threads beyond.
   */
  async fitThreads(jobs: number): Promise<void> {
    const threads = jobs < ROW_GROUP_ROWS ? 1 : this.threads;
    await this.withConnection((c) => c.run(`SET threads = ${threads}`));
  }

  close(): void {
    for (const c of this.idle) c.closeSync();
    this.instance.closeSync();
  }
}
