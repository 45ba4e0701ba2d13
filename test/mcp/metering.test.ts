import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { revokeKey } from '../../src/metering/keys.js';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';
import { output, overHttp, toolError } from '../support/mcp.js';

interface Cost {
  billing_model: string;
  requests: number;
  records_at_most: number;
  paid: boolean;
  usd_at_most: number;
}
interface Answer {
  status: 'done' | 'confirmation_required';
  cost?: Cost;
  message?: string;
  charged?: { requests: number; records: number };
  jobs?: unknown[];
  file?: { file_id: string; jobs: number };
}

const NOW = new Date('2026-11-25T10:00:30Z');
const MONTH = '2026-11-01';

describe('MCP metering, confirmation and sessions', function () {
  this.timeout(240_000);
  let app: TestApp;
  let matching: number;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 300, seed: 11 });
  });
  beforeEach(() => app.setNow(NOW));
  after(async () => {
    app?.setNow(undefined);
    await app?.close();
  });

  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  async function agent(input: Parameters<TestApp['account']>[0]) {
    const account = await app.account(input);
    const client = await overHttp(app.url, account.key);
    clients.push(client);
    const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });
    return { ...account, client, call };
  }
  const month = async (accountId: string) => {
    await app.service.ctx.meter.idle();
    const [row] = await app.store.query<{ records: number; requests: number; overage: number }>(
      'SELECT records_used::int AS records, requests_used::int AS requests, overage_used_micros::int AS overage FROM usage_months WHERE account_id = $1 AND month = $2::date',
      [accountId, MONTH],
    );
    return row ?? { records: 0, requests: 0, overage: 0 };
  };
  const ledger = async (accountId: string) => {
    await app.service.ctx.meter.idle();
    return app.store.query<{ status: number; settlement_status: string; records_charged: number }>(
      'SELECT status, settlement_status, records_charged::int AS records_charged FROM ledger WHERE account_id = $1 ORDER BY seq',
      [accountId],
    );
  };

  describe('monthly requests and the request window', () => {
    it('finishes every page of a call that starts with one request left, then refuses with the tool error rate_limited (http_status 429)', async () => {
      const { accountId, call } = await agent({ plan: 'free' });
      matching = output<{ count: number }>(await call('count_jobs', {})).count;
      expect(matching).to.be.above(25);
      await app.alter(accountId, 'UPDATE usage_months SET requests_drawn = requests_granted - 1 WHERE account_id = $1');
      expect(output<{ requests: { remaining: number } }>(await call('get_usage')).requests.remaining).to.equal(1);

      const saved = output<Answer>(await call('search_jobs', { save_to_file: true }));
      expect(saved.file!.jobs).to.equal(matching);
      expect(saved.charged).to.deep.equal({ requests: 1, records: matching });

      const refused = toolError(await call('search_jobs', {}));
      expect(refused).to.include({ code: 'rate_limited', http_status: 429 });
      expect(refused.message).to.match(/monthly API request allowance/);
      expect(refused.retry_after_seconds).to.equal((Date.parse('2026-12-01T00:00:00Z') - NOW.getTime()) / 1000);
      // The tools that take no request still answer.
      output(await call('read_file', { file_id: saved.file!.file_id }));
      output(await call('list_fields'));
      expect((await month(accountId)).requests).to.equal(2);
    });

    it('refuses the 31st call of a minute on the free plan with rate_limited and the seconds to wait', async () => {
      const { call } = await agent({ plan: 'free' });
      for (let i = 0; i < 30; i++) output(await call('count_jobs', {}));
      const refused = toolError(await call('count_jobs', {}));
      expect(refused).to.include({ code: 'rate_limited', http_status: 429 });
      expect(refused.retry_after_seconds).to.be.within(1, 60);
    });

    it('refuses a page the month cannot take with data_limit_exceeded, charging nothing and giving the request back', async () => {
      const { accountId, call, client } = await agent({ plan: 'free' });
      output(await call('count_jobs', {}));
      await app.alter(accountId, 'UPDATE usage_months SET records_used = 995 WHERE account_id = $1');
      const refused = toolError(await call('search_jobs', { limit: 10 }));
      expect(refused).to.include({ code: 'data_limit_exceeded', http_status: 429 });
      expect(await month(accountId)).to.include({ records: 995, requests: 1 });
      expect((await ledger(accountId)).at(-1)).to.include({ status: 429, settlement_status: 'not_charged', records_charged: 0 });
      // A save the month cannot take leaves no file behind: no object of the session, nothing being written.
      expect(toolError(await call('search_jobs', { save_to_file: true })).code).to.equal('data_limit_exceeded');
      const { stores } = app.service.ctx;
      expect(await stores.data.list(`mcp/${client.transport!.sessionId}/`)).to.deep.equal([]);
      const writing = await readdir(join(stores.cacheDir, 'mcp'), { recursive: true }).catch(() => [] as string[]);
      expect(writing.filter((f) => String(f).endsWith('.jsonl'))).to.deep.equal([]);
    });
  });

  describe('set_confirmation_level', () => {
    it('always: a spending call first answers with its cost and spends nothing until called with confirm: true', async () => {
      const { accountId, call } = await agent({ plan: 'paid-25k' });
      expect(output<{ level: string }>(await call('set_confirmation_level', { level: 'always' })).level).to.equal('always');
      const asked = output<Answer>(await call('search_jobs', { limit: 25 }));
      expect(asked.status).to.equal('confirmation_required');
      expect(asked.cost).to.deep.include({ billing_model: 'records', requests: 1, records_at_most: 25, paid: false, usd_at_most: 0 });
      expect(asked.message).to.match(/confirm: true/);
      expect(asked.jobs).to.equal(undefined);
      expect(await ledger(accountId)).to.deep.equal([]);
      const count = output<Answer>(await call('count_jobs', {}));
      expect(count.cost).to.include({ records_at_most: 0 });

      const done = output<Answer>(await call('search_jobs', { limit: 25, confirm: true }));
      expect(done.status).to.equal('done');
      expect(done.jobs).to.have.length(25);
      expect(await month(accountId)).to.include({ records: 25, requests: 1 });
    });

    it('paid_only (the default): asks only for a call that would bill overage, with the records past the allowance priced', async () => {
      const { accountId, call, key } = await agent({ plan: 'paid-5k' });
      expect((await app.api.put('/v1/account/overage', { enabled: true }, { key })).status).to.equal(200);
      output(await call('count_jobs', {}));
      await app.alter(accountId, 'UPDATE usage_months SET records_used = 4995 WHERE account_id = $1');
      // 4 records fit in the allowance: no question.
      expect(output<Answer>(await call('search_jobs', { limit: 4 })).status).to.equal('done');
      // 10 more: 9 are overage at the 5k plan's 0.002 USD per record.
      const asked = output<Answer>(await call('search_jobs', { limit: 10 }));
      expect(asked.status).to.equal('confirmation_required');
      expect(asked.cost).to.deep.include({ paid: true, records_at_most: 10, usd_at_most: 0.018 });
      const done = output<Answer>(await call('search_jobs', { limit: 10, confirm: true }));
      expect(done.charged).to.deep.equal({ requests: 1, records: 10 });
      expect(await month(accountId)).to.include({ records: 5009, overage: 18_000 });
    });

    it('previews what the store then charges, tool by tool, in the requests model', async () => {
      const { keyId, accountId, call } = await agent({ plan: 'paid-25k', billing_model: 'requests' });
      await app.store.query('INSERT INTO key_days (key_id, day, free_units) VALUES ($1, $2::date, 10000)', [keyId, '2026-11-25']);
      await app.store.query('UPDATE accounts SET prepaid_micros = 1000000 WHERE account_id = $1', [accountId]);
      output(await call('set_confirmation_level', { level: 'always' }));
      const prepaid = async () => {
        await app.service.ctx.meter.idle();
        return Number(
          (await app.store.query<{ p: string }>('SELECT prepaid_micros AS p FROM accounts WHERE account_id = $1', [accountId]))[0]!.p,
        );
      };
      const jobId = output<{ jobs: { job_id: string }[] }>(await call('search_jobs', { limit: 1, confirm: true })).jobs[0]!.job_id;
      const calls: [string, Record<string, unknown>, number][] = [
        ['search_jobs', { limit: 25 }, 20], // a list: one unit at $0.02 per 1,000
        ['search_jobs', { q: 'engineer', limit: 5 }, 200], // a keyword search: $0.20 per 1,000
        ['count_jobs', {}, 20],
        ['count_jobs', { interval: 'day', q: 'engineer' }, 20], // counts over time: priced as the count they are
        ['get_job', { job_id: jobId }, 0], // one job never counts
      ];
      for (const [tool, args, micros] of calls) {
        const asked = output<Answer>(await call(tool, args));
        expect(asked.status, tool).to.equal('confirmation_required');
        const before = await prepaid();
        expect(output<Answer>(await call(tool, { ...args, confirm: true })).status, tool).to.equal('done');
        const charged = before - (await prepaid());
        expect(charged, `${tool} ${JSON.stringify(args)}`).to.equal(micros);
        expect(Math.round(asked.cost!.usd_at_most * 1e6), `${tool} preview`).to.equal(charged);
      }
    });

    it('never: spends without asking; the requests model prices paid units', async () => {
      const { keyId, call } = await agent({ plan: 'paid-25k', billing_model: 'requests' });
      await app.store.query('INSERT INTO key_days (key_id, day, free_units) VALUES ($1, $2::date, 10000)', [keyId, '2026-11-25']);
      await app.store.query(
        'UPDATE accounts SET prepaid_micros = 1000000 WHERE account_id = (SELECT account_id FROM api_keys WHERE key_id = $1)',
        [keyId],
      );
      const asked = output<Answer>(await call('search_jobs', { q: 'engineer', limit: 5 }));
      expect(asked.cost).to.deep.include({ billing_model: 'requests', paid: true, usd_at_most: 0.0002 });
      output(await call('set_confirmation_level', { level: 'never' }));
      expect(output<Answer>(await call('search_jobs', { q: 'engineer', limit: 5 })).status).to.equal('done');
    });
  });

  describe('set_overage and get_usage', () => {
    it('set_overage answers as PUT /v1/account/overage, and is refused with upgrade_required (403) on the free plan', async () => {
      const paid = await agent({ plan: 'paid-25k' });
      const status = output<{ enabled: boolean; monthlyLimitUsd: number | null }>(
        await paid.call('set_overage', { enabled: true, monthlyLimitUsd: 0.07 }),
      );
      expect(status).to.include({ enabled: true, monthlyLimitUsd: 0.07 });
      const usage = output<{ overage: { enabled: boolean }; requests: { used: number } }>(await paid.call('get_usage'));
      expect(usage.overage.enabled).to.equal(true);
      expect(usage.requests.used).to.equal(0);
      expect(toolError(await paid.call('set_overage', { monthlyLimitUsd: 0.001 })).code).to.equal('invalid_request');
      expect(toolError(await paid.call('set_overage', {})).code).to.equal('invalid_request');
      const free = await agent({ plan: 'free' });
      const refused = toolError(await free.call('set_overage', { enabled: true }));
      expect(refused).to.include({ code: 'upgrade_required', http_status: 403 });
    });
  });

  describe('sessions', () => {
    it('answers 401 without a key, 400 without a session, and 404 to a session of another key', async () => {
      const anonymous = await fetch(new URL('/mcp', app.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(anonymous.status).to.equal(401);
      expect(((await anonymous.json()) as { error: { code: string } }).error.code).to.equal('invalid_api_key');

      const { key } = await agent({ plan: 'paid-25k' });
      const init = await fetch(new URL('/mcp', app.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
      expect(init.status).to.equal(200);
      const session = init.headers.get('mcp-session-id')!;
      await init.text();
      const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
      const headers = (k: string) => ({
        authorization: `Bearer ${k}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
      });
      const other = await app.account({ plan: 'paid-25k' });
      expect(
        (await fetch(new URL('/mcp', app.url), { method: 'POST', headers: headers(other.key), body: JSON.stringify(list) })).status,
      ).to.equal(404);
      const noSession = await fetch(new URL('/mcp', app.url), {
        method: 'POST',
        headers: { ...headers(key), 'mcp-session-id': '' },
        body: JSON.stringify(list),
      });
      expect(noSession.status).to.be.oneOf([400, 404]);
      expect((await fetch(new URL('/mcp', app.url), { method: 'DELETE', headers: headers(key) })).status).to.equal(200);
      expect(
        (await fetch(new URL('/mcp', app.url), { method: 'POST', headers: headers(key), body: JSON.stringify(list) })).status,
      ).to.equal(404);
    });

    it('stops a revoked key at its next call', async () => {
      const { keyId, call } = await agent({ plan: 'paid-25k' });
      output(await call('list_fields'));
      await revokeKey(app.store, keyId);
      let failed: unknown;
      await call('list_fields').catch((error: unknown) => (failed = error));
      expect(String(failed)).to.match(/invalid_api_key/);
    });
  });
});
