import { expect } from 'chai';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { publish } from '../../src/catalog/publish/publish.js';
import { seededDataDir, tempDir } from '../support/app.js';
import { cliEntry, runCli } from '../support/cli.js';
import { connect, output, toolError } from '../support/mcp.js';
import { inOneWindow } from '../support/window.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('MCP over stdio (`cli mcp`)', function () {
  this.timeout(240_000);
  let dataDir: string;
  let snapshotsDir: string;

  before(async () => {
    const root = await tempDir('mcp-stdio');
    dataDir = await seededDataDir(join(root, 'data'));
    snapshotsDir = join(root, 'snapshots');
    await generateCorpus({ jobs: 200, seed: 10, days: 1, start: '2026-11-18' }, join(root, 'corpus'), { workers: 0 });
    await publish({ input: join(root, 'corpus', 'day-001'), snapshotsDir, dataDir, quiet: true, memoryLimit: '1GB' });
  });

  const cli = async (...args: string[]) => {
    const result = await runCli([...args, '--data-dir', dataDir, '--json']);
    expect(result.code, result.stderr).to.equal(0);
    return JSON.parse(result.stdout) as Record<string, string>;
  };
  async function agentKey(plan: string): Promise<{ key: string; keyId: string }> {
    const account = await cli('accounts', 'create', '--plan', plan);
    const issued = await cli('keys', 'create', '--account', account.account_id!);
    return { key: issued.key!, keyId: issued.key_id! };
  }
  function start(key: string): Promise<Client> {
    return connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...cliEntry(), 'mcp'],
        cwd: ROOT,
        env: {
          ...(process.env as Record<string, string>),
          JPS_API_KEY: key,
          JPS_DATA_DIR: dataDir,
          JPS_SNAPSHOTS_DIR: snapshotsDir,
          JPS_LOG_LEVEL: 'silent',
        },
        stderr: 'pipe',
      }),
    );
  }

  it('serves the nine tools; each answers with output that matches its schema, and only the spending tools take a request', async () => {
    const { key } = await agentKey('paid-25k');
    const client = await start(key);
    const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });
    try {
      expect((await client.listTools()).tools).to.have.length(9);
      output(await call('list_fields'));
      output(await call('search_docs', { query: 'export files' }));
      output(await call('set_confirmation_level', { level: 'paid_only' }));
      output(await call('set_overage', { enabled: false }));
      const page = output<{ jobs: { job_id: string }[] }>(await call('search_jobs', { limit: 3 }));
      expect(page.jobs).to.have.length(3);
      output(await call('get_job', { job_id: page.jobs[0]!.job_id }));
      expect(output<{ count: number }>(await call('count_jobs', {})).count).to.be.above(0);
      const saved = output<{ file: { file_id: string; jobs: number } }>(await call('search_jobs', { save_to_file: true, country: 'US' }));
      const read = output<{ jobs: unknown[]; total: number }>(await call('read_file', { file_id: saved.file.file_id, limit: 25 }));
      expect(read.total).to.equal(saved.file.jobs);
      const usage = output<{ requests: { used: number }; records: { used: number } }>(await call('get_usage'));
      expect(usage.requests.used).to.equal(4);
      expect(usage.records.used).to.equal(3 + 1 + saved.file.jobs);
    } finally {
      await client.close();
    }
  });

  it('answers the 31st call of a minute on the free plan with the tool error rate_limited (http_status 429)', async () => {
    // The 31 calls fall in one request window: a run that straddles a minute runs again with a new account.
    const last = await inOneWindow(async () => {
      const { key } = await agentKey('free');
      const client = await start(key);
      try {
        for (let i = 0; i < 30; i++) output(await client.callTool({ name: 'count_jobs', arguments: {} }));
        return await client.callTool({ name: 'count_jobs', arguments: {} });
      } finally {
        await client.close();
      }
    });
    expect(toolError(last)).to.include({ code: 'rate_limited', http_status: 429 });
  });

  it('stops at the next call once its key is revoked (through the admin socket while it holds the store)', async () => {
    const { key, keyId } = await agentKey('paid-25k');
    const client = await start(key);
    try {
      output(await client.callTool({ name: 'list_fields', arguments: {} }));
      await cli('keys', 'revoke', keyId);
      expect(toolError(await client.callTool({ name: 'list_fields', arguments: {} }))).to.include({
        code: 'invalid_api_key',
        http_status: 401,
      });
    } finally {
      await client.close();
    }
  });

  it('exits with a message when JPS_API_KEY is missing or not a valid key', async () => {
    const missing = await runCli(['mcp', '--data-dir', dataDir], { JPS_API_KEY: '' });
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.match(/JPS_API_KEY/);
    const wrong = await runCli(['mcp', '--data-dir', dataDir, '--snapshots-dir', snapshotsDir], {
      JPS_API_KEY: 'jps_live_nope',
      JPS_LOG_LEVEL: 'silent',
    });
    expect(wrong.code).to.equal(1);
    expect(wrong.stderr).to.match(/not a valid API key/);
  });
});
