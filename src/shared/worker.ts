// Worker threads of this code: started from the compiled module, or through tsx when running from the sources.

import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts the module `relative` (a path without its extension, from `base`: the caller's `import.meta.url`)
 * in a worker thread. Run from the TypeScript sources (tests, `npm start`), the thread registers tsx first.
 */
export function startWorker(base: string, relative: string, options: WorkerOptions = {}): Worker {
  const fromSources = base.endsWith('.ts');
  const url = new URL(`${relative}${fromSources ? '.ts' : '.js'}`, base);
  return fromSources
    ? new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); });`, {
        ...options,
        eval: true,
      })
    : new Worker(url, options);
}
