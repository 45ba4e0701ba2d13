// The parts of the MCP agent evaluation (bench/mcp-agent.ts) that do not depend on what the tools take
// or answer: the scripted agent's counted access to the tools, the checker's REST client, and what a
// task is. When the tools are reworked only the scripted agents of bench/mcp-agent-tasks.ts change.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** What a tool error says, as the agent reads it. */
export interface ToolFailure {
  code: string;
  message: string;
  http_status?: number;
}

export type ToolReply<T> = { ok: true; data: T } | { ok: false; error: ToolFailure };

/** One tool call as the evaluation records it. */
export interface CallRecord {
  tool: string;
  args: Record<string, unknown>;
  /** Characters of the result as the client received it: JSON.stringify of the callTool result. */
  chars: number;
  ok: boolean;
  error?: string;
}

/** The agent gave up: a tool failed in a way its script has no answer for. */
export class GaveUp extends Error {}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The scripted agent's hands: every tool call goes through here and is counted (calls and the
 * characters of each result). What an agent reads is the structured content, or the JSON of the text
 * content when there is none; a tool error's envelope, or its text.
 */
export class Agent {
  readonly calls: CallRecord[] = [];

  constructor(private readonly client: Client) {}

  async call<T>(tool: string, args: Record<string, unknown> = {}): Promise<ToolReply<T>> {
    let result: unknown;
    try {
      result = await this.client.callTool({ name: tool, arguments: args });
    } catch (error) {
      // A protocol error (an unknown tool, a result its output schema refuses): the agent reads the message.
      const message = error instanceof Error ? error.message : String(error);
      this.calls.push({ tool, args, chars: JSON.stringify({ error: message }).length, ok: false, error: message });
      return { ok: false, error: { code: 'protocol_error', message } };
    }
    const reply = result as { isError?: boolean; structuredContent?: unknown; content?: { type: string; text?: string }[] };
    const text = reply.content?.find((c) => c.type === 'text')?.text;
    const read = reply.structuredContent ?? parseJson(text);
    const record: CallRecord = { tool, args, chars: JSON.stringify(result).length, ok: reply.isError !== true };
    this.calls.push(record);
    if (reply.isError !== true) return { ok: true, data: read as T };
    const envelope = (read as { error?: Partial<ToolFailure> } | undefined)?.error;
    const error: ToolFailure = {
      code: envelope?.code ?? 'tool_error',
      message: envelope?.message ?? text ?? '',
      ...(envelope?.http_status === undefined ? {} : { http_status: envelope.http_status }),
    };
    record.error = `${error.code}: ${error.message}`;
    return { ok: false, error };
  }

  /** The result of a call that must succeed; a tool error ends the task (the agent has nothing else to try). */
  async must<T>(tool: string, args: Record<string, unknown> = {}): Promise<T> {
    const reply = await this.call<T>(tool, args);
    if (!reply.ok) throw new GaveUp(`${tool}: ${reply.error.code}: ${reply.error.message}`);
    return reply.data;
  }

  /**
   * A call that, when it fails, is tried once more with the arguments `fix` makes from the error (as an
   * agent that reads the message would), unless `fix` has no correction.
   */
  async retrying<T>(tool: string, args: Record<string, unknown>, fix: (error: ToolFailure) => Record<string, unknown> | undefined) {
    const first = await this.call<T>(tool, args);
    if (first.ok) return first.data;
    const corrected = fix(first.error);
    if (!corrected) throw new GaveUp(`${tool}: ${first.error.code}: ${first.error.message}`);
    return this.must<T>(tool, corrected);
  }

  /** The calls made and characters received since `from` calls. */
  since(from: number): { calls: CallRecord[]; chars: number } {
    const calls = this.calls.slice(from);
    return { calls, chars: calls.reduce((sum, c) => sum + c.chars, 0) };
  }
}

type Params = Record<string, string | number | boolean | string[] | undefined>;

/**
 * The checker's access to the REST API, with keys of accounts other than the agent's (taken in turn, so
 * that no account's request window fills), or the agent's own key where a task asks about its account.
 */
export class Rest {
  private turn = 0;

  constructor(
    readonly url: string,
    private readonly keys: string[],
  ) {}

  async get<T>(path: string, params: Params = {}, key?: string): Promise<T> {
    const url = new URL(path, this.url);
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined) url.searchParams.set(name, Array.isArray(value) ? value.join(',') : String(value));
    }
    const response = await fetch(url, { headers: { Authorization: `Bearer ${key ?? this.keys[this.turn++ % this.keys.length]}` } });
    const body = await response.text();
    if (!response.ok) throw new Error(`GET ${url.pathname}${url.search}: ${response.status} ${body.slice(0, 300)}`);
    return JSON.parse(body) as T;
  }

  async count(params: Params): Promise<number> {
    return (await this.get<{ count: number }>('/v1/jobs/count', params)).count;
  }

  async groups(params: Params, groupBy: string): Promise<{ value: string | null; count: number }[]> {
    return (await this.get<{ groups: { value: string | null; count: number }[] }>('/v1/jobs/count', { ...params, group_by: groupBy }))
      .groups;
  }

  /** Every matching job (pages of 250), in listing order. */
  async jobs<T extends { job_id: string }>(params: Params, fields: string[] = ['job_id'], most = Infinity): Promise<T[]> {
    const all: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.get<{ data: T[]; next_cursor: string | null }>('/v1/jobs', { ...params, fields, limit: 250, cursor });
      all.push(...page.data);
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined && all.length < most);
    return all.slice(0, most);
  }
}

/** What the checker found: whether the answer is right, and the right answer it computed. */
export interface Check {
  right: boolean;
  expected: unknown;
  note?: string;
}

/** What the checker has to work with. */
export interface Checking {
  rest: Rest;
  /** The agent's key: for what a task asks about the agent's own account (the read counts one request there). */
  agentKey: string;
}

/** One task of the evaluation, over the values `S` sampled from the catalog. */
export interface Task<S> {
  id: string;
  goal: (s: S) => string;
  /** The scripted agent: tool calls only, through `agent`; resolves to its final answer. */
  agent: (agent: Agent, s: S) => Promise<unknown>;
  /** Computes the right answer through the REST API and compares; `answer` is undefined when the agent gave up. */
  check: (answer: unknown, s: S, c: Checking) => Promise<Check>;
}

/** A task with its answer typed. */
export function task<S, A>(def: {
  id: string;
  goal: (s: S) => string;
  agent: (agent: Agent, s: S) => Promise<A>;
  check: (answer: A | undefined, s: S, c: Checking) => Promise<Check>;
}): Task<S> {
  return def as Task<S>;
}

export function sameSet(a: readonly string[] | undefined, b: readonly string[]): boolean {
  if (!a) return false;
  const left = new Set(a);
  return left.size === new Set(b).size && b.every((x) => left.has(x));
}

/** The check of a number (or any value compared as JSON). */
export function equalCheck(answer: unknown, expected: unknown): Check {
  return { right: answer !== undefined && JSON.stringify(answer) === JSON.stringify(expected), expected };
}
