// MCP over Streamable HTTP at /mcp: one session per initialize, bound to the API key that opened it,
// each with its own MCP server and files. Every request is authenticated as the API's are; the tools
// meter themselves, so /mcp passes by the request admission of the routes.

import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import express, { type Request, type Response } from 'express';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { callerOf } from '../http/auth.js';
import type { Caller } from '../metering/keys.js';
import { createMcpServer } from './server.js';
import { McpSession, removeOrphanSessions, sessionsFolder } from './session.js';

/** Sessions one API key may hold at once; opening one more closes its least recently used. */
export const SESSIONS_PER_KEY = 10;
/** The JSON-RPC body of a call (tool arguments are small: search bodies are at most 16,384 bytes). */
const BODY_LIMIT_BYTES = 65_536;

interface Open {
  session: McpSession;
  server: Server;
  transport: StreamableHTTPServerTransport;
  keyId: string;
}

export class McpHttpSessions {
  private readonly open = new Map<string, Open>();
  private readonly calls = new Set<Promise<unknown>>();
  private readonly dir: string;
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly ctx: AppContext) {
    this.dir = sessionsFolder(ctx.config.dataDir, 'http');
    this.sweep = setInterval(() => void this.closeIdle(), Math.min(60_000, Math.max(1000, ctx.config.mcpSessionIdleMs / 4)));
    this.sweep.unref();
    void removeOrphanSessions(ctx.config.dataDir);
  }

  get size(): number {
    return this.open.size;
  }

  router(): express.Router {
    const router = express.Router();
    router.use('/mcp', express.json({ limit: BODY_LIMIT_BYTES, type: 'application/json' }));
    router.all('/mcp', (req, res) => this.handle(req, res));
    return router;
  }

  private async handle(req: Request, res: Response): Promise<void> {
    const caller = callerOf(res);
    (req as Request & { auth?: AuthInfo }).auth = { token: '', clientId: caller.keyId, scopes: [], extra: { caller } };
    const id = req.header('mcp-session-id');
    if (id !== undefined) {
      const found = this.open.get(id);
      // A session is only ever seen by the key that opened it: to any other, it does not exist.
      if (!found || found.keyId !== caller.keyId) return void res.status(404).json(rpcError(-32001, 'Session not found: it expired, was closed, or belongs to another API key; initialize a new one.'));
      found.session.lastUsed = Date.now();
      return found.transport.handleRequest(req, res, req.body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      return void res.status(400).json(rpcError(-32000, 'No Mcp-Session-Id header: start with an initialize request, then send its Mcp-Session-Id on every request.'));
    }
    const opened = await this.start(caller);
    return opened.transport.handleRequest(req, res, req.body);
  }

  private async start(caller: Caller): Promise<Open> {
    this.evictFor(caller.keyId);
    const id = randomUUID();
    const session = new McpSession(id, join(this.dir, id), this.ctx.clock);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    const server = createMcpServer({ ctx: this.ctx, session, callerOf: (extra) => Promise.resolve(callerFrom(extra.authInfo)), track: (call) => this.track(call) });
    const opened: Open = { session, server, transport, keyId: caller.keyId };
    this.open.set(id, opened);
    transport.onclose = () => {
      this.open.delete(id);
      void session.close();
    };
    await server.connect(transport);
    return opened;
  }

  private evictFor(keyId: string): void {
    const own = [...this.open.values()].filter((o) => o.keyId === keyId).sort((a, b) => a.session.lastUsed - b.session.lastUsed);
    for (const stale of own.slice(0, Math.max(0, own.length - SESSIONS_PER_KEY + 1))) void stale.server.close();
  }

  private async closeIdle(): Promise<void> {
    const before = Date.now() - this.ctx.config.mcpSessionIdleMs;
    await Promise.all([...this.open.values()].filter((o) => o.session.lastUsed < before).map((o) => o.server.close()));
  }

  private track(call: Promise<unknown>): void {
    const done = call.catch(() => undefined).finally(() => this.calls.delete(done));
    this.calls.add(done);
  }

  /** Shutdown: lets the tool calls in flight answer (up to `waitMs`), then closes every session and deletes its files. */
  async closeAll(waitMs: number): Promise<void> {
    clearInterval(this.sweep);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all([...this.calls]), new Promise((done) => (timer = setTimeout(done, waitMs)))]);
    clearTimeout(timer);
    await Promise.all([...this.open.values()].map((o) => o.server.close()));
    await rm(this.dir, { recursive: true, force: true });
  }
}

function callerFrom(auth: AuthInfo | undefined): Caller {
  const caller = auth?.extra?.caller as Caller | undefined;
  if (!caller) throw new ApiError('invalid_api_key');
  return caller;
}

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });
