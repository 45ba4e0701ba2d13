// A worker thread that reads or builds the text indexes of a large snapshot (index-load.ts) and hands the
// finished arrays over (transferred, not copied): the builders' working memory dies with the thread, and
// the server's event loop stays free.

import { parentPort, workerData } from 'node:worker_threads';
import { loadIndexes, transferables, type IndexJob } from './index-load.js';

loadIndexes(workerData as IndexJob, (step) => parentPort!.postMessage({ step })).then(
  (result) => parentPort!.postMessage({ result }, transferables(result)),
  (error: unknown) => parentPort!.postMessage({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
);
