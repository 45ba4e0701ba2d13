// The MCP agent evaluation (issue 22) on a small catalog: `npm run bench:mcp-agent -- --jobs 300`. What is
// asserted is that it runs end to end, reports every task, and that each task's checker computed the right
// answer; not that the agents' answers are right (some are not, with today's tools: see bench/README.md).

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Results {
  totals: { calls: number; chars: number; tools_list_chars: number; tool_result_chars: number; right: number; tasks: number };
  tasks: { id: string; calls: number; chars: number; right: boolean; checked: boolean; error?: string; tool_calls: unknown[] }[];
}

describe('the MCP agent evaluation (smoke run)', function () {
  this.timeout(120_000);

  it('runs the 20 tasks on a 300-job catalog, counts their calls and characters, and checks every answer', async () => {
    let out = '';
    let err = '';
    const code = await new Promise<number | null>((done) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'bench/mcp-agent.ts', '--jobs', '300'], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('close', done);
    });
    expect(code, `${out}\n${err.slice(-2000)}`).to.equal(0);
    console.log(out.slice(out.indexOf(' #'), out.indexOf('written to')).replace(/^/gm, '      '));
    const rows = out.split('\n').filter((line) => /^\s*\d+ {2}\S+\s+\d+\s+[\d,]+ {2}(yes|NO)\b/.test(line));
    expect(rows, out).to.have.length(20);
    expect(out).to.match(/^tools\/list: [\d,]+ characters$/m);

    const file = /written to (\S+\.json)/.exec(out)?.[1];
    expect(file, out).to.be.a('string');
    const results = JSON.parse(await readFile(file!, 'utf8')) as Results;
    expect(results.tasks).to.have.length(20);
    expect(new Set(results.tasks.map((t) => t.id)).size).to.equal(20);
    for (const t of results.tasks) {
      expect(t.checked, `${t.id}: the checker ran (${t.error ?? ''})`).to.equal(true);
      expect(t.calls, t.id).to.equal(t.tool_calls.length);
      expect(t.calls, `${t.id}: the agent called a tool`).to.be.greaterThan(0);
    }
    const { totals } = results;
    expect(totals.tasks).to.equal(20);
    expect(totals.calls).to.equal(results.tasks.reduce((n, t) => n + t.calls, 0));
    expect(totals.tools_list_chars).to.be.greaterThan(0);
    expect(totals.chars).to.equal(totals.tool_result_chars + totals.tools_list_chars);
    expect(totals.tool_result_chars).to.equal(results.tasks.reduce((n, t) => n + t.chars, 0));
  });
});
