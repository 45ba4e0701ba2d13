// Runs batches on worker threads (each builds the same world from the options), or inline when no workers are wanted.

import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../shared/worker.js';
import { registryLines, renderBatch, withdrawalLines, type BatchResult } from './batch.js';
import type { GenerateOptions } from './options.js';
import { Boards } from './reads.js';
import { buildWorld, type World } from './world.js';

export type Job =
  | { kind: 'batch'; day: number; from: number; to: number; boardsOnly?: boolean }
  | { kind: 'withdrawals'; day: number }
  | { kind: 'registry'; day: number }
  | { kind: 'stats' };
export type JobResult = BatchResult | string[];

/** Counts of the generated world: [companies, registered companies]. */
function stats(world: World): string[] {
  return [String(world.companies.list.length), String(world.companies.list.filter((c) => c.registered).length)];
}

export interface Runner {
  run(job: Job): Promise<JobResult>;
  close(): Promise<void>;
}

export function runJob(world: World, boards: Boards, job: Job): JobResult {
  if (job.kind === 'batch') return renderBatch(world, boards, job.day, job.from, job.to, job.boardsOnly);
  if (job.kind === 'stats') return stats(world);
  return job.kind === 'withdrawals' ? withdrawalLines(world, job.day) : registryLines(world, job.day);
}

class InlineRunner implements Runner {
  private readonly world: World;
  private readonly boards: Boards;

  constructor(options: GenerateOptions) {
    this.world = buildWorld(options);
    this.boards = new Boards(options.seed);
  }

  run(job: Job): Promise<JobResult> {
    return Promise.resolve(runJob(this.world, this.boards, job));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

interface Pending {
  resolve: (result: JobResult) => void;
  reject: (error: Error) => void;
}

class WorkerPool implements Runner {
  private readonly workers: Worker[] = [];
  private readonly load: number[] = [];
  private readonly pending = new Map<number, Pending & { worker: number }>();
  private next = 0;

  constructor(options: GenerateOptions, count: number) {
    for (let k = 0; k < count; k += 1) {
      // A large young generation: batches allocate many short-lived strings, and fewer scavenges save about a tenth of the time.
      const worker = startWorker(import.meta.url, './worker', { workerData: options, resourceLimits: { maxYoungGenerationSizeMb: 256 } });
      worker.on('message', (message: { id: number; result?: JobResult; error?: string }) => this.settle(message));
      worker.on('error', (error) => this.failAll(error));
      this.workers.push(worker);
      this.load.push(0);
    }
  }

  private settle(message: { id: number; result?: JobResult; error?: string }): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    this.load[pending.worker]! -= 1;
    if (message.error !== undefined) pending.reject(new Error(message.error));
    else pending.resolve(message.result!);
  }

  private failAll(error: Error): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  run(job: Job): Promise<JobResult> {
    const worker = this.load.indexOf(Math.min(...this.load));
    const id = this.next++;
    this.load[worker]! += 1;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker });
      this.workers[worker]!.postMessage({ id, job });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** Worker threads when there are cores to spare (one per core), else inline. */
export function createRunner(options: GenerateOptions, workers = Math.min(4, availableParallelism())): Runner {
  return workers > 0 ? new WorkerPool(options, workers) : new InlineRunner(options);
}
