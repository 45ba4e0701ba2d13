// The groups of the versions, as numbers: per version, the codes of the groups of each group_by it counts
// in, read from the versions' serving tables when they open. A trend with a group then adds up the spans
// of the matching versions per code in one loop, as a trend without one does, instead of grouping
// millions of rows in SQL for each request (docs/adr/0012-trends.md).

import type { DuckDBIntegerVector, DuckDBVarCharVector } from '@duckdb/node-api';
import type { QueryEngine } from '../db/engine.js';
import { GROUP_BY, GROUPS, listed, type GroupBy } from './groups.js';
import { shared, sharedCopy, type Codes } from './trend-count.js';

/**
 * A group_by's groups of every version: version `doc` counts in group codes[doc] and, for a group of
 * several values a version, in group more.codes[i] for each i where more.docs[i] is `doc` (in doc order).
 * Most versions have one value (a state, a metro area): they need nothing more.
 */
export interface GroupColumn {
  /**
   * The group of each code: the values in DuckDB's order (as count's ORDER BY value sorts them), then
   * null, the group of versions with no value. Comparing codes compares values as count does.
   */
  names: (string | null)[];
  /** In as few bytes as the number of groups allows, as more.codes. */
  codes: Codes;
  /** The versions' other groups; null for a group of one value a version. */
  more: Listed | null;
  /** Of `more`, those of the versions that hold at the latest publication (a trend's first pass reads them). */
  moreAtLatest: Listed | null;
}

/** Groups listed with their versions: version docs[i] counts in group codes[i]. */
export interface Listed {
  docs: Uint32Array;
  codes: Codes;
}

/** `values` (group codes below `groups`) in the narrowest array that holds them, in memory a worker thread shares. */
function narrow(values: Uint32Array, groups: number): Codes {
  const n = values.length;
  const into: Codes = groups <= 0xff ? shared(Uint8Array, n) : groups <= 0xffff ? shared(Uint16Array, n) : shared(Uint32Array, n);
  into.set(values);
  return into;
}

/** The rows (doc, value) of each version's values of a group (none: one row, null), as count groups them. */
function valuesOf(groupBy: GroupBy, p: string): string {
  const source = GROUPS[groupBy];
  const column = `j.${source.column}`;
  switch (source.shape) {
    case 'one':
      return `SELECT j.doc, ${source.name ? source.name(column) : column} AS value FROM ${p}jobs j`;
    case 'list':
      return `SELECT j.doc, ${listed(column)} AS value FROM ${p}jobs j`;
    case 'coded':
      return `SELECT j.doc, c.value FROM (SELECT doc, unnest(${source.column}) AS code FROM ${p}jobs) j
        LEFT JOIN ${p}codes c ON c.kind = '${source.kind}' AND c.code = j.code`;
  }
}

/** How many rows valuesOf gives: at least one a version. */
function rowsOf(groupBy: GroupBy, p: string): string {
  const { shape, column } = GROUPS[groupBy];
  return shape === 'one' ? `SELECT count(*) FROM ${p}jobs` : `SELECT sum(greatest(len(${column}), 1)) FROM ${p}jobs`;
}

/**
 * The column of every group_by over the versions `${prefix}jobs` (`size` of them): about 36 bytes a version
 * for all of them (83 MB at 2.34 million versions, so about 210 MB at the 5.9 million of 30 days of a
 * million jobs), skills the most (35 MB: several a version), work_arrangement the least (one byte a version).
 */
export async function readGroupColumns(
  engine: QueryEngine,
  prefix: string,
  size: number,
  /** Per version, 1 when it holds at the latest publication. */
  atLatest: Uint8Array,
): Promise<Map<GroupBy, GroupColumn>> {
  const columns = new Map<GroupBy, GroupColumn>();
  for (const groupBy of GROUP_BY) columns.set(groupBy, await readColumn(engine, prefix, size, groupBy, atLatest));
  return columns;
}

/**
 * One query, its rows in no order (sorting millions of rows took a third of the time): the groups'
 * names (doc -1) with their codes, numbered in the values' order, and each version's codes (-1 when it
 * has no value: the null group, which takes the code after the names'), placed by their doc here.
 */
async function readColumn(engine: QueryEngine, prefix: string, size: number, groupBy: GroupBy, atLatest: Uint8Array): Promise<GroupColumn> {
  const sql = `WITH v AS MATERIALIZED (${valuesOf(groupBy, prefix)}),
    n AS MATERIALIZED (SELECT value, (row_number() OVER (ORDER BY value) - 1)::INTEGER AS code FROM (SELECT DISTINCT value FROM v WHERE value IS NOT NULL))
    SELECT -1 AS doc, code, value FROM n
    UNION ALL SELECT v.doc, coalesce(n.code, -1), NULL FROM v LEFT JOIN n USING (value)`;
  const [[rows]] = (await engine.rows(rowsOf(groupBy, prefix))) as [[bigint | number | null]];
  const named: [number, string | null][] = [];
  // Each version's rows, as they come: (doc, code) pairs; the null group's code is not known yet.
  const docs = new Uint32Array(Number(rows ?? 0));
  const codes = new Uint32Array(docs.length);
  let filled = 0;
  await eachRow(engine, sql, (doc, code, value) => {
    if (doc < 0) named.push([code, value]);
    else if (doc >= size || filled === docs.length)
      throw new Error(`the ${groupBy} groups of ${prefix}jobs are not one row or more a version`);
    else {
      docs[filled] = doc;
      codes[filled++] = code < 0 ? NONE : code;
    }
  });
  const names: (string | null)[] = new Array<string | null>(named.length);
  for (const [code, value] of named) names[code] = value;
  names.push(null);
  const groups = names.length;
  const codeOf = (i: number) => (codes[i] === NONE ? groups - 1 : codes[i]!);
  if (GROUPS[groupBy].shape === 'one') {
    if (filled !== size) throw new Error(`the ${groupBy} groups of ${prefix}jobs are not one a version`);
    const byDoc = new Uint32Array(size);
    for (let i = 0; i < filled; i++) byDoc[docs[i]!] = codeOf(i);
    return { names, codes: narrow(byDoc, groups), more: null, moreAtLatest: null };
  }
  // Each version's codes together, versions in doc order; the first is the version's code, the others more.
  const offsets = new Uint32Array(size + 1);
  for (let i = 0; i < filled; i++) offsets[docs[i]! + 1]! += 1;
  for (let doc = 0; doc < size; doc++) offsets[doc + 1]! += offsets[doc]!;
  const next = offsets.slice(0, size);
  const byDoc = new Uint32Array(filled);
  for (let i = 0; i < filled; i++) byDoc[next[docs[i]!]!++] = codeOf(i);
  const first = new Uint32Array(size);
  const more = { docs: new Uint32Array(filled - size), codes: new Uint32Array(filled - size) };
  let m = 0;
  for (let doc = 0; doc < size; doc++) {
    if (offsets[doc] === offsets[doc + 1]) throw new Error(`version ${doc} of ${prefix}jobs has no ${groupBy} group`);
    first[doc] = byDoc[offsets[doc]!]!;
    for (let i = offsets[doc]! + 1; i < offsets[doc + 1]!; i++, m++) {
      more.docs[m] = doc;
      more.codes[m] = byDoc[i]!;
    }
  }
  const latest = more.docs.filter((doc) => atLatest[doc] === 1).length;
  const moreAtLatest = { docs: new Uint32Array(latest), codes: new Uint32Array(latest) };
  for (let i = 0, l = 0; i < more.docs.length; i++)
    if (atLatest[more.docs[i]!] === 1) {
      moreAtLatest.docs[l] = more.docs[i]!;
      moreAtLatest.codes[l++] = more.codes[i]!;
    }
  return { names, codes: narrow(first, groups), more: shareListed(more, groups), moreAtLatest: shareListed(moreAtLatest, groups) };
}

/** `docs` and `codes` in memory a worker thread shares, the codes as narrow as `groups` allows. */
function shareListed({ docs, codes }: { docs: Uint32Array; codes: Uint32Array }, groups: number): Listed {
  return { docs: sharedCopy(docs), codes: narrow(codes, groups) };
}

/** A version's code while the names are still being read: no value. */
const NONE = 0xffffffff;

/** Calls `visit` with each row (an INTEGER, an INTEGER, a VARCHAR) of `sql`, a chunk at a time. */
async function eachRow(engine: QueryEngine, sql: string, visit: (a: number, b: number, c: string | null) => void): Promise<void> {
  await engine.withConnection(async (c) => {
    const result = await c.run(sql);
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      const [a, b, text] = [0, 1, 2].map((i) => chunk.getColumnVector(i)) as [
        DuckDBIntegerVector,
        DuckDBIntegerVector,
        DuckDBVarCharVector,
      ];
      for (let row = 0; row < chunk.rowCount; row++) visit(a.getItem(row)!, b.getItem(row)!, text.getItem(row));
    }
  });
}
