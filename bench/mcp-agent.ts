// The MCP agent evaluation (issue 22): `npm run bench:mcp-agent -- [--jobs 2000] [--seed 1]`.
// 1. the catalog of bench/catalog.ts (generated once per --jobs and --seed into bench/.cache/, published afresh);
// 2. the real server in its own process (bench/service.ts) with a paid account for the agent and a
//    few other accounts for the checker;
// 3. an MCP client over Streamable HTTP with the agent's key, which lists the tools once, then 20 tasks
//    (bench/mcp-agent-tasks.ts), one after the other in that one session: a scripted agent (no LLM)
//    answers each with tool calls, and a checker computes the right answer through the REST API.
// It prints, per task, the tool calls made, the characters received (JSON of every tool result) and
// whether the answer was right; the totals add the tools/list listing once. The same figures, each
// call's arguments and every answer and right answer go to bench/results/mcp-agent-<time>.json.

import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { benchCatalog } from './catalog.js';
import { writeResults } from './results.js';
import { Agent, GaveUp, Rest, type CallRecord, type Check, type Checking } from './mcp-agent-kit.js';
import { sampleCatalog, type Sample } from './mcp-agent-sample.js';
import { TASKS } from './mcp-agent-tasks.js';
import { startBenchService } from './service.js';

const { values } = parseArgs({
  options: { jobs: { type: 'string', default: '2000' }, seed: { type: 'string', default: '1' } },
  strict: true,
});
const jobs = Number(values.jobs);
const seed = Number(values.seed);
/** Accounts of the checker, taken in turn: each request window admits 60 a minute. */
const CHECKER_ACCOUNTS = 4;

interface TaskRun {
  id: string;
  goal: string;
  calls: number;
  chars: number;
  right: boolean;
  /** The checker ran to the end (it computed the right answer). */
  checked: boolean;
  answer: unknown;
  expected: unknown;
  note?: string;
  /** Why the agent gave up, or what failed in the checker. */
  error?: string;
  tool_calls: CallRecord[];
}

async function runTask(task: (typeof TASKS)[number], agent: Agent, sample: Sample, checking: Checking): Promise<TaskRun> {
  const from = agent.calls.length;
  let answer: unknown;
  let error: string | undefined;
  try {
    answer = await task.agent(agent, sample);
  } catch (e) {
    if (!(e instanceof GaveUp)) throw e;
    error = `agent gave up: ${e.message}`;
  }
  const { calls, chars } = agent.since(from);
  let check: Check = { right: false, expected: undefined };
  let checked = false;
  try {
    check = await task.check(answer, sample, checking);
    checked = true;
  } catch (e) {
    error = [error, `checker failed: ${e instanceof Error ? e.message : String(e)}`].filter(Boolean).join('; ');
  }
  return {
    id: task.id,
    goal: task.goal(sample),
    calls: calls.length,
    chars,
    ...check,
    checked,
    answer,
    ...(error ? { error } : {}),
    tool_calls: calls,
  };
}

function table(runs: TaskRun[], listing: number): string {
  const header = ['#', 'task', 'calls', 'characters', 'right?', 'tools called'];
  const rows = runs.map((r, i) => [
    String(i + 1),
    r.id,
    String(r.calls),
    r.chars.toLocaleString('en-US'),
    r.right ? 'yes' : 'NO',
    r.tool_calls.map((c) => (c.ok ? c.tool : `${c.tool}(error)`)).join(' '),
  ]);
  const calls = runs.reduce((n, r) => n + r.calls, 0);
  const chars = runs.reduce((n, r) => n + r.chars, 0);
  rows.push([
    '',
    'total (with tools/list)',
    String(calls),
    (chars + listing).toLocaleString('en-US'),
    `${runs.filter((r) => r.right).length}/${runs.length}`,
    '',
  ]);
  const numeric = new Set([0, 2, 3]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (numeric.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

const catalog = await benchCatalog(jobs, seed);
const service = await startBenchService(catalog, 0, CHECKER_ACCOUNTS);
const runs: TaskRun[] = [];
let listing: number;
let sample: Sample;
try {
  const rest = new Rest(service.url, service.keys);
  sample = await sampleCatalog(rest, seed);
  const client = new Client({ name: 'jps-mcp-agent-eval', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', service.url), {
      requestInit: { headers: { Authorization: `Bearer ${service.key}` } },
    }),
  );
  try {
    // Once per run, as an agent reads it when it connects (the client then checks each result against its output schema).
    listing = JSON.stringify(await client.listTools()).length;
    const agent = new Agent(client);
    for (const task of TASKS) runs.push(await runTask(task, agent, sample, { rest, agentKey: service.key }));
  } finally {
    await client.close();
  }
} finally {
  await service.close();
}

const calls = runs.reduce((n, r) => n + r.calls, 0);
const toolChars = runs.reduce((n, r) => n + r.chars, 0);
const right = runs.filter((r) => r.right).length;
console.log(
  `catalog  ${catalog.publish.jobs.toLocaleString('en-US')} jobs (--jobs ${jobs}, --seed ${seed}), snapshot ${sample.watermark}\n`,
);
console.log(table(runs, listing));
console.log(`\ntools/list: ${listing.toLocaleString('en-US')} characters`);
console.log(`tool results: ${toolChars.toLocaleString('en-US')} characters in ${calls} calls`);
console.log(`total: ${calls} calls, ${(toolChars + listing).toLocaleString('en-US')} characters, ${right}/${runs.length} tasks right`);
for (const r of runs.filter((x) => x.error)) console.log(`  ${r.id}: ${r.error}`);

const totals = { calls, tool_result_chars: toolChars, tools_list_chars: listing, chars: toolChars + listing, right, tasks: runs.length };
await writeResults('mcp-agent', { at: new Date().toISOString(), jobs, seed, catalog: catalog.publish, sample, totals, tasks: runs });
