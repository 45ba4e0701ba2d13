// The groups of the versions, as numbers: per version, the codes of the groups of each group_by it counts
// in, read from the versions' serving tables when they open. A trend with a group then adds up the spans
// of the matching versions per code in one loop, as a trend without one does, instead of grouping
// millions of rows in SQL for each request (docs/adr/0012-trends.md).

import type { DuckDBIntegerVector, DuckDBVarCharVector } from '@duckdb/node-api';
import type { QueryEngine } from '../db/engine.js';
import { GROUP_BY, type GroupBy } from './service.js';

type Codes = Uint8Array | Uint16Array | Uint32Array;

/**
 * A group_by's groups of every version: version `doc` counts in groups codes[offsets[doc] .. offsets[doc + 1]),
 * or, where every version counts in one group (offsets null), in group codes[doc].
 */
export interface GroupColumn {
  /** The group of each code; null: the group of versions with no value. */
  names: (string | null)[];
  offsets: Uint32Array | null;
  /** In as few bytes as the number of groups allows. */
  codes: Codes;
}

/** `values` (group codes below `groups`) in the narrowest array that holds them. */
function narrow(values: Uint32Array, groups: number): Codes {
  if (groups <= 0xff) return Uint8Array.from(values);
  if (groups <= 0xffff) return Uint16Array.from(values);
  return values;
}

/** The rows (doc, value) of each version's values of a group (none: one row, null): what a count groups (groupedSql in service.ts). */
function valuesOf(groupBy: GroupBy, p: string): string {
  const one = (value: string) => `SELECT j.doc, ${value} AS value FROM ${p}jobs j`;
  // The codes a version's row lists for its locations' or postings' values (distinct; none: -1), named.
  const coded = (kind: string, column: string) =>
    `SELECT j.doc, c.value FROM (SELECT doc, unnest(${column}) AS code FROM ${p}jobs) j LEFT JOIN ${p}codes c ON c.kind = '${kind}' AND c.code = j.code`;
  const values: Record<GroupBy, string> = {
    employer: one('j.employer_name'),
    company_id: one('j.company_id'),
    work_arrangement: one(`[NULL, 'remote', 'hybrid', 'in_person'][j.work_arrangement + 1]`),
    currentness: one(`['current', 'uncertain', 'not_current'][j.currentness + 1]`),
    pay_band: one('j.pay_band'),
    soc_code: one('j.soc_code'),
    soc_major: one(`left(j.soc_code, 3) || '0000'`),
    // A job's skills are distinct.
    skills: one('unnest(CASE WHEN len(j.skills) > 0 THEN j.skills ELSE [NULL] END)'),
    country: coded('country', 'country_codes'),
    state: coded('subdivision', 'subdivision_codes'),
    msa: coded('msa', 'msa_codes'),
    employment_type: coded('employment_type', 'employment_codes'),
    source_class: coded('source_class', 'class_codes'),
  };
  return values[groupBy];
}

/** A version's code while the names are still being read: no value. */
const NONE = 0xffffffff;

/**
 * The column of every group_by over the versions `${prefix}jobs` (`size` of them): about 45 bytes a version
 * for all of them (54 MB at 1.19 million versions, so about 200 MB at the 4.3 million of 30 days of a
 * million jobs), skills the most (several a version), work_arrangement the least (one byte a version).
 */
export async function readGroupColumns(engine: QueryEngine, prefix: string, size: number): Promise<Map<GroupBy, GroupColumn>> {
  const columns = new Map<GroupBy, GroupColumn>();
  for (const groupBy of GROUP_BY) columns.set(groupBy, await readColumn(engine, prefix, size, groupBy));
  return columns;
}

/**
 * One query, its rows in no order (sorting millions of rows took a third of the time): the groups'
 * names (doc -1) with their codes, in the order of the names, and each version's codes (-1 when it has
 * no value: the null group, which takes the code after the names'), placed by their doc here.
 */
async function readColumn(engine: QueryEngine, prefix: string, size: number, groupBy: GroupBy): Promise<GroupColumn> {
  const sql = `WITH v AS MATERIALIZED (${valuesOf(groupBy, prefix)}),
    n AS MATERIALIZED (SELECT value, (row_number() OVER (ORDER BY value) - 1)::INTEGER AS code FROM (SELECT DISTINCT value FROM v WHERE value IS NOT NULL))
    SELECT -1 AS doc, code, value FROM n
    UNION ALL SELECT v.doc, coalesce(n.code, -1), NULL FROM v LEFT JOIN n USING (value)`;
  const named: [number, string | null][] = [];
  let pairs = { docs: new Uint32Array(size), codes: new Uint32Array(size) };
  let filled = 0;
  await engine.withConnection(async (c) => {
    const result = await c.run(sql);
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      const docs = chunk.getColumnVector(0) as DuckDBIntegerVector;
      const codes = chunk.getColumnVector(1) as DuckDBIntegerVector;
      const values = chunk.getColumnVector(2) as DuckDBVarCharVector;
      for (let row = 0; row < chunk.rowCount; row++) {
        const doc = docs.getItem(row)!;
        const code = codes.getItem(row)!;
        if (doc < 0) {
          named.push([code, values.getItem(row)]);
          continue;
        }
        if (filled === pairs.docs.length) pairs = grown(pairs, filled * 2);
        pairs.docs[filled] = doc;
        pairs.codes[filled++] = code < 0 ? NONE : code;
      }
    }
  });
  const names: (string | null)[] = new Array<string | null>(named.length);
  for (const [code, value] of named) names[code] = value;
  // The versions without a value count in the group after the named ones.
  names.push(null);
  const groups = names.length;
  const codeOf = (i: number) => (pairs.codes[i] === NONE ? groups - 1 : pairs.codes[i]!);
  if (filled === size) {
    // One value each (every version has a row): the codes by doc.
    const codes = new Uint32Array(size);
    for (let i = 0; i < filled; i++) codes[pairs.docs[i]!] = codeOf(i);
    return { names, offsets: null, codes: narrow(codes, groups) };
  }
  // Several values to some versions: each version's codes together, versions in doc order.
  const offsets = new Uint32Array(size + 1);
  for (let i = 0; i < filled; i++) offsets[pairs.docs[i]! + 1]! += 1;
  for (let doc = 0; doc < size; doc++) offsets[doc + 1]! += offsets[doc]!;
  const next = offsets.slice(0, size);
  const codes = new Uint32Array(filled);
  for (let i = 0; i < filled; i++) codes[next[pairs.docs[i]!]!++] = codeOf(i);
  return { names, offsets, codes: narrow(codes, groups) };
}

/** `pairs` in arrays of `length`. */
function grown(pairs: { docs: Uint32Array; codes: Uint32Array }, length: number) {
  const docs = new Uint32Array(length);
  const codes = new Uint32Array(length);
  docs.set(pairs.docs);
  codes.set(pairs.codes);
  return { docs, codes };
}
