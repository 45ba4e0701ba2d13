// A catalog snapshot opened for serving: narrow in-memory DuckDB tables for the filters, the job
// documents as JSON Lines in the serving cache (read by offset), and the text indexes. All of it
// is derived from the snapshot's Parquet files and can be rebuilt at any time (DESIGN.md 3).

import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { removeDeadTemporaries } from '../catalog/files.js';
import { lineFile, readLineBytes, readLines, writeOnce } from './line-file.js';
import { withoutUnstatedArrangement } from './json-bytes.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Logger } from 'pino';
import { CATALOG_FORMAT, readCatalogManifest, servingFolder, type CatalogManifest } from '../catalog/layout.js';
import type { CatalogSnapshot } from '../catalog/publications.js';
import type { SnapshotOpener } from '../catalog/watcher.js';
import { namedQueries, namedScripts } from '../db/sql-files.js';
import { buildIndexes, writeIndexFiles } from './snapshot-indexes.js';
import type { InvertedIndex } from '../search/inverted-index.js';
import type { QueryEngine } from '../db/engine.js';
import { withProgress, type OpenProgress, type ProgressOptions } from './open-progress.js';
import { sqlString as quote } from '../db/sql-literal.js';
import { fill, readCodes, type Codes } from './serving-tables.js';
import { openTrends, type TrendsView } from './trends-view.js';

export { fill, type Codes } from './serving-tables.js';

const SQL = namedQueries('serve/catalog.sql', [
  'files',
  'numbered',
  'postings',
  'locations',
  'codes',
  'masks',
  'jobs',
  'redirects',
  'withdrawn',
  'documents',
  'source_data',
  'texts',
]);
const { macros: MACROS } = namedScripts('serve/catalog.sql', ['macros']);
/** In creation order; `numbered` is a view over the jobs files, the others are tables. */
const TABLES = ['files', 'numbered', 'postings', 'locations', 'codes', 'masks', 'jobs', 'redirects', 'withdrawn'] as const;

export interface JobsSnapshot extends CatalogSnapshot {
  /** Table name prefix of this snapshot: its own in-memory database in the engine, e.g. "c3.". */
  prefix: string;
  /** The small numbers of low-cardinality values, per kind (source, country, ...): see the codes table. */
  codes: Codes;
  /** Number of jobs (documents). */
  size: number;
  docOfOrd: Uint32Array;
  ordOfDoc: Uint32Array;
  /** Each document's place among the job ids in ascending order: ties of relevance break on it. */
  idRank: Uint32Array;
  /** The documents in ascending job_id order (idRank's inverse). */
  docOfIdRank: Uint32Array;
  jobIds: string[];
  docById: Map<string, number>;
  title: InvertedIndex;
  description: InvertedIndex;
  /**
   * The jobs as JSON (UTF-8 bytes), as the API returns them by default (no source_data), in the order of
   * `docs`; `bulk` (an export, an MCP file) leaves the documents kept in memory as they are (line-file.ts).
   */
  readDocuments(docs: readonly number[], bulk?: boolean): Promise<Buffer[]>;
  /** Per job, the source_data of its postings, in posting order. */
  readSourceData(docs: readonly number[]): Promise<Record<string, unknown>[][]>;
  /** The versions GET /v1/jobs/trends reads; null for a publication made before trends. */
  trends: TrendsView | null;
}

let opened = 0;

/**
 * Opens snapshots into `engine`, keeping their documents under `cacheDir/<watermark>/`, and saying how far
 * it is every `progressOptions.intervalMs`; each snapshot keeps up to `documentCacheBytes` of the
 * documents it read last in memory.
 */
export function jobsSnapshotOpener(
  engine: QueryEngine,
  cacheDir: string,
  logger: Logger,
  progressOptions: ProgressOptions = { intervalMs: 0 },
  documentCacheBytes = 0,
): SnapshotOpener {
  const live = new Set<string>();
  const open = (dir: string, watermark: string, progress: OpenProgress) =>
    inOwnDatabase(engine, (database) => openInto(database, dir, watermark, progress));
  const openInto = async (database: string, dir: string, watermark: string, progress: OpenProgress): Promise<JobsSnapshot> => {
    const started = performance.now();
    const manifest = await readCatalogManifest(dir);
    const prefix = `${database}.`;
    const holes = await holesOf(dir, prefix, manifest.format);
    // Built once at publish (the publication's serving/), or, for an older publication, by this server into its cache.
    const folder = manifest.serving_files ? servingFolder(dir) : join(cacheDir, watermark);
    // The cache keeps only what open snapshots without serving files read.
    if (!manifest.serving_files) live.add(watermark);
    await removeStaleCaches(cacheDir, live);
    await mkdir(folder, { recursive: true });
    // What a server killed while writing this cache left.
    await removeDeadTemporaries(folder);
    // The text indexes are read or built in a worker thread meanwhile.
    progress.set('indexes', { step: 'starting the text index worker' });
    const indexes = buildIndexes(fill(SQL.texts, holes), folder, manifest.counts.jobs, (step) => progress.set('indexes', step));
    indexes.catch(() => undefined); // awaited below; a failure is reported there

    await createServingTables(engine, holes, prefix, progress);
    progress.set('tables', { step: 'reading the job ids' });
    const { docOfOrd, ordOfDoc, idRank, docOfIdRank, jobIds, docById } = await engine.withConnection((c) => readIdentity(c, prefix));
    const codes = await engine.withConnection((c) => readCodes(c, prefix));
    progress.set('tables', { step: 'opening the versions of the recent publications (trends/)' });
    const trends = await openTrends(engine, dir, { prefix, documents: jobIds.length }, `${prefix}t_`);
    progress.set('tables', { step: 'compressing the serving tables' });
    await engine.withConnection((c) => c.run(`CHECKPOINT ${database}`));

    const { documents, sourceData } = await openLineFiles(engine, folder, holes, jobIds.length, progress, documentCacheBytes);

    progress.done('tables');
    const { title, description, fromCache, writeError } = await indexes;
    if (writeError)
      logger.warn(
        { watermark, error: writeError },
        'the text indexes could not be kept in the serving cache; the next open builds them again',
      );

    await logOpened(engine, logger, {
      watermark,
      jobs: jobIds.length,
      open_ms: Math.round(performance.now() - started),
      indexes: fromCache ? 'read from the serving cache' : 'built',
      index_bytes: title.bytes + description.bytes,
    });
    const snapshot: JobsSnapshot = {
      watermark,
      dir,
      manifest: manifest satisfies CatalogManifest,
      prefix,
      codes,
      size: jobIds.length,
      docOfOrd,
      ordOfDoc,
      idRank,
      docOfIdRank,
      jobIds,
      docById,
      title,
      description,
      trends,
      readDocuments: (docs, bulk = false) => Promise.resolve(readLineBytes(documents, docs, !bulk)),
      readSourceData: (docs) =>
        Promise.resolve(readLines(sourceData, docs).map((line) => (JSON.parse(line) as { s: Record<string, unknown>[] }).s)),
      close: async () => {
        live.delete(watermark);
        await documents.handle.close();
        await sourceData.handle.close();
        await engine.withConnection((c) => c.run(`DETACH ${database}`));
      },
    };
    return snapshot;
  };
  return (dir, watermark) =>
    withProgress(`opening catalog snapshot ${watermark}`, logger, progressOptions, (progress) => open(dir, watermark, progress));
}

/**
 * Runs `work` with a database of its own in the engine, named c1, c2, ...: a snapshot's tables there are
 * compressed once built (CHECKPOINT), which need not wait for the queries on the snapshot being served,
 * and dropped whole (DETACH) when it closes, or here when `work` fails.
 */
async function inOwnDatabase<T>(engine: QueryEngine, work: (database: string) => Promise<T>): Promise<T> {
  const database = `c${++opened}`;
  await engine.withConnection((c) => c.run(`ATTACH ':memory:' AS ${database} (COMPRESS)`));
  try {
    return await work(database);
  } catch (error) {
    await engine.withConnection((c) => c.run(`DETACH DATABASE IF EXISTS ${database}`));
    throw error;
  }
}

/** The job documents and the source data, one line per job: written into `folder` unless there already. */
async function openLineFiles(
  engine: QueryEngine,
  folder: string,
  holes: Record<string, string>,
  jobs: number,
  progress: OpenProgress,
  documentCacheBytes: number,
) {
  progress.set('tables', { step: 'writing or reading the job documents (documents.jsonl)' });
  const documentsSql = fill(SQL.documents, { ...holes, out: '{out}' });
  // Kept and given as the API answers a job by default: without an unstated work_arrangement.
  const documents = await lineFile(engine, join(folder, 'documents.jsonl'), documentsSql, jobs, {
    recentBytes: documentCacheBytes,
    prepare: withoutUnstatedArrangement,
  });
  progress.set('tables', { step: 'writing or reading the source data (source-data.jsonl)' });
  const sourceData = await lineFile(engine, join(folder, 'source-data.jsonl'), fill(SQL.source_data, { ...holes, out: '{out}' }), jobs);
  return { documents, sourceData };
}

/** The snapshot's serving tables, named with `prefix`, created one by one with their progress. */
async function createServingTables(
  engine: QueryEngine,
  holes: Record<string, string>,
  prefix: string,
  progress: OpenProgress,
): Promise<void> {
  await engine.withConnection(async (c) => {
    for (const statement of MACROS) await c.run(statement);
    for (const [done, name] of TABLES.entries()) {
      progress.set('tables', { step: `creating the serving tables (${name})`, done, total: TABLES.length, unit: 'tables' });
      await c.run(fill(SQL[name], holes));
    }
    await c.run(`DROP TABLE ${prefix}masks`);
  });
}

/** Logs an opened snapshot with what the process and DuckDB hold then, in MiB. */
async function logOpened(
  engine: QueryEngine,
  logger: Logger,
  facts: { watermark: string; jobs: number; open_ms: number; indexes: string; index_bytes: number },
): Promise<void> {
  const { index_bytes: indexBytes, ...fields } = facts;
  const memory = process.memoryUsage();
  const [[duckdbBytes]] = (await engine.rows('SELECT sum(memory_usage_bytes)::DOUBLE FROM duckdb_memory()')) as [[number]];
  const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
  logger.info(
    {
      ...fields,
      index_mib: mib(indexBytes),
      rss_mib: mib(memory.rss),
      heap_mib: mib(memory.heapUsed),
      array_buffers_mib: mib(memory.arrayBuffers),
      duckdb_mib: mib(duckdbBytes),
    },
    'catalog snapshot opened for serving',
  );
}

/**
 * The publisher's half of an open: writes into `folder` what serving reads of the snapshot in `dir`
 * (the job documents, the source data, the text indexes), without the serving tables. The text
 * indexes of its `jobs` jobs build in `workers` worker threads meanwhile (inline when few), and so does
 * `meanwhile` (the publisher writes the feed then).
 */
export async function writeServingFiles(
  engine: QueryEngine,
  dir: string,
  folder: string,
  indexing: { workers: number; jobs: number },
  meanwhile: () => Promise<void>,
): Promise<void> {
  const prefix = `w${++opened}_`;
  const holes = await holesOf(dir, prefix, CATALOG_FORMAT);
  await mkdir(folder, { recursive: true });
  const texts = (files: string[]) => fill(SQL.texts, { ...holes, files: `[${files.map(quote).join(', ')}]` });
  const indexes = writeIndexFiles(texts, await jobsFiles(dir), folder, indexing);
  indexes.catch(() => undefined); // awaited below
  await engine.withConnection(async (c) => {
    for (const statement of MACROS) await c.run(statement);
    await c.run(fill(SQL.files, holes));
    await c.run(fill(SQL.numbered, holes));
  });
  try {
    await writeOnce(engine, join(folder, 'documents.jsonl'), fill(SQL.documents, { ...holes, out: '{out}' }));
    await writeOnce(engine, join(folder, 'source-data.jsonl'), fill(SQL.source_data, { ...holes, out: '{out}' }));
  } finally {
    await engine.withConnection(async (c) => {
      await c.run(`DROP VIEW IF EXISTS ${prefix}numbered`);
      await c.run(`DROP TABLE IF EXISTS ${prefix}files`);
    });
  }
  await meanwhile();
  await indexes;
}

/** The jobs files' columns each catalog format added, as nulls for a snapshot of an older format. */
const ADDED_COLUMNS: readonly [format: string, nulls: string][] = [
  [
    'jps-catalog/2',
    ', NULL::STRUCT(soc_code VARCHAR, title VARCHAR) AS occupation' +
      ', NULL::STRUCT(currency VARCHAR, floor DOUBLE, ceiling DOUBLE, "interval" VARCHAR) AS description_pay',
  ],
  [
    'jps-catalog/3',
    ', NULL::VARCHAR[] AS skills, NULL::INTEGER AS reposts, NULL::INTEGER AS days_open' +
      ', NULL::TIMESTAMPTZ AS last_verified_at, NULL::BOOLEAN AS listed_by_employer',
  ],
];

/**
 * The holes of the serving statements for the snapshot in `dir` (of catalog `format`) under table prefix
 * `prefix`: its jobs files, its folder, and the columns its format lacks.
 */
async function holesOf(dir: string, prefix: string, format: string): Promise<Record<'p' | 'files' | 'dir' | 'added', string>> {
  const from = ADDED_COLUMNS.findIndex(([added]) => added === format);
  const added = ADDED_COLUMNS.slice(from === -1 ? 0 : from + 1)
    .map(([, nulls]) => nulls)
    .join('');
  return { p: prefix, files: `[${(await jobsFiles(dir)).map(quote).join(', ')}]`, dir: quote(dir), added };
}

/** The jobs files of the snapshot in `dir`, in doc order. */
async function jobsFiles(dir: string): Promise<string[]> {
  const files = (await readdir(dir))
    .filter((f) => /^jobs(-\d+-of-\d+)?\.parquet$/.test(f))
    .sort()
    .map((f) => join(dir, f));
  if (files.length === 0) throw new Error(`the snapshot in ${dir} has no jobs files`);
  return files;
}

async function readIdentity(c: DuckDBConnection, prefix: string) {
  const reader = await c.runAndReadAll(
    `SELECT doc, ord, job_id, (row_number() OVER (ORDER BY job_id) - 1)::INTEGER FROM ${prefix}jobs ORDER BY doc`,
  );
  const rows = reader.getRows();
  const docOfOrd = new Uint32Array(rows.length);
  const ordOfDoc = new Uint32Array(rows.length);
  const idRank = new Uint32Array(rows.length);
  const docOfIdRank = new Uint32Array(rows.length);
  const jobIds: string[] = new Array<string>(rows.length);
  const docById = new Map<string, number>();
  for (const [doc, ord, jobId, rank] of rows) {
    ordOfDoc[doc as number] = ord as number;
    docOfOrd[ord as number] = doc as number;
    idRank[doc as number] = rank as number;
    docOfIdRank[rank as number] = doc as number;
    jobIds[doc as number] = jobId as string;
    docById.set(jobId as string, doc as number);
  }
  return { docOfOrd, ordOfDoc, idRank, docOfIdRank, jobIds, docById };
}

/** Removes the cached documents of snapshots no longer open (and leftovers of interrupted writes). */
async function removeStaleCaches(cacheDir: string, live: Set<string>): Promise<void> {
  await mkdir(cacheDir, { recursive: true });
  for (const name of await readdir(cacheDir)) if (!live.has(name)) await rm(join(cacheDir, name), { recursive: true, force: true });
}
