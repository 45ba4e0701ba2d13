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
import { shared } from './trend-count.js';
import { readGroupColumns, type GroupColumn } from './trend-groups.js';

const CATALOG = namedQueries('serve/catalog.sql', ['postings', 'locations', 'codes', 'masks', 'jobs']);
const TRENDS = namedQueries('serve/trends.sql', ['ordered', 'numbered', 'spans', 'publications', 'texts', 'own_texts']);
const { spanned: SPANNED } = namedScripts('serve/trends.sql', ['spanned']);
/** In creation order, as the publication's own (sql/serve/catalog.sql), then the spans. */
const TABLES = ['ordered', 'numbered', 'postings', 'locations', 'codes', 'masks', 'jobs', 'spans'] as const;

/** The most publications a trend reads: a span fits in two bytes. */
const MAX_PUBLICATIONS = 255;

export interface TrendsView {
  /** Table name prefix of the versions' serving tables ({prefix}jobs has first_point and end_point). */
  prefix: string;
  codes: Codes;
  /** The publications a trend reads, oldest first: a point is a place in this list. */
  publications: string[];
  /** Number of versions (documents). */
  size: number;
  /**
   * Per version, its span: first × (publications.length + 1) + end, where `first` is the first publication
   * it holds at and `end` the first it no longer does (publications.length: it still holds).
   */
  span: Uint16Array;
  /** The text indexes of the versions whose text is their own (no longer their job's). */
  own: { title: InvertedIndex; description: InvertedIndex };
  /**
   * Where each version's text is indexed. The versions whose text is their job's in the publication come
   * first, in the order of the job's document: those of document `doc` are textRuns[doc] ..
   * textRuns[doc + 1] - 1. The version of own text `place` is ownFrom + place.
   */
  textRuns: Uint32Array;
  ownFrom: number;
  /** Per group_by, the groups each version counts in. */
  groups: Map<GroupBy, GroupColumn>;
}

/**
 * The versions of the publication in `dir`, under prefix `prefix`; the publication's own serving tables
 * (`latest.documents` jobs) are named with `latest.prefix`. Null when the publication has no trends/
 * folder (published before trends).
 */
export async function openTrends(
  engine: QueryEngine,
  dir: string,
  latest: { prefix: string; documents: number },
  prefix: string,
): Promise<TrendsView | null> {
  const folder = trendsFolder(dir);
  const versions = join(folder, 'versions.parquet');
  if (!(await exists(versions)) || !(await exists(join(folder, 'publications.parquet')))) return null;
  const holes = {
    p: prefix,
    name: prefix.slice(prefix.lastIndexOf('.') + 1),
    files: `[${quote(versions)}]`,
    publications: quote(join(folder, 'publications.parquet')),
    latest: latest.prefix,
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
  if (publications.length > MAX_PUBLICATIONS)
    throw new Error(`${folder} holds ${publications.length} publications; a trend reads ${MAX_PUBLICATIONS} at most`);
  const span = shared(Uint16Array, rows.length);
  const textDoc = new Int32Array(rows.length);
  rows.forEach(([first, end, text], doc) => {
    span[doc] = (first as number) * (publications.length + 1) + (end as number);
    textDoc[doc] = text as number;
  });
  const { textRuns, ownFrom } = runsOfTexts(textDoc, latest.documents);
  const own = await buildIndexes(ownTextsSql(versions), folder, rows.length - ownFrom, () => undefined);
  const groups = await readGroupColumns(engine, prefix, span, publications.length + 1);
  return {
    prefix,
    codes,
    publications,
    size: rows.length,
    span,
    own: { title: own.title, description: own.description },
    textRuns,
    ownFrom,
    groups,
  };
}

/**
 * The query of the versions' own texts in the versions file at `versions`, which the trends/ text index
 * holds: of every row, or of the rows `rows` (from, to: file row numbers) alone.
 */
export const ownTextsSql = (versions: string, [from, to]: [number, number] = [0, Number.MAX_SAFE_INTEGER]) =>
  fill(TRENDS.own_texts, { files: `[${quote(versions)}]`, from: String(from), to: String(to) });

/**
 * textRuns and ownFrom (TrendsView) from each version's text: its job's document among the publication's
 * `documents` (never decreasing), or -1 - its place among the own texts (after all the others, in order).
 */
export function runsOfTexts(textDoc: Int32Array, documents: number): { textRuns: Uint32Array; ownFrom: number } {
  const textRuns = new Uint32Array(documents + 1);
  let version = 0;
  for (let doc = 0; doc < documents; doc++) {
    while (version < textDoc.length && textDoc[version] === doc) version++;
    textRuns[doc + 1] = version;
  }
  for (let place = 0; version + place < textDoc.length; place++)
    if (textDoc[version + place] !== -1 - place)
      throw new Error(`version ${version + place} is out of the order of texts (sql/serve/trends.sql: ordered)`);
  return { textRuns, ownFrom: version };
}
