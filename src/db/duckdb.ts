// DuckDB for batch work (publishing, reports): one instance with bounded threads, memory and spill folder.

import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { sqlString } from './sql-literal.js';

export interface DuckOptions {
  /** A database file; in memory when undefined. */
  path?: string;
  threads?: number;
  /** e.g. "4GB": beyond it DuckDB spills to tempDir. */
  memoryLimit?: string;
  tempDir?: string;
}

export type Params = DuckDBValue[] | Record<string, DuckDBValue>;

export class Duck {
  private constructor(
    private readonly instance: DuckDBInstance,
    readonly connection: DuckDBConnection,
  ) {}

  static async open(options: DuckOptions = {}): Promise<Duck> {
    // Insertion order is not needed by any statement (each says ORDER BY where order matters), and
    // keeping it costs memory on large copies.
    const settings: Record<string, string> = { threads: String(options.threads ?? 2), preserve_insertion_order: 'false' };
    if (options.memoryLimit) settings.memory_limit = options.memoryLimit;
    if (options.tempDir) settings.temp_directory = options.tempDir;
    const instance = await DuckDBInstance.create(options.path ?? ':memory:', settings);
    const connection = await instance.connect();
    await connection.run("SET TimeZone = 'UTC'");
    return new Duck(instance, connection);
  }

  async run(sql: string, params?: Params): Promise<void> {
    await this.connection.run(sql, params);
  }

  /** All rows as plain JSON-compatible objects (numbers beyond 2^53 come back as strings). */
  async all<Row = Record<string, unknown>>(sql: string, params?: Params): Promise<Row[]> {
    const reader = await this.connection.runAndReadAll(sql, params);
    return reader.getRowObjectsJson() as Row[];
  }

  async one<Row = Record<string, unknown>>(sql: string, params?: Params): Promise<Row | undefined> {
    return (await this.all<Row>(sql, params))[0];
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}

/** A SQL literal for a string or number parameter. */
function literal(value: DuckDBValue): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return sqlString(value);
  throw new Error(`cannot inline ${typeof value} into SQL`);
}

/**
 * Runs statements in order; each receives only the named parameters ($watermark, $dir, ...) it uses.
 * Views cannot take prepared parameters, so in a CREATE VIEW they are inlined as escaped literals.
 */
export async function runScript(duck: Duck, statements: readonly string[], params: Record<string, DuckDBValue> = {}): Promise<void> {
  for (const original of statements) {
    const isView = /^CREATE\s+(OR\s+REPLACE\s+)?VIEW\b/i.test(original);
    const statement = isView ? original.replace(/\$([a-z_]+)/g, (_, name: string) => literal(params[name]!)) : original;
    const used: Record<string, DuckDBValue> = {};
    for (const [, name] of statement.matchAll(/\$([a-z_]+)/g)) {
      if (!(name! in params)) throw new Error(`SQL needs the parameter $${name} (${statement.slice(0, 80)})`);
      used[name!] = params[name!]!;
    }
    try {
      const started = performance.now();
      await duck.run(statement, Object.keys(used).length > 0 ? used : undefined);
      if (process.env.JPS_SQL_TIMING)
        process.stderr.write(
          `    ${(performance.now() - started).toFixed(0).padStart(6)} ms  ${statement.replace(/\s+/g, ' ').slice(0, 90)}\n`,
        );
    } catch (error) {
      const head = statement.split('\n').slice(0, 2).join(' ').slice(0, 160);
      throw new Error(`${(error as Error).message}\n    in: ${head}`, { cause: error });
    }
  }
}
