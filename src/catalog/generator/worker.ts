// A generation worker thread: builds the world once from the options it is given, then runs the jobs it is sent.

import { parentPort, workerData } from 'node:worker_threads';
import type { GenerateOptions } from './options.js';
import { Boards } from './reads.js';
import { runJob, type Job } from './workers.js';
import { buildWorld } from './world.js';

const options = workerData as GenerateOptions;
const world = buildWorld(options);
const boards = new Boards(options.seed);

parentPort!.on('message', ({ id, job }: { id: number; job: Job }) => {
  try {
    const result = runJob(world, boards, job);
    const transfer = Array.isArray(result)
      ? []
      : [...result.chunks.map((c) => c.data.buffer as ArrayBuffer), result.boardCounts.buffer as ArrayBuffer];
    parentPort!.postMessage({ id, result }, transfer);
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
