import { expect } from 'chai';
import type { Logger } from 'pino';
import { LineBudget } from '../../src/http/request-log.js';
import { THROTTLES } from '../../src/shared/throttles.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { overHttp, toolError } from '../support/mcp.js';

type ErrorBody = { error: { code: string; message: string; request_id: string } };

/** Counts the state store's queries while `work` runs. */
async function storeCalls(app: TestApp, work: () => Promise<void>): Promise<number> {
  const store = app.store as { query: (...args: unknown[]) => Promise<unknown> };
  const query = store.query;
  let calls = 0;
  store.query = (...args: unknown[]) => {
    calls++;
    return query.apply(store, args);
  };
  try {
    await work();
  } finally {
    store.query = query;
  }
  return calls;
}

describe('abuse throttles', function () {
  this.timeout(60_000);

  describe('failed API keys per client address', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp();
    });
    after(() => app.close());

    it(`answers 429 rate_limited with Retry-After after ${THROTTLES.failedKeys.points} keys that are not valid, without looking keys up`, async () => {
      const wrong = `Bearer jps_live_aaaaaaaaaaaaaaaa.${'A'.repeat(43)}`;
      for (let i = 0; i < THROTTLES.failedKeys.points; i++) {
        const res = await app.api.get('/v1/jobs', { headers: { authorization: wrong }, noWait: true });
        expect(res.status, `request ${i + 1}`).to.equal(401);
      }
      const { key } = await app.account();
      const calls = await storeCalls(app, async () => {
        for (const authorization of [wrong, `Bearer ${key}`]) {
          const res = await app.api.get<ErrorBody>('/v1/jobs', { headers: { authorization }, noWait: true });
          expect(res.status).to.equal(429);
          expect(res.body.error.code).to.equal('rate_limited');
          expect(Number(res.headers.get('retry-after'))).to.be.within(1, 60);
          expect(res.body.error.request_id).to.equal(res.headers.get('x-request-id'));
        }
      });
      expect(calls).to.equal(0);
      // Health needs no key and is never refused.
      expect((await app.api.get('/healthz')).status).to.equal(200);
    });
  });

  describe('overage changes per account', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp();
    });
    after(() => app.close());

    it(`answers 429 rate_limited past ${THROTTLES.overageChanges.points} changes a minute, on PUT /v1/account/overage and MCP set_overage alike`, async () => {
      const { key } = await app.account();
      for (let i = 0; i < THROTTLES.overageChanges.points; i++) {
        expect((await app.api.put('/v1/account/overage', { enabled: i % 2 === 0 }, { key })).status, `change ${i + 1}`).to.equal(200);
      }
      const refused = await app.api.put<ErrorBody>('/v1/account/overage', { enabled: true }, { key, noWait: true });
      expect(refused.status).to.equal(429);
      expect(refused.body.error.code).to.equal('rate_limited');
      expect(refused.body.error.message).to.include('overage');
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);

      const client = await overHttp(app.url, key);
      try {
        const error = toolError(await client.callTool({ name: 'set_overage', arguments: { enabled: true } }));
        expect(error).to.include({ code: 'rate_limited', http_status: 429 });
        expect(error.retry_after_seconds).to.be.within(1, 60);
      } finally {
        await client.close();
      }
      const other = await app.account();
      expect((await app.api.put('/v1/account/overage', { enabled: true }, { key: other.key })).status).to.equal(200);
    });
  });

  describe('free MCP tools per account', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp();
    });
    after(() => app.close());

    it(`answers the tool error 429 rate_limited past ${THROTTLES.freeTools.points} free calls a minute`, async () => {
      const { key } = await app.account();
      const client = await overHttp(app.url, key);
      try {
        for (let i = 0; i < THROTTLES.freeTools.points; i++) {
          const name = ['list_fields', 'get_usage', 'search_docs'][i % 3]!;
          const result = await client.callTool({ name, arguments: name === 'search_docs' ? { query: 'limits' } : {} });
          expect(result.isError ?? false, `${name} ${i + 1}: ${JSON.stringify(result.content).slice(0, 200)}`).to.equal(false);
        }
        const error = toolError(await client.callTool({ name: 'list_fields', arguments: {} }));
        expect(error).to.include({ code: 'rate_limited', http_status: 429 });
        expect(error.retry_after_seconds).to.be.within(1, 60);
        // The spending tools are held by the request window instead.
        expect(toolError(await client.callTool({ name: 'count_jobs', arguments: {} })).code).to.not.equal('rate_limited');
      } finally {
        await client.close();
      }
    });
  });

  describe('log lines of refused anonymous requests', () => {
    it('writes at most the budget a minute, then one line with the count when the minute ends', () => {
      const lines: { fields: Record<string, unknown>; msg: string }[] = [];
      const logger = { warn: (fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg }) } as unknown as Logger;
      let now = 0;
      const budget = new LineBudget(logger, 'refusals', 60, () => now);
      const allowed = Array.from({ length: 500 }, () => budget.allow()).filter(Boolean).length;
      expect(allowed).to.equal(60);
      expect(lines).to.have.length(0);
      now = 60_000;
      expect(budget.allow()).to.equal(true);
      expect(lines).to.have.length(1);
      expect(lines[0]!.fields).to.include({ suppressed: 440 });
    });
  });
});
