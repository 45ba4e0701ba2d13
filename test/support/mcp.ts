// MCP clients of the SDK for the tests: over Streamable HTTP at /mcp, or over stdio to `cli mcp`.

import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export type ToolResult = Awaited<ReturnType<Client['callTool']>>;

export interface ToolErrorBody {
  code: string;
  message: string;
  http_status: number;
  request_id: string;
  retry_after_seconds?: number;
}

/** A connected client that has listed the tools, so every callTool checks its output against the tool's schema. */
export async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'jps-tests', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  return client;
}

export function overHttp(url: string, key: string): Promise<Client> {
  return connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
}

/**
 * A client behind a load balancer without affinity: each HTTP request goes to the replica whose URL
 * `route()` answers at the time.
 */
export function overReplicas(route: () => string, key: string): Promise<Client> {
  const balanced = (url: string | URL, init?: RequestInit) => fetch(new URL(new URL(url).pathname, route()), init);
  return connect(
    new StreamableHTTPClientTransport(new URL('/mcp', route()), {
      fetch: balanced,
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
}

/** The Mcp-Session-Id of a client over HTTP. */
export function sessionIdOf(client: Client): string {
  const id = client.transport?.sessionId;
  expect(id, 'an MCP session id').to.be.a('string');
  return id!;
}

/** The structured result of a call that succeeded. */
export function output<T = Record<string, unknown>>(result: ToolResult): T {
  expect(result.isError, `tool error: ${JSON.stringify(result.content)}`).to.not.equal(true);
  expect(result.structuredContent, 'structured content').to.be.an('object');
  // The text content carries the same result, for clients that read text only.
  expect(JSON.parse((result.content as { text: string }[])[0]!.text)).to.deep.equal(result.structuredContent);
  return result.structuredContent as T;
}

/** The error envelope of a call that failed as a tool error. */
export function toolError(result: ToolResult): ToolErrorBody {
  expect(result.isError, `expected a tool error, got ${JSON.stringify(result.structuredContent)}`).to.equal(true);
  const body = JSON.parse((result.content as { text: string }[])[0]!.text) as { error: ToolErrorBody };
  return body.error;
}
