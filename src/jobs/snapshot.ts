// A catalog snapshot opened for serving: narrow in-memory DuckDB tables for the filters, the job
// documents as JSON Lines in the serving cache (read by offset), and the text indexes. All of it
// is derived from the snapshot's Parquet files and can be rebuilt at any time (DESIGN.md 3).

import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Logger } from 'pino';
import { readCatalogManifest, type CatalogManifest } from '../catalog/layout.js';
import type { CatalogSnapshot } from '../catalog/publications.js';
import type { SnapshotOpener } from '../catalog/watcher.js';
import { namedQueries } from '../db/sql-files.js';
import { IndexBuilder, type InvertedIndex } from '../search/inverted-index.js';
import type { QueryEngine } from './engine.js';

const SQL = namedQueries('serve/catalog.sql', ['files', 'postings', 'locations', 'codes', 'masks', 'jobs', 'redirects', 'withdrawn', 'documents', 'texts']);
const TABLES = ['files', 'postings', 'locations', 'codes', 'masks', 'jobs', 'redirects', 'withdrawn'] as const;

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** Fills the {name} holes of a serving statement with table prefixes and quoted paths. */
function fill(sql: string, values: Record<string, string>): string {
  return sql.replace(/\{([a-z]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`serving SQL needs {${name}}`);
    return value;
  });
}

export interface JobsSnapshot extends CatalogSnapshot {
  /** Table name prefix of this snapshot in the engine's database, e.g. "c3_". */
  prefix: string;
  /** The small numbers of low-cardinality values, per kind (source, country, ...): see the codes table. */
  codes: Codes;
  /** Number of jobs (documents). */
  size: number;
  docOfOrd: Uint32Array;
  ordOfDoc: Uint32Array;
  jobIds: string[];
  docById: Map<string, number>;
  title: InvertedIndex;
  description: InvertedIndex;
  /** The jobs as the API returns them (source_data included), in the order of `docs`. */
  readDocuments(docs: readonly number[]): Promise<Record<string, unknown>[]>;
}

let opened = 0;

/** Opens snapshots into `engine`, keeping their documents under `cacheDir/<watermark>/`. */
export function jobsSnapshotOpener(engine: QueryEngine, cacheDir: string, logger: Logger): SnapshotOpener {
  const live = new Set<string>();
  return async (dir, watermark) => {
    const started = performance.now();
    const manifest = await readCatalogManifest(dir);
    const prefix = `c${++opened}_`;
    const files = (await readdir(dir)).filter((f) => /^jobs(-\d+-of-\d+)?\.parquet$/.test(f)).map((f) => join(dir, f));
    if (files.length === 0) throw new Error(`snapshot ${watermark} has no jobs files`);
    const holes = { p: prefix, files: `[${files.map(quote).join(', ')}]`, dir: quote(dir) };

    await engine.withConnection(async (c) => {
      for (const name of TABLES) await c.run(fill(SQL[name], holes));
      await c.run(`DROP TABLE ${prefix}masks`);
    });
    const { docOfOrd, ordOfDoc, jobIds, docById } = await engine.withConnection((c) => readIdentity(c, prefix));
    const codes = await engine.withConnection((c) => readCodes(c, prefix));

    const folder = join(cacheDir, watermark);
    const documents = join(folder, 'documents.jsonl');
    live.add(watermark);
    await removeStaleCaches(cacheDir, live);
    if (!(await exists(documents))) {
      await mkdir(folder, { recursive: true });
      const tmp = `${documents}.tmp-${process.pid}`;
      await engine.withConnection((c) => c.run(fill(SQL.documents, { ...holes, out: quote(tmp) })));
      await rename(tmp, documents);
    }
    const offsets = await lineOffsets(documents, jobIds.length);
    const handle = await open(documents, 'r');

    const titles = new IndexBuilder();
    const descriptions = new IndexBuilder();
    await engine.withConnection(async (c) => {
      const result = await c.stream(fill(SQL.texts, holes));
      for (;;) {
        const chunk = await result.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        for (const [title, description] of chunk.getRows()) {
          titles.add(title as string | null);
          descriptions.add(description as string | null);
        }
      }
    });
    const title = titles.build();
    const description = descriptions.build();

    logger.info(
      { watermark, jobs: jobIds.length, open_ms: Math.round(performance.now() - started), index_mib: Math.round((title.bytes + description.bytes) / 2 ** 20) },
      'catalog snapshot opened for serving',
    );
    const snapshot: JobsSnapshot = {
      watermark,
      dir,
      manifest: manifest satisfies CatalogManifest,
      prefix,
      codes,
      size: jobIds.length,
      docOfOrd,
      ordOfDoc,
      jobIds,
      docById,
      title,
      description,
      readDocuments: (docs) => readLines(handle, offsets, docs),
      close: async () => {
        live.delete(watermark);
        await handle.close();
        await engine.withConnection(async (c) => {
          for (const table of TABLES) await c.run(`DROP TABLE IF EXISTS ${prefix}${table}`);
        });
      },
    };
    return snapshot;
  };
}

export type Codes = Map<string, Map<string, number>>;

async function readCodes(c: DuckDBConnection, prefix: string): Promise<Codes> {
  const codes: Codes = new Map();
  for (const [kind, value, code] of (await c.runAndReadAll(`SELECT kind, value, code FROM ${prefix}codes`)).getRows()) {
    let values = codes.get(kind as string);
    if (!values) codes.set(kind as string, (values = new Map<string, number>()));
    values.set(value as string, code as number);
  }
  return codes;
}

async function readIdentity(c: DuckDBConnection, prefix: string) {
  const reader = await c.runAndReadAll(`SELECT doc, ord, job_id FROM ${prefix}jobs ORDER BY doc`);
  const rows = reader.getRows();
  const docOfOrd = new Uint32Array(rows.length);
  const ordOfDoc = new Uint32Array(rows.length);
  const jobIds: string[] = new Array<string>(rows.length);
  const docById = new Map<string, number>();
  for (const [doc, ord, jobId] of rows) {
    ordOfDoc[doc as number] = ord as number;
    docOfOrd[ord as number] = doc as number;
    jobIds[doc as number] = jobId as string;
    docById.set(jobId as string, doc as number);
  }
  return { docOfOrd, ordOfDoc, jobIds, docById };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Removes the cached documents of snapshots no longer open (and leftovers of interrupted writes). */
async function removeStaleCaches(cacheDir: string, live: Set<string>): Promise<void> {
  await mkdir(cacheDir, { recursive: true });
  for (const name of await readdir(cacheDir)) if (!live.has(name)) await rm(join(cacheDir, name), { recursive: true, force: true });
}

/** Where each line of the documents file starts (and, at [n], where the file ends). */
async function lineOffsets(path: string, expected: number): Promise<Float64Array> {
  const offsets = new Float64Array(expected + 1);
  let line = 0;
  let base = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 24 }) as AsyncIterable<Buffer>) {
    let at = chunk.indexOf(10);
    while (at !== -1) {
      if (line < expected) offsets[++line] = base + at + 1;
      else line++;
      at = chunk.indexOf(10, at + 1);
    }
    base += chunk.length;
  }
  if (line !== expected) {
    await writeFile(`${path}.broken`, '');
    await rm(path, { force: true });
    throw new Error(`the documents file has ${line} lines for ${expected} jobs; it was removed and will be rebuilt`);
  }
  return offsets;
}

async function readLines(handle: FileHandle, offsets: Float64Array, docs: readonly number[]): Promise<Record<string, unknown>[]> {
  return Promise.all(
    docs.map(async (doc) => {
      const start = offsets[doc]!;
      const length = offsets[doc + 1]! - start;
      const buffer = Buffer.allocUnsafe(length);
      await handle.read(buffer, 0, length, start);
      return JSON.parse(buffer.toString('utf8')) as Record<string, unknown>;
    }),
  );
}
