// The serving tables' shared pieces: the {name} holes of their statements, and the codes of their
// low-cardinality values (sql/serve/catalog.sql), for a publication's own tables and its versions'.

import type { DuckDBConnection } from '@duckdb/node-api';

/** Fills the {name} holes of a serving statement with table prefixes and quoted paths. */
export function fill(sql: string, values: Record<string, string>): string {
  return sql.replace(/\{([a-z]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`serving SQL needs {${name}}`);
    return value;
  });
}

export type Codes = Map<string, Map<string, number>>;

export async function readCodes(c: DuckDBConnection, prefix: string): Promise<Codes> {
  const codes: Codes = new Map();
  for (const [kind, value, code] of (await c.runAndReadAll(`SELECT kind, value, code FROM ${prefix}codes`)).getRows()) {
    let values = codes.get(kind as string);
    if (!values) codes.set(kind as string, (values = new Map<string, number>()));
    values.set(value as string, code as number);
  }
  return codes;
}
