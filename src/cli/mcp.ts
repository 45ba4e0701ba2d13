// `mcp`: the MCP tools over stdio for one agent, acting for the API key in JPS_API_KEY. stdout carries
// only MCP messages; logs go to stderr.

import { once } from 'node:events';
import { SETTINGS } from '../config.js';
import { UsageError, type Command } from './command.js';

export const API_KEY_ENV = 'JPS_API_KEY';

export const mcpCommand: Command = {
  name: 'mcp',
  summary: `Serves the MCP tools over stdio (for an agent that starts this process), acting for the API key in the environment variable ${API_KEY_ENV}. Logs go to stderr. Over HTTP, the server answers MCP at /mcp instead.`,
  options: [],
  settings: SETTINGS.map((s) => s.key).filter((key) => key !== 'host' && key !== 'port' && key !== 'mcpSessionIdleMs'),
  async run({ config }) {
    const key = process.env[API_KEY_ENV];
    if (!key) throw new UsageError(`set ${API_KEY_ENV} to the API key the tools act for`);
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const { openCore } = await import('../core.js');
    const { StoreBusyError } = await import('../db/open-state.js');
    const { ApiError } = await import('../errors.js');
    const { createLogger } = await import('../logger.js');
    const { createMcpServer } = await import('../mcp/server.js');
    const { LocalSession } = await import('../mcp/local-session.js');
    const { authenticate } = await import('../metering/keys.js');
    const logger = createLogger(config.logLevel, 2);
    const core = await openCore(config, { logger }).catch((error: unknown) => {
      if (!(error instanceof StoreBusyError)) throw error;
      throw new StoreBusyError(
        error.holder,
        config.dataDir,
        'while a server holds the embedded store, connect the agent to its MCP endpoint (/mcp) instead',
      );
    });
    const { ctx } = core;
    if (!(await authenticate(ctx.store, key))) {
      await core.close();
      process.stderr.write(`mcp: ${API_KEY_ENV} is not a valid API key: it is malformed, unknown or revoked\n`);
      return 1;
    }
    // The process is the session: its level and files are its own (over HTTP they are shared by every replica).
    const session = await LocalSession.open(config.dataDir, ctx.clock);
    const server = createMcpServer({
      ctx,
      session,
      // The key is checked again on every call: a key revoked while the agent runs stops at its next call.
      callerOf: async () =>
        (await authenticate(ctx.store, key)) ??
        Promise.reject(new ApiError('invalid_api_key', `The API key in ${API_KEY_ENV} is no longer valid: it was revoked.`)),
    });
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((done) => (transport.onclose = done));
    await server.connect(transport);
    logger.info({ store: ctx.store.kind, data_dir: config.dataDir }, 'mcp: serving over stdio');
    // The agent ends the session by closing stdin, or the process is told to stop.
    const ended = once(process.stdin, 'end');
    await Promise.race([closed, ended, once(process, 'SIGTERM'), once(process, 'SIGINT')]);
    await server.close();
    await session.close();
    await core.close();
  },
};
