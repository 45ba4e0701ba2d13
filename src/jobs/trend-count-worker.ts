// The worker thread of a trend's counter (src/jobs/trend-count.ts): counts the part of a task it is sent,
// reading the versions' arrays in the memory it shares with the server, and sends the counts back.

import { parentPort } from 'node:worker_threads';
import { countRange, type CountTask } from './trend-count.js';

parentPort!.on('message', ({ id, task, from, to }: { id: number; task: CountTask; from: number; to: number }) => {
  const counts = new Int32Array(task.cells);
  countRange(task, counts, from, to);
  parentPort!.postMessage({ id, counts }, [counts.buffer]);
});
