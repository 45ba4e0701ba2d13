// A server's embedded state store in a thread of its own: PGlite's executor (WebAssembly, most of a
// metered request's CPU) runs on another core than HTTP; the calls and their results cross by messages.

import type { Worker } from 'node:worker_threads';
import { startWorker } from '../shared/worker.js';
import type { Queryable, StateStore } from './state-store.js';

export interface ThreadOptions {
  dir: string | undefined;
  sharedBuffers?: string;
}

type Body =
  | { op: 'query'; sql: string; params: readonly unknown[]; tx?: number }
  | { op: 'begin' }
  | { op: 'end'; tx: number; commit: boolean }
  | { op: 'listen'; channel: string }
  | { op: 'unlisten'; listener: number }
  | { op: 'close' };

export type Call = Body & { id: number };

export type Reply = { id: number; value?: unknown; error?: Record<string, unknown> } | { notice: number; payload: string };

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** An error of the store's thread as the caller would have had it in process: PostgreSQL's fields kept. */
function rebuilt(fields: Record<string, unknown>): Error {
  const { message, name, ...rest } = fields;
  const error = new Error(String(message));
  if (typeof name === 'string') error.name = name;
  return Object.assign(error, rest);
}

export class PgliteThreadStore implements StateStore {
  readonly kind = 'pglite' as const;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<number, { onNotice: (payload: string) => void; onLost: () => void }>();
  private next = 0;
  private failure: Error | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: Reply) => this.receive(reply));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`the state store's thread stopped (exit code ${code})`)));
    worker.unref();
  }

  /** Opens the store in `dir` (in memory when undefined) in a new thread; resolves once it is open. */
  static async open(dir: string | undefined, options: { sharedBuffers?: string } = {}): Promise<PgliteThreadStore> {
    const store = new PgliteThreadStore(
      startWorker(import.meta.url, './pglite-thread', { workerData: { dir, ...options } satisfies ThreadOptions }),
    );
    try {
      store.worker.ref();
      await store.ask(0);
    } catch (error) {
      await store.worker.terminate();
      throw error;
    }
    return store;
  }

  query<Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    return this.call({ op: 'query', sql, params }) as Promise<Row[]>;
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const tx = (await this.call({ op: 'begin' })) as number;
    let result: T;
    try {
      result = await work({
        query: <Row>(sql: string, params: readonly unknown[] = []) => this.call({ op: 'query', sql, params, tx }) as Promise<Row[]>,
      });
    } catch (error) {
      await this.call({ op: 'end', tx, commit: false }).catch(() => undefined);
      throw error;
    }
    await this.call({ op: 'end', tx, commit: true });
    return result;
  }

  /** Notices come with the result of the statement whose commit sent them, as in process: never lost while the thread lives. */
  async listen(channel: string, onNotice: (payload: string) => void, onLost: () => void): Promise<() => Promise<void>> {
    const listener = (await this.call({ op: 'listen', channel })) as number;
    this.listeners.set(listener, { onNotice, onLost });
    return async () => {
      this.listeners.delete(listener);
      await this.call({ op: 'unlisten', listener });
    };
  }

  async close(): Promise<void> {
    if (this.failure) return;
    await this.call({ op: 'close' });
    this.failure = new Error('the state store is closed');
    await this.worker.terminate();
  }

  private call(call: Body): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = ++this.next;
    // The thread keeps the process alive only while a call is under way, as PGlite in process would.
    if (this.pending.size === 0) this.worker.ref();
    const answer = this.ask(id);
    try {
      this.worker.postMessage({ ...call, id });
    } catch (error) {
      // A parameter that cannot be copied to the thread (a function, say): this call fails, nothing is sent.
      this.receive({ id, error: { message: error instanceof Error ? error.message : String(error) } });
    }
    return answer;
  }

  private ask(id: number): Promise<unknown> {
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  private receive(reply: Reply): void {
    if ('notice' in reply) return this.listeners.get(reply.notice)?.onNotice(reply.payload);
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.error) pending.reject(rebuilt(reply.error));
    else pending.resolve(reply.value);
  }

  /** The thread is gone: every call under way and to come fails with why, and listeners hear that notices may be lost. */
  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
    for (const { onLost } of this.listeners.values()) onLost();
    this.listeners.clear();
  }
}
