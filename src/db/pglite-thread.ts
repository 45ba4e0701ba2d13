// The thread that holds a server's embedded state store: PGlite answering the calls of PgliteThreadStore.

import { parentPort, workerData } from 'node:worker_threads';
import { PgliteStore } from './pglite-store.js';
import type { Queryable } from './state-store.js';
import type { Call, Reply, ThreadOptions } from './pglite-thread-store.js';

const port = parentPort!;
const { dir, sharedBuffers } = workerData as ThreadOptions;

/** A transaction's end asked by the caller's work having thrown: rolled back, not an error of this thread. */
const ROLLBACK = new Error('rolled back: the work of the transaction failed in the caller');

interface Open {
  tx: Queryable;
  finish: (commit: boolean) => void;
  done: Promise<void>;
}

/** What the caller can see of an error: its message and PostgreSQL's fields (`code`, `detail`, `constraint` ...). */
function described(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields = Object.entries(error).filter(
    ([, value]) => value === null || ['string', 'number', 'boolean', 'bigint'].includes(typeof value),
  );
  return { ...Object.fromEntries(fields), name: error.name, message: error.message };
}

function serve(store: PgliteStore): void {
  const open = new Map<number, Open>();
  const unlisteners = new Map<number, () => Promise<void>>();
  let next = 0;
  // A result that cannot cross (no value of the store's types fails to) is answered as the call's failure, never left unanswered.
  const reply = (message: Reply) => {
    try {
      port.postMessage(message);
    } catch (error) {
      if ('id' in message) port.postMessage({ id: message.id, error: described(error) } satisfies Reply);
    }
  };

  const begin = (id: number) => {
    const tx = ++next;
    let finish!: (commit: boolean) => void;
    const finished = new Promise<boolean>((resolve) => (finish = resolve));
    let begun = false;
    const done = store.transaction(async (queryable) => {
      begun = true;
      open.set(tx, { tx: queryable, finish, done: finished.then(() => done) });
      reply({ id, value: tx });
      if (!(await finished)) throw ROLLBACK;
    });
    // A transaction that could not begin is the begin's failure; one that ended is answered by its end.
    done.catch((error: unknown) => {
      if (!begun) reply({ id, error: described(error) });
    });
  };

  const run = async (call: Call): Promise<unknown> => {
    switch (call.op) {
      case 'query':
        return call.tx === undefined ? store.query(call.sql, call.params) : open.get(call.tx)!.tx.query(call.sql, call.params);
      case 'end': {
        const { finish, done } = open.get(call.tx)!;
        open.delete(call.tx);
        finish(call.commit);
        try {
          await done;
        } catch (error) {
          if (error !== ROLLBACK) throw error;
        }
        return undefined;
      }
      case 'listen': {
        const listener = ++next;
        unlisteners.set(listener, await store.listen(call.channel, (payload) => reply({ notice: listener, payload })));
        return listener;
      }
      case 'unlisten':
        await unlisteners.get(call.listener)?.();
        unlisteners.delete(call.listener);
        return undefined;
      case 'close':
        await store.close();
        return undefined;
      default:
        throw new Error(`unknown call ${(call as Call).op}`);
    }
  };

  port.on('message', (call: Call) => {
    if (call.op === 'begin') return begin(call.id);
    run(call).then(
      (value) => reply({ id: call.id, value }),
      (error: unknown) => reply({ id: call.id, error: described(error) }),
    );
  });
  reply({ id: 0, value: 'ready' });
}

PgliteStore.open(dir, sharedBuffers ? { sharedBuffers } : {}).then(serve, (error: unknown) => {
  port.postMessage({ id: 0, error: described(error) } satisfies Reply);
});
