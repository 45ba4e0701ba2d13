// A worker thread that builds the title and description indexes of a snapshot: it reads the texts
// with its own DuckDB, analyses them, and hands the finished arrays over (transferred, not copied).
// The builders' working memory dies with the thread, and the server's event loop stays free.

import { parentPort, workerData } from 'node:worker_threads';
import { DuckDBInstance } from '@duckdb/node-api';
import { IndexBuilder, type IndexParts } from './inverted-index.js';

export interface IndexJob {
  /** A query returning (title, description) of every job, in document order. */
  textsSql: string;
}

export interface IndexResult {
  title: IndexParts;
  description: IndexParts;
}

async function build({ textsSql }: IndexJob): Promise<IndexResult> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  const titles = new IndexBuilder();
  const descriptions = new IndexBuilder();
  try {
    const result = await connection.stream(textsSql);
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      for (const [title, description] of chunk.getRows()) {
        titles.add(title as string | null);
        descriptions.add(description as string | null);
      }
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return { title: titles.build().toParts(), description: descriptions.build().toParts() };
}

const buffers = (p: IndexParts) => [p.start.buffer, p.docs.buffer, p.posStart.buffer, p.positions.buffer, p.maxPositions.buffer] as ArrayBuffer[];

build(workerData as IndexJob).then(
  (result) => parentPort!.postMessage({ result }, [...buffers(result.title), ...buffers(result.description)]),
  (error: unknown) => parentPort!.postMessage({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
);
