// The server process `jps serve` runs (wiring only): config → core → HTTP app → listen, and an orderly drain on close.

import { once } from 'node:events';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openCore, type Core, type CoreOptions } from './core.js';
import { createApp } from './http/app.js';
import { answerClientErrors } from './http/client-errors.js';
import { HttpServer, type DrainReport } from './http/connections.js';
import { McpHttpSessions } from './http/mcp.js';
import { OperatorError } from './shared/operator-error.js';

export interface Service extends Omit<Core, 'close'> {
  url: string;
  /** Stops accepting connections, answers the requests already read (up to shutdownTimeoutMs), closes the stores. */
  close(): Promise<void>;
  /** After close: the requests still unanswered at the shutdown deadline, cut when their connections closed. */
  requestsCut(): number;
}

export type ServiceOptions = CoreOptions;

/** The HTTP port cannot be had: in use, or not this user's or this machine's to listen on. One line says which and what to do. */
export class ListenError extends OperatorError {
  constructor(error: NodeJS.ErrnoException, port: number, host: string) {
    const where = `port ${port} on ${host}`;
    const choose = 'choose another with --port N (npm start -- --port N) or JPS_PORT=N';
    super(
      error.code === 'EADDRINUSE'
        ? `${where} is in use by another program; ${choose}`
        : error.code === 'EACCES'
          ? `${where} needs privileges this user does not have (ports below 1024); ${choose}`
          : error.code === 'EADDRNOTAVAIL'
            ? `${host} is not an address of this machine; choose another with --host (JPS_HOST), e.g. 127.0.0.1 or 0.0.0.0`
            : `cannot listen on ${where}: ${error.message}`,
    );
  }
}

async function listen(server: NetServer, port: number, host: string): Promise<void> {
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (error) {
    throw new ListenError(error as NodeJS.ErrnoException, port, host);
  }
}

/**
 * Takes the port and gives it back at once, before anything is opened: opening a large catalog takes
 * minutes, and a port in use should be said at once. (Port 0 always finds one.)
 */
export async function checkPort(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = createNetServer();
  await listen(probe, port, host);
  await new Promise((done) => probe.close(done));
}

export async function startService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  await checkPort(config.port, config.host);
  const core = await openCore(config, options);
  const { ctx } = core;
  const mcp = new McpHttpSessions(ctx);
  const http = new HttpServer(config, createApp(ctx, mcp));
  answerClientErrors(http.server, ctx.logger);
  // Another program may take the port while the core opens: close what was opened (admin socket, store lock).
  try {
    await listen(http.server, config.port, config.host);
  } catch (error) {
    await mcp.closeAll(0);
    await core.close();
    throw error;
  }
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
