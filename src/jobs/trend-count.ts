// The loops of a trend (src/jobs/trend-tally.ts): the marked versions counted into cells, each version's
// cell its group's row plus its span. Each shape of task has a loop of its own, over arrays of one type
// each, which V8 keeps fast: one loop for every shape read its arrays two to three times slower. On
// millions of versions a counter shares the loop with a worker thread (src/jobs/trend-count-worker.ts):
// the versions' arrays live in shared memory (shared()), so each thread counts half of them and the
// counts are added up.

import type { Worker } from 'node:worker_threads';
import { startWorker } from '../shared/worker.js';

export type Codes = Uint8Array | Uint16Array | Uint32Array;

/** What to count: the `marked` versions into `cells` counts, in one of four loops. */
export type CountTask = SpansTask | CodedTask | ListedTask | RunsTask;

interface OfVersions {
  cells: number;
  /** Per version, its span (TrendsView.span). */
  span: Uint16Array;
  marked: Uint8Array;
}

/** Each marked version, one in cell span[doc]. Its entries are the versions. */
export interface SpansTask extends OfVersions {
  kind: 'spans';
}

/** Each marked version, one in cell codes[doc] × stride + span[doc]. Its entries are the versions. */
export interface CodedTask extends OfVersions {
  kind: 'coded';
  codes: Uint8Array;
  stride: number;
}

/** Each listed pair of a marked version docs[i] and its code codes[i], one in codes[i] × stride + span[docs[i]]. */
export interface ListedTask extends OfVersions {
  kind: 'listed';
  docs: Uint32Array;
  codes: Uint8Array;
  stride: number;
}

/**
 * Runs of a group's versions (src/jobs/trend-groups.ts: Members), as triples (from, to, cell): the marked of
 * docs[from] .. docs[to - 1], whose spans are spans[from] .. spans[to - 1] (in order of span), count from
 * `cell` on. Its entries are the runs. Without weights, a version counts in cell + its span; with weights,
 * in `cell` alone, each version weights[its span] (or 'every': each one, and no span is read). Versions of
 * one span are summed in a register: adding into one cell in memory waits for each add before the next.
 */
export interface RunsTask {
  kind: 'runs';
  cells: number;
  marked: Uint8Array;
  docs: Uint32Array;
  spans: Uint16Array;
  runs: Uint32Array;
  weights: Uint8Array | 'every' | null;
}

/** The count of task's entries from..to, added into `counts`. */
export function countRange(task: CountTask, counts: Int32Array, from: number, to: number): void {
  switch (task.kind) {
    case 'spans':
      return countSpans(task, counts, from, to);
    case 'coded':
      return countCoded(task, counts, from, to);
    case 'listed':
      return countListed(task, counts, from, to);
    case 'runs':
      if (task.weights === null) return countRuns(task, counts, from, to);
      if (task.weights === 'every') return countRunsAll(task, counts, from, to);
      return countRunsWeighted(task, task.weights, counts, from, to);
  }
}

function countSpans({ span, marked }: SpansTask, counts: Int32Array, from: number, to: number): void {
  for (let doc = from; doc < to; doc++) counts[span[doc]!]! += marked[doc]!;
}

function countCoded({ span, marked, codes, stride }: CodedTask, counts: Int32Array, from: number, to: number): void {
  for (let doc = from; doc < to; doc++) counts[codes[doc]! * stride + span[doc]!]! += marked[doc]!;
}

function countListed({ span, marked, docs, codes, stride }: ListedTask, counts: Int32Array, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const doc = docs[i]!;
    counts[codes[i]! * stride + span[doc]!]! += marked[doc]!;
  }
}

function countRuns({ marked, docs, spans, runs }: RunsTask, counts: Int32Array, from: number, to: number): void {
  for (let run = 3 * from; run < 3 * to; run += 3) {
    const [end, cell] = [runs[run + 1]!, runs[run + 2]!];
    for (let i = runs[run]!; i < end;) {
      const span = spans[i]!;
      let n = 0;
      for (; i < end && spans[i] === span; i++) n += marked[docs[i]!]!;
      counts[cell + span]! += n;
    }
  }
}

function countRunsAll({ marked, docs, runs }: RunsTask, counts: Int32Array, from: number, to: number): void {
  for (let run = 3 * from; run < 3 * to; run += 3) {
    let n = 0;
    for (let i = runs[run]!; i < runs[run + 1]!; i++) n += marked[docs[i]!]!;
    counts[runs[run + 2]!]! += n;
  }
}

function countRunsWeighted(task: RunsTask, weights: Uint8Array, counts: Int32Array, from: number, to: number): void {
  const { marked, docs, spans, runs } = task;
  for (let run = 3 * from; run < 3 * to; run += 3) {
    let n = 0;
    for (let i = runs[run]!; i < runs[run + 1]!; i++) n += marked[docs[i]!]! & weights[spans[i]!]!;
    counts[runs[run + 2]!]! += n;
  }
}

/** The number of entries a task counts: versions, listed pairs (ListedTask's entries), or runs. */
const entries = (task: CountTask) =>
  task.kind === 'runs' ? task.runs.length / 3 : task.kind === 'listed' ? task.docs.length : task.marked.length;

/** The number of versions a task reads. */
function reads(task: CountTask): number {
  if (task.kind !== 'runs') return entries(task);
  const { runs } = task;
  let n = 0;
  for (let run = 0; run < runs.length; run += 3) n += runs[run + 1]! - runs[run]!;
  return n;
}

/**
 * The task cut where half its versions are read: the task (its runs with the one across the middle cut
 * in two) and the entry its second half starts at.
 */
function halves(task: CountTask, n: number): [CountTask, number] {
  if (task.kind !== 'runs') return [task, n >> 1];
  const { runs } = task;
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

/** Whether a worker thread reads the task's large arrays without a copy. */
function isShared(task: CountTask): boolean {
  const large: ArrayBufferView[] = task.kind === 'runs' ? [task.marked, task.docs, task.spans] : [task.span, task.marked];
  if (task.kind === 'coded' || task.kind === 'listed') large.push(task.codes);
  if (task.kind === 'listed') large.push(task.docs);
  return large.every((array) => array.buffer instanceof SharedArrayBuffer);
}

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
    if (n < this.sharedFrom || this.broken || !isShared(task)) {
      countRange(task, counts, 0, entries(task));
      return counts;
    }
    const [cut, half] = halves(task, n);
    const end = entries(cut);
    // The small arrays (runs, weights) are copied into the message; the large ones are shared.
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
    const worker = startWorker(import.meta.url, './trend-count-worker');
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
