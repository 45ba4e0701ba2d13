// Wiring only: config → core → HTTP app → listen, and an orderly drain on close.

import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openCore, type Core, type CoreOptions } from './core.js';
import { createApp } from './http/app.js';
import { McpHttpSessions } from './mcp/http.js';

export interface Service extends Omit<Core, 'close'> {
  url: string;
  /** Stops accepting requests, lets those in flight finish (up to shutdownTimeoutMs), closes the stores. */
  close(): Promise<void>;
}

export type ServiceOptions = CoreOptions;

export async function startService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const core = await openCore(config, options);
  const { ctx } = core;
  const mcp = new McpHttpSessions(ctx);
  const server = createServer(createApp(ctx, mcp));
  server.listen(config.port, config.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  ctx.logger.info({ url, store: ctx.store.kind, data_dir: config.dataDir }, 'listening');
  return { ...core, url, close: () => core.close(() => drain(ctx, server, mcp, config.shutdownTimeoutMs)) };
}

async function drain(ctx: AppContext, server: Server, mcp: McpHttpSessions, timeoutMs: number): Promise<void> {
  ctx.draining = true;
  ctx.logger.info('draining: no new connections, waiting for requests in flight');
  const closed = new Promise<void>((done) => server.close(() => done()));
  // MCP sessions end with the process: their streams close, their files are deleted.
  await mcp.closeAll(timeoutMs);
  // A keep-alive connection turns idle when its last response ends: close those as they appear.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
  await closed;
  clearInterval(sweep);
  clearTimeout(deadline);
  ctx.logger.info('stopped');
}
