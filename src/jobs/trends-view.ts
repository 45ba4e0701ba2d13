// A publication's versions opened for GET /v1/jobs/trends (docs/adr/0012-trends.md): the serving tables
// of its trends/ folder, made by the statements that make the publication's own (so a trend filters
// them with the SQL of a count), each version's span of publications, where its text is indexed, and the
// groups it counts in.

import { join } from 'node:path';
import { exists } from '../catalog/files.js';
import { trendsFolder } from '../catalog/layout.js';
import type { QueryEngine } from '../db/engine.js';
import { namedQueries, namedScripts } from '../db/sql-files.js';
import { sqlString as quote } from '../db/sql-literal.js';
import type { InvertedIndex } from '../search/inverted-index.js';
import { buildIndexes } from './snapshot-indexes.js';
import type { GroupBy } from './groups.js';
import { fill, readCodes, type Codes } from './serving-tables.js';
import { readGroupColumns, type GroupColumn } from './trend-groups.js';

const CATALOG = namedQueries('serve/catalog.sql', ['files', 'postings', 'locations', 'codes', 'masks', 'jobs']);
const TRENDS = namedQueries('serve/trends.sql', ['numbered', 'spans', 'publications', 'texts', 'own_texts']);
const { spanned: SPANNED } = namedScripts('serve/trends.sql', ['spanned']);
/** In creation order, as the publication's own (sql/serve/catalog.sql), then the spans. */
const TABLES = ['files', 'numbered', 'postings', 'locations', 'codes', 'masks', 'jobs', 'spans'] as const;

export interface TrendsView {
  /** Table name prefix of the versions' serving tables ({prefix}jobs has first_point and end_point). */
  prefix: string;
  codes: Codes;
  /** The publications a trend reads, oldest first: a point is a place in this list. */
  publications: string[];
  /** Number of versions (documents). */
  size: number;
  /** Per version: the first publication it holds at, and the first it no longer does (publications.length: still holds). */
  firstPoint: Uint8Array;
  endPoint: Uint8Array;
  /** Per version: its job's document in the publication when its text is that job's, else -1 - its place in `own`. */
  textDoc: Int32Array;
  /** The text indexes of the versions whose text is their own (no longer their job's). */
  own: { title: InvertedIndex; description: InvertedIndex };
  /** Per group_by, the groups each version counts in. */
  groups: Map<GroupBy, GroupColumn>;
}

/**
 * The versions of the publication in `dir` whose own serving tables are named with `latest`, under prefix
 * `prefix`; null when the publication has no trends/ folder (published before trends).
 */
export async function openTrends(engine: QueryEngine, dir: string, latest: string, prefix: string): Promise<TrendsView | null> {
  const folder = trendsFolder(dir);
  const versions = join(folder, 'versions.parquet');
  if (!(await exists(versions)) || !(await exists(join(folder, 'publications.parquet')))) return null;
  const holes = {
    p: prefix,
    name: prefix.slice(prefix.lastIndexOf('.') + 1),
    files: `[${quote(versions)}]`,
    publications: quote(join(folder, 'publications.parquet')),
    latest,
    dir: '',
    added: '',
  };
  const statements = { ...CATALOG, ...TRENDS };
  await engine.withConnection(async (c) => {
    for (const name of TABLES) await c.run(fill(statements[name], holes));
    for (const statement of SPANNED) await c.run(fill(statement, holes));
    await c.run(`DROP TABLE ${prefix}masks`);
  });
  const read = (sql: string) => engine.withConnection(async (c) => (await c.runAndReadAll(fill(sql, holes))).getRows());
  const publications = (await read(TRENDS.publications)).map(([w]) => w as string);
  const codes = await engine.withConnection((c) => readCodes(c, prefix));
  const rows = await read(TRENDS.texts);
  const firstPoint = new Uint8Array(rows.length);
  const endPoint = new Uint8Array(rows.length);
  const textDoc = new Int32Array(rows.length);
  rows.forEach(([first, end, text], doc) => {
    firstPoint[doc] = first as number;
    endPoint[doc] = end as number;
    textDoc[doc] = text as number;
  });
  const ownCount = textDoc.reduce((n, t) => (t < 0 ? n + 1 : n), 0);
  const own = await buildIndexes(ownTextsSql(versions), folder, ownCount, () => undefined);
  const groups = await readGroupColumns(engine, prefix, rows.length);
  return {
    prefix,
    codes,
    publications,
    size: rows.length,
    firstPoint,
    endPoint,
    textDoc,
    own: { title: own.title, description: own.description },
    groups,
  };
}

/** The query of the versions' own texts in the versions file at `versions`, which the trends/ text index holds. */
export const ownTextsSql = (versions: string) => fill(TRENDS.own_texts, { files: `[${quote(versions)}]` });
