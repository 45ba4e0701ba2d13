// The MCP server of one session: the tool list, input validation against each tool's schema, and the
// answer of a call: its structured result, or a tool error carrying the API's error code and http_status.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { AppContext } from '../context.js';
import { asApiError, errorBody, invalidRequest, type ApiError } from '../errors.js';
import { newRequestId } from '../shared/ids.js';
import { throttlesOf, type ThrottleName } from '../shared/throttles.js';
import type { Caller } from '../metering/keys.js';
import type { McpSession } from './session.js';
import { inputValidator, type JsonSchema } from './schemas.js';
import type { Tool } from './tool.js';
import { ACCOUNT_TOOLS } from './tools/account.js';
import { filterHint } from './tools/filter-inputs.js';
import { JOB_TOOLS } from './tools/jobs.js';
import { readFileTool, searchDocsTool } from './tools/reading.js';

export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface McpServerOptions {
  ctx: AppContext;
  session: McpSession;
  /** The caller of this call (its key checked again on every call: revoked keys stop at once); throws invalid_api_key. */
  callerOf: (extra: CallExtra) => Promise<Caller>;
  /** Told of every tool call while it runs: a shutdown lets them finish before it closes the sessions. */
  track?: (call: Promise<unknown>) => void;
}

const INSTRUCTIONS = [
  'Job postings catalog: jobs collected from employers and ATSs, duplicates merged into one job.',
  'Call list_fields for the filters; search_jobs pages through matching jobs (or saves up to 5,000 to a file that read_file pages through); count_jobs counts; get_job fetches one.',
  'search_jobs, get_job and count_jobs take one API request per call and charge one record per job returned; the other tools are free. get_usage shows what is left.',
  'When a spending call answers status "confirmation_required", show the cost and call again with confirm: true only if that spending is wanted. search_docs answers questions about the API.',
].join(' ');

/**
 * The tools that use no requests, throttled per account instead (set_overage with PUT /v1/account/overage);
 * search_jobs, get_job and count_jobs are held by the request window.
 */
const THROTTLED: Record<string, ThrottleName> = {
  list_fields: 'freeTools',
  get_usage: 'freeTools',
  set_confirmation_level: 'freeTools',
  read_file: 'freeTools',
  search_docs: 'freeTools',
  set_overage: 'overageChanges',
};

/** Each tool with the validator of its input. */
interface Entry {
  tool: Tool;
  validate: ValidateFunction;
  /** Its output schema as the listing shows it (shapeOf). */
  listedOutput: JsonSchema;
}

let registry: Map<string, Entry> | undefined;

/**
 * An output schema as listed: its properties and their types, without the words and the nesting, which the
 * tool's description, list_fields and search_docs hold (the listing is what every agent reads before its
 * first call). The tools' answers are tested against their whole schemas.
 */
function shapeOf(schema: JsonSchema): JsonSchema {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const typeOf = (s: JsonSchema) => (s.enum ? { enum: s.enum } : { type: s.type ?? 'object' });
  return { type: 'object', properties: Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, typeOf(s)])) };
}

function tools(): Map<string, Entry> {
  if (registry) return registry;
  const all = [...JOB_TOOLS, ...ACCOUNT_TOOLS, readFileTool, searchDocsTool];
  registry = new Map(
    all.map((tool) => [tool.name, { tool, validate: inputValidator(tool.inputSchema), listedOutput: shapeOf(tool.outputSchema) }]),
  );
  return registry;
}

export function createMcpServer(options: McpServerOptions): Server {
  const entries = tools();
  const server = new Server(
    { name: 'job-postings', title: 'Job postings data service', version: '0.1.0' },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...entries.values()].map(({ tool, listedOutput }) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: 'object' },
      outputSchema: listedOutput as { type: 'object' },
      annotations: tool.annotations,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, (request, extra): Promise<CallToolResult> => {
    const call = callTool(options, entries, request.params, extra);
    options.track?.(call);
    return call;
  });
  return server;
}

/** One tool call: the caller, the arguments checked against the tool's schema, then the tool. */
async function callTool(
  options: McpServerOptions,
  entries: Map<string, Entry>,
  params: { name: string; arguments?: Record<string, unknown> },
  extra: CallExtra,
): Promise<CallToolResult> {
  const { ctx } = options;
  const entry = entries.get(params.name);
  if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}. Call tools/list for the tools.`);
  const requestId = newRequestId();
  const started = performance.now();
  const log = (fields: Record<string, unknown>) =>
    ctx.logger.info(
      { request_id: requestId, tool: entry.tool.name, ms: Math.round(performance.now() - started), ...fields },
      'mcp tool call',
    );
  try {
    const caller = await options.callerOf(extra);
    const throttle = THROTTLED[entry.tool.name];
    if (throttle) await throttlesOf(ctx).take(throttle, caller.account.account_id);
    const args = params.arguments ?? {};
    if (!entry.validate(args)) throw invalidRequest(validationMessage(entry.validate.errors ?? [], entry.tool));
    const result = await entry.tool.run(args, { ctx, session: options.session, caller, requestId });
    log({ status: 'ok' });
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  } catch (error) {
    const apiError = asApiError(error);
    if (apiError.code === 'internal_error')
      ctx.logger.error({ err: error, request_id: requestId, tool: entry.tool.name }, 'mcp tool call failed');
    log({ status: apiError.status, code: apiError.code });
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(toolError(apiError, requestId)) }] };
  }
}

/** The error envelope of the HTTP API, with the status the same failure has there and, on 429, the seconds to wait. */
export function toolError(error: ApiError, requestId: string): { error: Record<string, unknown> } {
  const body = errorBody(error, requestId);
  const retryAfter = error.headers['Retry-After'];
  return { error: { ...body.error, http_status: error.status, ...(retryAfter ? { retry_after_seconds: Number(retryAfter) } : {}) } };
}

/** What is wrong with the arguments, in plain words naming the input, with its example; never a pattern. */
function validationMessage(errors: ErrorObject[], tool: Tool): string {
  const [first] = errors;
  if (!first) return 'The arguments are invalid.';
  const inputs = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  if (first.keyword === 'additionalProperties') {
    const name = (first.params as { additionalProperty: string }).additionalProperty;
    return filterHint(name) ?? `${tool.name} takes no argument "${name}"; it takes ${Object.keys(inputs).join(', ')}.`;
  }
  const where = first.instancePath === '' ? 'arguments' : first.instancePath.slice(1).replaceAll('/', '.');
  if (first.keyword === 'enum')
    return `${where} must be one of: ${(first.params as { allowedValues: unknown[] }).allowedValues.join(', ')}.`;
  if (first.keyword === 'required') return `${tool.name} needs ${(first.params as { missingProperty: string }).missingProperty}.`;
  const about = inputs[where.split('.')[0]!]?.description;
  const said = first.keyword === 'pattern' || first.keyword === 'format' ? 'is not in the form it takes' : (first.message ?? 'is invalid');
  return `${where} ${said}${typeof about === 'string' ? ` (${about})` : '.'}`;
}
