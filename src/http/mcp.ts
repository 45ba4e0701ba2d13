// MCP over Streamable HTTP at /mcp: one session per initialize, bound to the API key that opened it.
// A session lives in the state store and the object store, not in a replica: each request is answered by
// an MCP server and transport made for it alone, on whichever replica the load balancer chose, so
// sessions need no affinity and outlive the replica that opened them. Every request is authenticated as
// the API's are; the tools meter themselves, so /mcp passes by the request admission of the routes.

import express, { type Request, type Response } from 'express';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { callerOf } from './auth.js';
import type { Caller } from '../metering/keys.js';
import { createMcpServer } from '../mcp/server.js';
import { SessionRegistry } from '../mcp/session-registry.js';
import type { StoredSession } from '../mcp/stored-session.js';

/** The JSON-RPC body of a call (tool arguments are small: search bodies are at most 16,384 bytes). */
const BODY_LIMIT_BYTES = 65_536;

export class McpHttpSessions {
  private readonly sessions: SessionRegistry;
  private readonly calls = new Set<Promise<unknown>>();
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly ctx: AppContext) {
    this.sessions = new SessionRegistry(ctx);
    this.sweep = setInterval(() => void this.sweepIdle(), Math.min(60_000, Math.max(1000, ctx.config.mcpSessionIdleMs / 4)));
    this.sweep.unref();
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
    if (id === undefined) {
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        return void res
          .status(400)
          .json(
            rpcError(-32000, 'No Mcp-Session-Id header: start with an initialize request, then send its Mcp-Session-Id on every request.'),
          );
      }
      return this.serve(req, res, await this.sessions.open(caller.keyId), true);
    }
    // A session is only ever seen by the key that opened it: to any other, it does not exist.
    const session = await this.sessions.find(id, caller.keyId);
    if (!session)
      return void res
        .status(404)
        .json(rpcError(-32001, 'Session not found: it expired, was closed, or belongs to another API key; initialize a new one.'));
    if (req.method === 'DELETE') {
      await this.sessions.end(id);
      return void res.status(200).end();
    }
    // No stream for messages the server starts (it sends none), which would tie the client to a replica.
    if (req.method !== 'POST')
      return void res
        .status(405)
        .set('Allow', 'POST, DELETE')
        .json(rpcError(-32000, 'Method not allowed: send messages with POST, end the session with DELETE.'));
    return this.serve(req, res, session, false);
  }

  /** Answers one request of the session; the initialize request also names the session in its answer. */
  private async serve(req: Request, res: Response, session: StoredSession, initialize: boolean): Promise<void> {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: initialize ? () => session.id : undefined });
    const server = createMcpServer({
      ctx: this.ctx,
      session,
      callerOf: (extra) => Promise.resolve(callerFrom(extra.authInfo)),
      track: (call) => this.track(call),
    });
    res.on('close', () => void server.close());
    if (!initialize) res.setHeader('Mcp-Session-Id', session.id);
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  private async sweepIdle(): Promise<void> {
    await this.sessions
      .sweep()
      .catch((error: unknown) => this.ctx.logger.warn({ err: error }, 'mcp: sweeping idle sessions failed; the next sweep tries again'));
  }

  private track(call: Promise<unknown>): void {
    const done = call.catch(() => undefined).finally(() => this.calls.delete(done));
    this.calls.add(done);
  }

  /** Shutdown: lets the tool calls in flight answer (up to `waitMs`). The sessions stay, for the other replicas. */
  async closeAll(waitMs: number): Promise<void> {
    clearInterval(this.sweep);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all([...this.calls]), new Promise((done) => (timer = setTimeout(done, waitMs)))]);
    clearTimeout(timer);
    await this.sessions.close();
  }
}

function callerFrom(auth: AuthInfo | undefined): Caller {
  const caller = auth?.extra?.caller as Caller | undefined;
  if (!caller) throw new ApiError('invalid_api_key');
  return caller;
}

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });
