// GET /v1/account: where an account stands, without spending more than the one request it is (spec 8.3
// rule 2): plan, allowances, what is used and left this month, and the overage setting; the same
// figures the get_usage MCP tool reports.

import { expect } from 'chai';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';
import { output, overHttp } from '../support/mcp.js';

interface Standing {
  account_id: string;
  plan: string;
  billing_model: string;
  window: { limit: number; used: number; resets_at: string };
  requests: { used: number; remaining: number; allowance: number };
  records?: { used: number; limit: number; reserved: number; resets_at: string };
  prepaid_usd?: number;
  overage: { enabled: boolean; monthlyLimitUsd: number | null; usedUsd: number; periodStart: string; periodEnd: string };
}

const NOW = new Date('2026-11-25T10:00:30Z');

describe('GET /v1/account', function () {
  this.timeout(120_000);
  let app: TestApp;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 60, seed: 17 });
  });
  beforeEach(() => app.setNow(NOW));
  after(async () => {
    app?.setNow(undefined);
    await app?.close();
  });

  it('answers the plan, its allowances and what this month has used, counting itself as one request and no records', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-25k' });
    const list = await app.api.get<{ data: unknown[] }>('/v1/jobs?limit=7', { key });
    expect(list.body.data).to.have.length(7);
    await app.service.ctx.meter.idle();
    const res = await app.api.get<Standing>('/v1/account', { key });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      account_id: accountId,
      plan: 'paid-25k',
      billing_model: 'records',
      window: { limit: 60, used: 2, resets_at: '2026-11-25T10:01:00.000Z' },
      requests: { used: 2, remaining: 12_500 - 2, allowance: 12_500 },
      records: { used: 7, limit: 25_000, reserved: 0, resets_at: '2026-12-01T00:00:00.000Z' },
      overage: {
        enabled: false,
        monthlyLimitUsd: null,
        usedUsd: 0,
        periodStart: '2026-11-01T00:00:00.000Z',
        periodEnd: '2026-12-01T00:00:00.000Z',
      },
    });
    expect(res.headers.get('X-Data-Records-Charged')).to.equal('0');
    expect(Number(res.headers.get('X-Data-Requests-Used'))).to.equal(res.body.requests.used);
    expect(Number(res.headers.get('X-Data-Records-Used'))).to.equal(res.body.records!.used);
  });

  it('shows the overage setting and its limit once set', async () => {
    const { key } = await app.account({ plan: 'paid-5k' });
    expect((await app.api.put('/v1/account/overage', { enabled: true, monthlyLimitUsd: 40 }, { key })).status).to.equal(200);
    const { body } = await app.api.get<Standing>('/v1/account', { key });
    expect(body.overage).to.include({ enabled: true, monthlyLimitUsd: 40, usedUsd: 0 });
    expect(body.requests.allowance).to.equal(2_500);
  });

  it('reports the same figures as the get_usage MCP tool, which takes no request', async () => {
    const { key } = await app.account({ plan: 'free' });
    await app.api.get('/v1/jobs?limit=3', { key });
    await app.service.ctx.meter.idle();
    const client = await overHttp(app.url, key);
    try {
      const tool = output<Standing & { confirmation_level: string }>(await client.callTool({ name: 'get_usage', arguments: {} }));
      const { body } = await app.api.get<Standing>('/v1/account', { key });
      const { confirmation_level: level, ...standing } = tool;
      expect(level).to.equal('paid_only');
      // The route's own request is in its figures: one more request, one more of the window.
      expect(body).to.deep.equal({
        ...standing,
        window: { ...standing.window, used: standing.window.used + 1 },
        requests: { ...standing.requests, used: standing.requests.used + 1, remaining: standing.requests.remaining - 1 },
      });
      expect(body.records!.used).to.equal(3);
    } finally {
      await client.close();
    }
  });

  it('needs a key, and is refused like any call once the request window is full', async () => {
    expect((await app.api.get('/v1/account')).status).to.equal(401);
    const { key } = await app.account({ plan: 'free' });
    for (let i = 0; i < 30; i++) expect((await app.api.get('/v1/account', { key, noWait: true })).status).to.equal(200);
    const refused = await app.api.get<{ error: { code: string } }>('/v1/account', { key, noWait: true });
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal('rate_limited');
  });
});
