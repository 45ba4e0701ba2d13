// A worker thread that builds the title and description indexes of a snapshot: it reads the texts
// with its own DuckDB, analyses them, and hands the finished arrays over (transferred, not copied).
// The builders' working memory dies with the thread, and the server's event loop stays free.
// With a cache folder it first looks there for the indexes of an earlier open (src/search/index-file.ts),
// and writes them there after a build. It says what it is doing as it goes ({ step } messages) for the
// progress lines of a long open.

import { parentPort, workerData } from 'node:worker_threads';
import { DuckDBInstance } from '@duckdb/node-api';
import { join } from 'node:path';
import { readIndexFile, writeIndexFile } from './index-file.js';
import { IndexBuilder } from './index-builder.js';
import type { IndexParts } from './inverted-index.js';

export interface IndexJob {
  /** A query returning (title, description) of every job, in document order. */
  textsSql: string;
  /** Where the index files of this snapshot are kept, or null to build without keeping them. */
  cacheDir: string | null;
  /** How many rows textsSql returns, for progress. */
  documents: number;
}

export interface IndexResult {
  title: IndexParts;
  description: IndexParts;
  /** Whether the indexes were read from the cache folder rather than built. */
  fromCache: boolean;
  /** Why the built indexes could not be kept, when they could not. */
  writeError?: string;
}

/** The progress message every `STEP_MS` at most while texts are indexed. */
const STEP_MS = 250;

function say(step: string, done?: number, total?: number): void {
  parentPort!.postMessage({ step: done === undefined ? { step } : { step, done, total, unit: 'documents' } });
}

async function load({ textsSql, cacheDir, documents }: IndexJob): Promise<IndexResult> {
  const paths = cacheDir === null ? null : { title: join(cacheDir, 'title.index'), description: join(cacheDir, 'description.index') };
  if (paths) {
    say('reading the text indexes from the serving cache');
    const title = readIndexFile(paths.title);
    const description = title && readIndexFile(paths.description);
    if (title && description) return { title, description, fromCache: true };
  }
  const built = await build(textsSql, documents);
  if (!paths) return { ...built, fromCache: false };
  try {
    say('writing the text indexes to the serving cache');
    writeIndexFile(paths.title, built.title);
    writeIndexFile(paths.description, built.description);
    return { ...built, fromCache: false };
  } catch (error) {
    return { ...built, fromCache: false, writeError: error instanceof Error ? error.message : String(error) };
  }
}

async function build(textsSql: string, documents: number): Promise<{ title: IndexParts; description: IndexParts }> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  const titles = new IndexBuilder();
  const descriptions = new IndexBuilder();
  const step = 'indexing titles and descriptions';
  let done = 0;
  let said = performance.now();
  say(step, done, documents);
  try {
    const result = await connection.stream(textsSql);
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      for (const [title, description] of chunk.getRows()) {
        titles.add(title as string | null);
        descriptions.add(description as string | null);
        if (++done % 256 === 0 && performance.now() - said > STEP_MS) {
          say(step, done, documents);
          said = performance.now();
        }
      }
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  say('building the title index');
  const title = titles.build().toParts();
  say('building the description index');
  return { title, description: descriptions.build().toParts() };
}

const buffers = (p: IndexParts) =>
  [p.start.buffer, p.docs.buffer, p.posStart.buffer, p.positions.buffer, p.maxPositions.buffer] as ArrayBuffer[];

load(workerData as IndexJob).then(
  (result) => parentPort!.postMessage({ result }, [...buffers(result.title), ...buffers(result.description)]),
  (error: unknown) => parentPort!.postMessage({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
);
