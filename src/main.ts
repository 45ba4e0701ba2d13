// Wiring only: config → core → HTTP app → listen, and an orderly drain on close.

import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openCore, type Core, type CoreOptions } from './core.js';
import { createApp } from './http/app.js';
import { answerClientErrors } from './http/client-errors.js';
import { HttpServer, type DrainReport } from './http/connections.js';
import { McpHttpSessions } from './mcp/http.js';

export interface Service extends Omit<Core, 'close'> {
  url: string;
  /** Stops accepting connections, answers the requests already read (up to shutdownTimeoutMs), closes the stores. */
  close(): Promise<void>;
  /** After close: the requests still unanswered at the shutdown deadline, cut when their connections closed. */
  requestsCut(): number;
}

export type ServiceOptions = CoreOptions;

export async function startService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const core = await openCore(config, options);
  const { ctx } = core;
  const mcp = new McpHttpSessions(ctx);
  const http = new HttpServer(config, createApp(ctx, mcp));
  answerClientErrors(http.server, ctx.logger);
  http.server.listen(config.port, config.host);
  await once(http.server, 'listening');
  const { port } = http.server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  ctx.logger.info({ url, store: ctx.store.kind, data_dir: config.dataDir }, 'listening');
  let report: DrainReport = { cut: 0 };
  const close = () =>
    core.close(async () => {
      report = await drain(ctx, http, mcp, config.shutdownTimeoutMs);
    });
  return { ...core, url, close, requestsCut: () => report.cut };
}

async function drain(ctx: AppContext, http: HttpServer, mcp: McpHttpSessions, timeoutMs: number): Promise<DrainReport> {
  ctx.draining = true;
  ctx.logger.info({ requests: http.requests }, 'draining: no new connections, answering the requests already read');
  const drained = http.drain(timeoutMs, ctx.logger);
  // MCP sessions end with the process: their tool calls in flight answer, their streams close, their files are deleted.
  await mcp.closeAll(timeoutMs);
  const report = await drained;
  ctx.logger.info({ cut: report.cut }, 'stopped');
  return report;
}
