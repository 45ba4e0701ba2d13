// The server's admin socket: a Unix socket in the data folder where CLI commands reach the store the server holds.

import { createHash } from 'node:crypto';
import { chmodSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { StateStore } from '../db/state-store.js';
import { AdminError, isAdminCommand, runAdminCommand } from '../metering/admin-commands.js';

/** Socket paths are limited to about 100 bytes; a deep data folder gets one in the temp folder instead. */
export function adminSocketPath(dataDir: string): string {
  const inData = join(resolve(dataDir), 'admin.sock');
  if (Buffer.byteLength(inData) < 100) return inData;
  const digest = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  return join(tmpdir(), `jps-admin-${digest}.sock`);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startAdminSocket(path: string, store: StateStore, logger: Logger): Promise<Server> {
  const server = createServer((req, res) => {
    const name = (req.url ?? '').replace(/^\//, '');
    if (req.method !== 'POST' || !isAdminCommand(name)) return reply(res, 404, { error: `unknown admin command ${name}` });
    readJson(req)
      .then((input) => runAdminCommand(store, name, input as never))
      .then((result) => reply(res, 200, { result }))
      .catch((error: unknown) => {
        if (!(error instanceof AdminError)) logger.error({ err: error, command: name }, 'admin command failed');
        reply(res, error instanceof AdminError ? 400 : 500, { error: error instanceof Error ? error.message : String(error) });
      });
  });
  try {
    unlinkSync(path); // left by a server that died; the lock file says nobody else holds the store
  } catch {
    // no stale socket
  }
  await new Promise<void>((done, fail) => server.once('error', fail).listen(path, () => done()));
  chmodSync(path, 0o600);
  return server;
}
