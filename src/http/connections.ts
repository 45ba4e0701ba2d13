// The HTTP server's connections: its limits and timeouts from the settings, the requests in flight on each
// connection, and the drain of a shutdown. Draining stops accepting at once, answers every request already
// read (the last answer on each connection carries Connection: close), closes connections as they fall
// idle, and at the deadline cuts what is left and says how many requests that was.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { HttpApp } from './stages.js';

export interface DrainReport {
  /** Requests still unanswered at the deadline, whose connections were closed. */
  cut: number;
}

/** How often connections are checked against the headers and request timeouts (Node's default is 30 s). */
function checkingIntervalMs(config: Config): number {
  return Math.max(50, Math.min(1000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4)));
}

/** Resolves in the check phase of the next turn of the event loop, right after its poll phase. */
const nextTurn = () => new Promise<void>((done) => setImmediate(done));

/**
 * Lets the event loop run its poll phase twice, so request bytes already in the kernel are read and
 * parsed before a connection is judged idle (a timer fires before the poll phase of its turn).
 */
const afterPoll = () => nextTurn().then(nextTurn);

/** The longest the listener stays open after the signal, taking connections the kernel already accepted. */
const BACKLOG_MS = 1_000;

export class HttpServer {
  readonly server: Server;
  /** The responses not finished yet on each connection, in the order their requests were read. */
  private readonly inFlight = new Map<Socket, ServerResponse[]>();
  /** Each response whose keep-alive this drain turned off, with the value it had. */
  private readonly closing = new Map<ServerResponse, boolean>();
  private draining = false;
  private accepted = 0;

  constructor(config: Config, app: HttpApp) {
    const headersTimeout = Math.min(config.headersTimeoutMs, config.requestTimeoutMs);
    this.server = createServer(
      {
        keepAliveTimeout: config.keepAliveTimeoutMs,
        headersTimeout,
        requestTimeout: config.requestTimeoutMs,
        connectionsCheckingInterval: checkingIntervalMs(config),
        IncomingMessage: app.IncomingMessage,
        ServerResponse: app.ServerResponse,
      },
      app.listener,
    );
    this.server.maxConnections = config.maxConnections;
    this.server.on('connection', () => this.accepted++);
    this.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => this.track(req.socket, res));
  }

  /** Requests read and not answered yet. */
  get requests(): number {
    let count = 0;
    for (const list of this.inFlight.values()) count += list.length;
    return count;
  }

  private track(socket: Socket, res: ServerResponse): void {
    const list = this.inFlight.get(socket) ?? [];
    // A request read behind others on one connection: those must not close it before it is answered.
    if (this.draining) for (const earlier of list) this.keepOpen(earlier);
    list.push(res);
    this.inFlight.set(socket, list);
    if (this.draining) this.closeAfter(res);
    res.once('close', () => {
      const at = list.indexOf(res);
      if (at >= 0) list.splice(at, 1);
      if (list.length === 0 && this.inFlight.get(socket) === list) this.inFlight.delete(socket);
      this.closing.delete(res);
    });
  }

  private closeAfter(res: ServerResponse): void {
    if (res.headersSent || this.closing.has(res)) return;
    this.closing.set(res, res.shouldKeepAlive);
    res.shouldKeepAlive = false;
  }

  private keepOpen(res: ServerResponse): void {
    const before = this.closing.get(res);
    if (before === undefined || res.headersSent) return;
    res.shouldKeepAlive = before;
    this.closing.delete(res);
  }

  /**
   * Takes the connections the kernel accepted before the signal (closing the listener would reset them):
   * libuv takes one a turn of the event loop, so turns go by until two in a row bring none.
   */
  private async takeBacklog(): Promise<void> {
    const until = Date.now() + BACKLOG_MS;
    for (let quiet = 0; quiet < 2 && Date.now() < until;) {
      const before = this.accepted;
      await nextTurn();
      quiet = this.accepted === before ? quiet + 1 : 0;
    }
  }

  /** Stops accepting, answers what was read, and resolves when every connection is closed (or cut at `timeoutMs`). */
  async drain(timeoutMs: number, logger: Logger): Promise<DrainReport> {
    this.draining = true;
    for (const list of this.inFlight.values()) this.closeAfter(list.at(-1)!);
    const report: DrainReport = { cut: 0 };
    const deadline = setTimeout(() => {
      report.cut = this.requests;
      logger.error({ cut: report.cut, timeout_ms: timeoutMs }, `shutdown timeout: ${report.cut} requests in flight were cut`);
      this.server.closeAllConnections();
    }, timeoutMs);
    await this.takeBacklog();
    // net's close stops listening only: http's would also close at once the connections that look idle,
    // among them some whose request is read on the next poll phase.
    const closed = new Promise<void>((done) => NetServer.prototype.close.call(this.server, () => done()));
    const sweeping = { on: true };
    void this.closeAsIdle(sweeping);
    await closed;
    sweeping.on = false;
    clearTimeout(deadline);
    // Clears http's timeout checks; the listener is already closed.
    this.server.close();
    return report;
  }

  /** Closes the connections that have fallen idle, every 50 ms, each time after the poll phase has read what arrived. */
  private async closeAsIdle(sweeping: { on: boolean }): Promise<void> {
    while (sweeping.on) {
      await afterPoll();
      if (sweeping.on) this.server.closeIdleConnections();
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
