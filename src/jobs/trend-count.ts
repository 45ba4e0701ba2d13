// The one loop of a trend (src/jobs/trend-tally.ts): the marked versions counted into cells, each
// version's cell its group's (cellOf of its code, or its run's cell) plus its span's (spanCell). On
// millions of versions a counter shares the loop with a worker thread (src/jobs/trend-count-worker.ts):
// the versions' arrays live in shared memory (shared()), so each thread counts half of them and the
// counts are added up.

import { Worker } from 'node:worker_threads';

export type Codes = Uint8Array | Uint16Array | Uint32Array;

/**
 * What to count: per marked version doc (or listed in `docs`), one in cellOf[codes[·]] + spanCell[span[doc]];
 * with `runs`, one in the run's cell + spanCell[span[doc]], or with `weights` too, weights[span[doc]] in
 * the run's cell.
 */
export interface CountTask {
  cells: number;
  span: Uint16Array;
  marked: Uint8Array;
  /** Per span, its cell within a group's row (or 0/1: whether it holds at a point). */
  spanCell: Int32Array;
  /** Per code, where its row starts; with codes null, every version counts in row 0. */
  cellOf: Int32Array | null;
  codes: Codes | null;
  /** The versions of `codes` when they are listed (a group's other codes), else codes[doc] is version doc's. */
  docs: Uint32Array | null;
  /**
   * With docs and no codes: the runs of docs counted, as triples (from, to, cell): docs[from] .. docs[to - 1]
   * count from `cell` on (a group's versions, src/jobs/trend-groups.ts). A task's entries are then its runs.
   */
  runs: Uint32Array | null;
  /**
   * With runs: per span, 1 when a version of it counts (or 'every': every version does, and no span is
   * read), and each run counts in its one cell (spanCell is not read). A sum in a register: counting into
   * one cell waits for each add before the next.
   */
  weights?: Uint8Array | 'every';
}

/** The count of task's entries from..to (versions, listed codes when task.docs is set, or runs), added into `counts`. */
export function countRange(task: CountTask, counts: Int32Array, from: number, to: number): void {
  const { span, marked, spanCell, cellOf, codes, docs, runs, weights } = task;
  if (docs && runs && weights === 'every')
    for (let run = 3 * from; run < 3 * to; run += 3) {
      let n = 0;
      for (let i = runs[run]!; i < runs[run + 1]!; i++) n += marked[docs[i]!]!;
      counts[runs[run + 2]!]! += n;
    }
  else if (docs && runs && weights instanceof Uint8Array)
    for (let run = 3 * from; run < 3 * to; run += 3) {
      let n = 0;
      for (let i = runs[run]!; i < runs[run + 1]!; i++) {
        const doc = docs[i]!;
        n += marked[doc]! & weights[span[doc]!]!;
      }
      counts[runs[run + 2]!]! += n;
    }
  else if (docs && runs)
    for (let run = 3 * from; run < 3 * to; run += 3) {
      const cell = runs[run + 2]!;
      for (let i = runs[run]!; i < runs[run + 1]!; i++) {
        const doc = docs[i]!;
        counts[cell + spanCell[span[doc]!]!]! += marked[doc]!;
      }
    }
  else if (docs && codes && cellOf)
    for (let i = from; i < to; i++) {
      const doc = docs[i]!;
      counts[cellOf[codes[i]!]! + spanCell[span[doc]!]!]! += marked[doc]!;
    }
  else if (codes && cellOf) for (let doc = from; doc < to; doc++) counts[cellOf[codes[doc]!]! + spanCell[span[doc]!]!]! += marked[doc]!;
  else for (let doc = from; doc < to; doc++) counts[spanCell[span[doc]!]!]! += marked[doc]!;
}

/** The number of entries a task counts: versions, listed codes, or runs. */
const entries = (task: CountTask) => (task.runs ? task.runs.length / 3 : task.docs ? task.docs.length : task.marked.length);

/** The number of versions a task reads. */
function reads(task: CountTask): number {
  const { runs } = task;
  if (!runs) return entries(task);
  let n = 0;
  for (let run = 0; run < runs.length; run += 3) n += runs[run + 1]! - runs[run]!;
  return n;
}

/**
 * The task cut where half its versions are read: the task (its runs with the one across the middle cut
 * in two) and the entry its second half starts at.
 */
function halves(task: CountTask, n: number): [CountTask, number] {
  const { runs } = task;
  if (!runs) return [task, n >> 1];
  let left = n >> 1;
  for (let run = 0; run < runs.length; run += 3) {
    const length = runs[run + 1]! - runs[run]!;
    if (left < length) {
      const cut = new Uint32Array(runs.length + 3);
      cut.set(runs.subarray(0, run + 3));
      cut[run + 1] = runs[run]! + left;
      cut.set([runs[run]! + left, runs[run + 1]!, runs[run + 2]!], run + 3);
      cut.set(runs.subarray(run + 3), run + 6);
      return [{ ...task, runs: cut }, run / 3 + 1];
    }
    left -= length;
  }
  return [task, entries(task)];
}

/** A typed array in memory a worker thread can read without a copy. */
export function shared<T extends Codes | Int32Array>(of: new (buffer: SharedArrayBuffer) => T, length: number): T {
  const bytes = (of as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
  return new of(new SharedArrayBuffer(length * bytes));
}

/** A copy of `values` in memory a worker thread shares. */
export function sharedCopy<T extends Codes>(values: T): T {
  const copy = shared(values.constructor as new (buffer: SharedArrayBuffer) => T, values.length);
  copy.set(values);
  return copy;
}

const isShared = (array: ArrayBufferView | null) => array === null || array.buffer instanceof SharedArrayBuffer;

/** Below this many entries a task is counted on the calling thread alone: a message costs more than half of it. */
const SHARED_FROM = 500_000;

/** Counts tasks, sharing large ones with a worker thread when their arrays are shared. */
export class Counter {
  private worker: Worker | null = null;
  private broken = false;
  /** How many tasks a worker thread shared. */
  sharedTasks = 0;
  private next = 0;
  private readonly pending = new Map<number, { resolve: (counts: Int32Array) => void; reject: (error: Error) => void }>();

  constructor(private readonly sharedFrom = SHARED_FROM) {}

  async count(task: CountTask): Promise<Int32Array> {
    const counts = new Int32Array(task.cells);
    const n = reads(task);
    const { span, marked, codes, docs } = task;
    if (n < this.sharedFrom || this.broken || ![span, marked, codes, docs].every(isShared)) {
      countRange(task, counts, 0, entries(task));
      return counts;
    }
    const [cut, half] = halves(task, n);
    const end = entries(cut);
    // The small arrays (cellOf, spanCell, runs, weights) are copied into the message; the large ones are shared.
    const theirs = this.send(cut, half, end).catch(() => null);
    countRange(cut, counts, 0, half);
    const other = await theirs;
    if (other === null) {
      // The worker is gone: count its half here, and every task from now on.
      this.broken = true;
      countRange(cut, counts, half, end);
    } else {
      for (let i = 0; i < counts.length; i++) counts[i]! += other[i]!;
      this.sharedTasks++;
    }
    return counts;
  }

  /** Stops the worker thread, if one started. */
  async close(): Promise<void> {
    await this.worker?.terminate();
    this.worker = null;
  }

  private async send(task: CountTask, from: number, to: number): Promise<Int32Array> {
    const worker = this.start();
    const id = this.next++;
    // The worker keeps the process alive only while it counts.
    if (this.pending.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, task, from, to });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const url = new URL(`./trend-count-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
    const worker = url.pathname.endsWith('.ts')
      ? new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); });`, {
          eval: true,
        })
      : new Worker(url);
    worker.on('message', ({ id, counts }: { id: number; counts: Int32Array }) => {
      this.pending.get(id)?.resolve(counts);
      this.pending.delete(id);
      if (this.pending.size === 0) worker.unref();
    });
    const fail = (error: Error) => {
      this.worker = null;
      for (const { reject } of this.pending.values()) reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the trend worker thread exited')));
    // After the listeners, which would hold the process again.
    worker.unref();
    return (this.worker = worker);
  }
}
