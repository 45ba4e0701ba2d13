// What an MCP tool is here: its name, its JSON Schemas and a function over the shared services.

import type { AppContext } from '../context.js';
import type { Caller } from '../metering/keys.js';
import type { JsonSchema } from './schemas.js';
import type { McpSession } from './session.js';

/** One call of a tool: who calls, in which session, under which request id. */
export interface ToolCall {
  ctx: AppContext;
  session: McpSession;
  caller: Caller;
  requestId: string;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  /** The structured result; an ApiError thrown becomes a tool error carrying its code and http_status. */
  run(args: Record<string, unknown>, call: ToolCall): Promise<Record<string, unknown>>;
}
