// Reads or builds the title and description indexes of a snapshot: it reads the texts with its own
// DuckDB and analyses them. With a cache folder it first looks there for the indexes of an earlier open
// (src/search/index-file.ts), and writes them there after a build. It says what it is doing as it goes
// (`say`) for the progress lines of a long open. Run in a worker thread (index-worker.ts) for a large
// snapshot, on the calling thread for a small one.

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

/** What the load is doing, and how far (`unit`: documents). */
export interface IndexStep {
  step: string;
  done?: number;
  total?: number;
  unit?: string;
}

/** The progress message every `STEP_MS` at most while texts are indexed. */
const STEP_MS = 250;

export async function loadIndexes({ textsSql, cacheDir, documents }: IndexJob, onStep: (step: IndexStep) => void): Promise<IndexResult> {
  const say = (step: string, done?: number, total?: number) =>
    onStep(done === undefined ? { step } : { step, done, total, unit: 'documents' });
  const paths = cacheDir === null ? null : { title: join(cacheDir, 'title.index'), description: join(cacheDir, 'description.index') };
  if (paths) {
    say('reading the text indexes from the serving cache');
    const title = readIndexFile(paths.title);
    const description = title && readIndexFile(paths.description);
    if (title && description) return { title, description, fromCache: true };
  }
  const built = await build(textsSql, documents, say);
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

async function build(
  textsSql: string,
  documents: number,
  say: (step: string, done?: number, total?: number) => void,
): Promise<{ title: IndexParts; description: IndexParts }> {
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

/** The result's arrays, handed to another thread without a copy. */
export const transferables = (result: IndexResult): ArrayBuffer[] =>
  [result.title, result.description].flatMap(
    (p) => [p.start.buffer, p.docs.buffer, p.posStart.buffer, p.positions.buffer, p.maxPositions.buffer] as ArrayBuffer[],
  );
