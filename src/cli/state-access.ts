// Runs an operator command where the store is: directly when this process may open it, else through the
// running server's admin socket. The embedded store is never opened by two processes at once.

import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import type { Config } from '../config.js';
import { openState, StoreBusyError } from '../db/open-state.js';
import { AdminError, runAdminCommand, type AdminCommandName, type AdminInput, type AdminOutput } from '../metering/admin-commands.js';

const WAIT_MS = 10_000;

function callSocket(socketPath: string, name: string, input: unknown): Promise<unknown> {
  return new Promise((done, fail) => {
    const req = request({ socketPath, path: `/${name}`, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result?: unknown; error?: string };
          if (res.statusCode === 200) done(body.result);
          else
            fail(
              res.statusCode === 400
                ? new AdminError(body.error ?? 'refused')
                : new Error(`the server failed: ${body.error ?? res.statusCode}`),
            );
        } catch (error) {
          fail(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    req.on('error', fail);
    req.end(JSON.stringify(input));
  });
}

function isConnectionError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'ECONNRESET';
}

export async function runOnStore<N extends AdminCommandName>(config: Config, name: N, input: AdminInput<N>): Promise<AdminOutput<N>> {
  // A command runs a few statements: compiled by V8's baseline WebAssembly tier alone, the embedded
  // PostgreSQL starts on a quarter less CPU (0.6 s here), which the optimising tier would never repay.
  setFlagsFromString('--liftoff-only');
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      const state = await openState(config, { role: 'cli' });
      try {
        return await runAdminCommand(state.store, name, input);
      } finally {
        await state.close();
      }
    } catch (error) {
      if (!(error instanceof StoreBusyError)) throw error;
      const { holder } = error;
      if (holder.role === 'server' && holder.socket) {
        try {
          const result = (await callSocket(holder.socket, name, input)) as AdminOutput<N>;
          process.stderr.write(`(done by the running server, pid ${holder.pid})\n`);
          return result;
        } catch (socketError) {
          if (!isConnectionError(socketError)) throw socketError;
          if (Date.now() > deadline)
            throw new Error(`${error.message}, but its admin socket ${holder.socket} does not answer`, { cause: socketError });
        }
      } else if (Date.now() > deadline) {
        throw error;
      }
      await sleep(200);
    }
  }
}
