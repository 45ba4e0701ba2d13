// The text indexes of a snapshot being opened or published: read or built on the calling thread when the
// snapshot is small, in a worker thread (src/search/index-worker.ts) when large.

import { startWorker } from '../shared/worker.js';
import { join } from 'node:path';
import { concatParts } from '../search/index-builder.js';
import { writeIndexFile } from '../search/index-file.js';
import { loadIndexes, type IndexJob, type IndexResult } from '../search/index-load.js';
import { InvertedIndex } from '../search/inverted-index.js';
import type { Step } from './open-progress.js';

/**
 * The title and description indexes, from the snapshot's texts in doc order (see loadIndexes), kept in
 * `folder` and read from there on the next open of the same snapshot. It says what it is doing through
 * `onStep`.
 */
export async function buildIndexes(
  textsSql: string,
  folder: string,
  documents: number,
  onStep: (step: Step) => void,
): Promise<{ title: InvertedIndex; description: InvertedIndex; fromCache: boolean; writeError?: string }> {
  const result = await indexesOf({ textsSql, cacheDir: folder, documents }, onStep);
  return {
    title: InvertedIndex.fromParts(result.title),
    description: InvertedIndex.fromParts(result.description),
    fromCache: result.fromCache,
    writeError: result.writeError,
  };
}

/**
 * The publisher's index build: the jobs files cut into `workers` runs of consecutive files (`texts` is the
 * query of a run's titles and descriptions), indexed as writeIndexParts does.
 */
export function writeIndexFiles(
  texts: (files: string[]) => string,
  files: string[],
  folder: string,
  { workers, jobs }: { workers: number; jobs: number },
): Promise<void> {
  const runs = Math.max(1, Math.min(workers, files.length));
  const parts = Array.from({ length: runs }, (_, k) =>
    texts(files.slice(Math.floor((k * files.length) / runs), Math.floor(((k + 1) * files.length) / runs))),
  );
  return writeIndexParts(parts, folder, jobs);
}

/**
 * The text indexes of the documents of `parts` (queries of titles and descriptions, in doc order one after
 * the other; `documents` in all), each part indexed on its own (in a worker thread when large) and at the
 * same time, the parts joined in doc order and written to `folder` (as buildIndexes keeps them).
 */
export async function writeIndexParts(parts: string[], folder: string, documents: number): Promise<void> {
  const built = await Promise.all(
    parts.map((textsSql) => indexesOf({ textsSql, cacheDir: null, documents: Math.ceil(documents / parts.length) }, () => undefined)),
  );
  writeIndexFile(join(folder, 'title.index'), built.map((p) => p.title).reduce(concatParts));
  writeIndexFile(join(folder, 'description.index'), built.map((p) => p.description).reduce(concatParts));
}

/**
 * Up to this many documents the indexes load on the calling thread: a worker thread takes longer to start
 * (half a second, loading its modules) than such a build takes, and holds the event loop a fraction of that.
 */
const INLINE_DOCUMENTS = 5_000;

/**
 * The indexes of `job`, loaded in a worker thread (src/search/index-worker.ts) when large: its working
 * memory is freed when it ends, and the server keeps answering while it runs.
 */
function indexesOf(job: IndexJob, onStep: (step: Step) => void): Promise<IndexResult> {
  return job.documents <= INLINE_DOCUMENTS ? loadIndexes(job, onStep) : runIndexWorker(job, onStep);
}

function runIndexWorker(job: IndexJob, onStep: (step: Step) => void): Promise<IndexResult> {
  const worker = startWorker(import.meta.url, '../search/index-worker', { workerData: job });
  return new Promise((resolve, reject) => {
    worker.on('message', (message: { step?: Step; result?: IndexResult; error?: string }) => {
      if (message.step) return onStep(message.step);
      void worker.terminate();
      if (message.result) resolve(message.result);
      else reject(new Error(`building the text indexes failed: ${message.error}`));
    });
    worker.once('error', reject);
  });
}
