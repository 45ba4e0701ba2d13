// The groups of the versions, as numbers: for each group_by, the codes of the groups each version counts
// in (or, for many groups, the versions of each group), read from the versions' serving tables when they
// open. A trend with a group then adds up the spans of the matching versions per group in one loop, as a
// trend without one does, instead of grouping millions of rows in SQL for each request
// (docs/adr/0012-trends.md).

import type { DuckDBIntegerVector, DuckDBVarCharVector } from '@duckdb/node-api';
import type { QueryEngine } from '../db/engine.js';
import { GROUP_BY, GROUPS, listed, type GroupBy } from './groups.js';
import { shared, sharedCopy } from './trend-count.js';

/**
 * A group_by's groups of every version. A column of few groups (work arrangement, states, metro areas)
 * lists each version's codes, and a trend counts every group in one pass over them; one of many (employers,
 * skills) lists each group's versions, and a trend counts only the 25 groups it shows (src/jobs/trend-tally.ts).
 */
export type GroupColumn = CodedColumn | MembersColumn;

interface Named {
  /**
   * The group of each code: the values in DuckDB's order (as count's ORDER BY value sorts them), then
   * null, the group of versions with no value. Comparing codes compares values as count does.
   */
  names: (string | null)[];
}

/**
 * At most CODED_UP_TO groups: version `doc` counts in group codes[doc] and, for a group of several values a
 * version, in group more.codes[i] for each i where more.docs[i] is `doc` (in doc order). Most versions have
 * one value (a state, a metro area): they need nothing more.
 */
export interface CodedColumn extends Named {
  codes: Uint8Array;
  /** The versions' other groups; null for a group of one value a version. */
  more: Listed | null;
}

/** Groups listed with their versions: version docs[i] counts in group codes[i]. */
export interface Listed {
  docs: Uint32Array;
  codes: Uint8Array;
}

/** More groups: each group's versions. */
export interface MembersColumn extends Named {
  members: Members;
}

/**
 * Group g's versions are docs[start[g]] .. docs[start[g + 1] - 1]: first those that hold at the latest
 * publication (up to latestEnd[g]), then the others, each part in order of span, then of doc; spans[i] is
 * the span of docs[i]. A trend reads the spans in order, next to the docs, and sums the versions of one span
 * in a register (src/jobs/trend-count.ts): reading each version's span where it lies, a cache miss each, took
 * 6 to 10 times as long on day 16 of a million jobs (docs/adr/0012-trends.md).
 */
export interface Members {
  docs: Uint32Array;
  spans: Uint16Array;
  start: Uint32Array;
  latestEnd: Uint32Array;
  /** The groups, those with the most versions at the latest publication first. */
  largestFirst: Uint32Array;
}

/** The most groups a column codes (one byte a version); a column of more lists each group's versions. */
export const CODED_UP_TO = 256;

/**
 * Each version's codes, as a query reads them: version doc's are byDoc[offsets[doc]] ..
 * byDoc[offsets[doc + 1] - 1], or byDoc[doc] alone when offsets is null.
 */
export interface VersionCodes {
  size: number;
  offsets: Uint32Array | null;
  byDoc: Uint32Array;
}

/** Calls `visit` with each version's codes, versions in doc order or in the order of `order` (docs). */
function eachCode({ size, offsets, byDoc }: VersionCodes, visit: (doc: number, code: number) => void, order?: Uint32Array): void {
  for (let place = 0; place < size; place++) {
    const doc = order ? order[place]! : place;
    if (offsets === null) visit(doc, byDoc[doc]!);
    else for (let i = offsets[doc]!; i < offsets[doc + 1]!; i++) visit(doc, byDoc[i]!);
  }
}

/** The versions (docs) in order of span, then of doc: a counting sort, spans being fewer than 2^16. */
function bySpan(span: Uint16Array): Uint32Array {
  const next = new Uint32Array(2 ** 16 + 1);
  for (const s of span) next[s + 1]! += 1;
  for (let s = 1; s < next.length; s++) next[s]! += next[s - 1]!;
  const order = new Uint32Array(span.length);
  for (let doc = 0; doc < span.length; doc++) order[next[span[doc]!]!++] = doc;
  return order;
}

/** The coded column of `names` (at most CODED_UP_TO) from each version's codes, in memory a worker thread shares. */
export function codedColumn(names: (string | null)[], versions: VersionCodes): CodedColumn {
  if (names.length > CODED_UP_TO) throw new Error(`${names.length} groups are too many to code in a byte`);
  const { size, offsets, byDoc } = versions;
  if (offsets === null) return { names, codes: sharedCopy(Uint8Array.from(byDoc)), more: null };
  const codes = shared(Uint8Array, size);
  const more = { docs: shared(Uint32Array, byDoc.length - size), codes: shared(Uint8Array, byDoc.length - size) };
  for (let doc = 0, m = 0; doc < size; doc++) {
    codes[doc] = byDoc[offsets[doc]!]!;
    for (let i = offsets[doc]! + 1; i < offsets[doc + 1]!; i++, m++) {
      more.docs[m] = doc;
      more.codes[m] = byDoc[i]!;
    }
  }
  return { names, codes, more };
}

/**
 * The members column of `names` from each version's codes and spans (TrendsView.span, of `width`: end ==
 * width - 1 means the version holds at the latest publication), in memory a worker thread shares.
 */
export function membersColumn(names: (string | null)[], versions: VersionCodes, span: Uint16Array, width: number): MembersColumn {
  const groups = names.length;
  const holds = (doc: number) => (span[doc]! % width === width - 1 ? 1 : 0);
  const start = new Uint32Array(groups + 1);
  const atLatest = new Uint32Array(groups);
  eachCode(versions, (doc, code) => {
    start[code + 1]! += 1;
    atLatest[code]! += holds(doc);
  });
  for (let code = 0; code < groups; code++) start[code + 1]! += start[code]!;
  const latestEnd = Uint32Array.from(atLatest, (n, code) => start[code]! + n);
  const docs = shared(Uint32Array, start[groups]!);
  const spans = shared(Uint16Array, docs.length);
  const [latest, others] = [start.slice(0, groups), latestEnd.slice()];
  eachCode(
    versions,
    (doc, code) => {
      const at = holds(doc) === 1 ? latest[code]!++ : others[code]!++;
      docs[at] = doc;
      spans[at] = span[doc]!;
    },
    bySpan(span),
  );
  const largestFirst = Uint32Array.from(names, (_, code) => code).sort((x, y) => atLatest[y]! - atLatest[x]! || x - y);
  return { names, members: { docs, spans, start, latestEnd, largestFirst } };
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
 * The column of every group_by over the versions `${prefix}jobs` (`size` of them): one byte a version for
 * a coded column of one value a version, four a version for a members column of one (employer), and more
 * for several a version (skills: about 3.2 a version).
 */
export async function readGroupColumns(
  engine: QueryEngine,
  prefix: string,
  /** Per version, its span, of `width` (TrendsView.span). */
  span: Uint16Array,
  width: number,
  codedUpTo = CODED_UP_TO,
): Promise<Map<GroupBy, GroupColumn>> {
  const columns = new Map<GroupBy, GroupColumn>();
  for (const groupBy of GROUP_BY) {
    const { names, versions } = await readCodes(engine, prefix, span.length, groupBy);
    columns.set(groupBy, names.length <= codedUpTo ? codedColumn(names, versions) : membersColumn(names, versions, span, width));
  }
  return columns;
}

/**
 * One query, its rows in no order (sorting millions of rows took a third of the time): the groups'
 * names (doc -1) with their codes, numbered in the values' order, and each version's codes (-1 when it
 * has no value: the null group, which takes the code after the names'), placed by their doc here.
 */
async function readCodes(
  engine: QueryEngine,
  prefix: string,
  size: number,
  groupBy: GroupBy,
): Promise<{ names: (string | null)[]; versions: VersionCodes }> {
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
  const codeOf = (i: number) => (codes[i] === NONE ? names.length - 1 : codes[i]!);
  if (GROUPS[groupBy].shape === 'one') {
    if (filled !== size) throw new Error(`the ${groupBy} groups of ${prefix}jobs are not one a version`);
    const byDoc = new Uint32Array(size);
    for (let i = 0; i < filled; i++) byDoc[docs[i]!] = codeOf(i);
    return { names, versions: { size, offsets: null, byDoc } };
  }
  // Each version's codes together, versions in doc order.
  const offsets = new Uint32Array(size + 1);
  for (let i = 0; i < filled; i++) offsets[docs[i]! + 1]! += 1;
  for (let doc = 0; doc < size; doc++) {
    if (offsets[doc + 1] === 0) throw new Error(`version ${doc} of ${prefix}jobs has no ${groupBy} group`);
    offsets[doc + 1]! += offsets[doc]!;
  }
  const next = offsets.slice(0, size);
  const byDoc = new Uint32Array(filled);
  for (let i = 0; i < filled; i++) byDoc[next[docs[i]!]!++] = codeOf(i);
  return { names, versions: { size, offsets, byDoc } };
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
