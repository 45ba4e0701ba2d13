import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';
import type { ApiResponse } from '../support/client.js';
import { overHttp, toolError } from '../support/mcp.js';

type ErrorBody = { error: { code: string; message: string; request_id: string } };

/** The five routes that take a JSON body, each with a body it accepts. */
const BODY_ROUTES: [string, string, Record<string, unknown>][] = [
  ['POST', '/v1/jobs/search', { limit: 1 }],
  ['POST', '/v1/jobs/search/es_dsl', { query: { match_all: {} }, size: 1 }],
  ['POST', '/v1/jobs/exports', { max_records: 1 }],
  ['POST', '/v1/companies/search', { limit: 1 }],
  ['PUT', '/v1/account/overage', { enabled: true }],
];

/** Each of these strings cannot be stored as PostgreSQL text or jsonb. */
const UNSTORABLE: [string, string][] = [
  ['a NUL character', 'nurse\u0000aide'],
  ['a lone high surrogate', 'nurse\ud800aide'],
  ['a lone low surrogate', 'nurse\udc00'],
];

describe('bad input never answers 5xx', function () {
  this.timeout(120_000);
  let app: TestApp;
  let key: string;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 60, seed: 17 });
  });
  beforeEach(async () => {
    ({ key } = await app.account({ plan: 'paid-25k' }));
  });
  after(() => app.close());

  function expectInvalid(res: ApiResponse, ...words: string[]): void {
    const body = res.body as ErrorBody;
    expect(res.status, res.text.slice(0, 300)).to.equal(400);
    expect(body.error.code).to.equal('invalid_request');
    expect(body.error.request_id).to.equal(res.headers.get('x-request-id'));
    for (const word of words) expect(body.error.message).to.include(word);
    expect(body.error.message).not.to.match(/must match|pattern|\^|\$\//);
  }

  describe('Content-Encoding', () => {
    for (const [method, path, body] of BODY_ROUTES) {
      for (const encoding of ['gzip', 'deflate']) {
        it(`answers 400 on ${method} ${path} when a body declared ${encoding} is not compressed`, async () => {
          const res = await app.api.request(method, path, {
            key,
            body: JSON.stringify(body),
            headers: { 'content-type': 'application/json', 'content-encoding': encoding },
          });
          expectInvalid(res, 'Content-Encoding', encoding);
        });
      }
    }
  });

  describe('NUL and lone surrogates', () => {
    for (const [what, value] of UNSTORABLE) {
      it(`answers 400 naming the property for ${what} in a filter of each JSON body`, async () => {
        const bodies: [string, Record<string, unknown>, string][] = [
          ['/v1/jobs/search', { title: value }, 'title'],
          ['/v1/jobs/search/es_dsl', { query: { match: { title: value } } }, 'query.match.title'],
          ['/v1/jobs/exports', { title: value }, 'title'],
          ['/v1/jobs/exports', { note: value }, 'note'],
          ['/v1/companies/search', { name: value }, 'name'],
        ];
        for (const [path, body, name] of bodies) expectInvalid(await app.api.post(path, body, { key }), `'${name}'`);
      });
    }

    it('answers 400 naming the parameter for a NUL (%00) in a query string', async () => {
      expectInvalid(await app.api.get('/v1/jobs?title=nurse%00aide', { key }), `'title'`);
      expectInvalid(await app.api.get('/v1/companies?name=acme%00', { key }), `'name'`);
      expectInvalid(await app.api.get('/v1/jobs/changes?since=2026-11-01T00:00:00Z&types=created%00', { key }), `'types'`);
    });

    it('answers 400 for a NUL in a JSON property name (the export body allows extra properties)', async () => {
      expectInvalid(await app.api.post('/v1/jobs/exports', { 'no\u0000te': 'x' }, { key }), 'property name');
    });

    it('still accepts a well-formed surrogate pair (an emoji)', async () => {
      const res = await app.api.post('/v1/jobs/search', { title: 'nurse 👩‍⚕️', limit: 1 }, { key });
      expect(res.status, res.text).to.equal(200);
    });
  });

  describe('monthlyLimitUsd', () => {
    for (const raw of ['1e-9', '5e-324', '0.001', '0.009', '1e-7']) {
      it(`answers 400 on PUT /v1/account/overage for ${raw}, never reaching the store`, async () => {
        const res = await app.api.request('PUT', '/v1/account/overage', {
          key,
          body: `{"monthlyLimitUsd": ${raw}}`,
          headers: { 'content-type': 'application/json' },
        });
        expectInvalid(res, 'monthlyLimitUsd', '0.01');
      });
    }

    it('accepts 0.07 and 0.01', async () => {
      for (const value of [0.07, 0.01]) {
        const res = await app.api.put<{ monthlyLimitUsd: number }>('/v1/account/overage', { monthlyLimitUsd: value }, { key });
        expect(res.status, res.text).to.equal(200);
        expect(res.body.monthlyLimitUsd).to.equal(value);
      }
    });

    it('answers a tool error 400 on MCP set_overage for 1e-9 and 5e-324', async () => {
      const client: Client = await overHttp(app.url, key);
      try {
        for (const value of [1e-9, 5e-324]) {
          const error = toolError(await client.callTool({ name: 'set_overage', arguments: { monthlyLimitUsd: value } }));
          expect(error.http_status, JSON.stringify(error)).to.equal(400);
          expect(error.code).to.equal('invalid_request');
          expect(error.message).to.include('monthlyLimitUsd');
        }
      } finally {
        await client.close();
      }
    });
  });

  describe('integers in query strings', () => {
    const routes = [
      '/v1/jobs?',
      '/v1/jobs/changes?since=2026-11-01T00:00:00Z&',
      '/v1/usage/requests?',
      '/v1/companies?',
      '/v1/jobs/count?',
    ];
    for (const value of ['0x10', '1e1', '+10', '10.0', ' 10', '-0', '１０']) {
      it(`answers 400 naming limit for limit=${JSON.stringify(value)}`, async () => {
        for (const route of routes) {
          if (route.startsWith('/v1/jobs/count')) continue;
          expectInvalid(await app.api.get(`${route}limit=${encodeURIComponent(value)}`, { key }), `'limit'`, 'digits');
        }
      });
    }

    it('accepts plain decimal digits, leading zeros included', async () => {
      for (const route of routes.slice(0, 4)) {
        const res = await app.api.get(`${route}limit=010`, { key });
        expect(res.status, `${route}: ${res.text}`).to.equal(200);
      }
    });

    it('answers 400 naming the parameter for plain digits too many to be a finite number (found by the property test)', async () => {
      for (const route of routes.slice(0, 4))
        expectInvalid(await app.api.get(`${route}limit=${'9'.repeat(400)}`, { key }), `'limit'`, 'too large');
      expectInvalid(await app.api.get(`/v1/jobs?pay_min=${'9'.repeat(309)}.5`, { key }), `'pay_min'`, 'too large');
    });

    it('answers 400 naming pay_min for a number that is not plain decimal', async () => {
      for (const value of ['1e3', '0x10', '+5', 'Infinity']) {
        expectInvalid(await app.api.get(`/v1/jobs?pay_min=${encodeURIComponent(value)}`, { key }), `'pay_min'`);
      }
      expect((await app.api.get('/v1/jobs?pay_min=50000.50&limit=1', { key })).status).to.equal(200);
      // Two decimals exactly, whatever binary floating point makes of them (0.07 * 100 is not 7).
      expect((await app.api.get('/v1/jobs?pay_min=0.07&limit=1', { key })).status).to.equal(200);
      expect((await app.api.post('/v1/jobs/search', { pay_min: 0.07, limit: 1 }, { key })).status).to.equal(200);
    });
  });

  describe('GET /v1/jobs/exports/{exportId}/files/{n}', () => {
    it('answers 416 range_not_satisfiable in the envelope, with the file size in Content-Range', async () => {
      const created = await app.api.post<{ export_id: string }>('/v1/jobs/exports', { max_records: 5 }, { key });
      expect(created.status, created.text).to.equal(202);
      await app.service.exportRunner.idle();
      const path = `/v1/jobs/exports/${created.body.export_id}/files/1`;
      const whole = await app.api.download(path, { key });
      expect(whole.status).to.equal(200);
      const res = await app.api.request<ErrorBody>('GET', path, { key, headers: { range: `bytes=${whole.body.length + 10}-` } });
      expect(res.status).to.equal(416);
      expect(res.headers.get('content-range')).to.equal(`bytes */${whole.body.length}`);
      expect(res.body.error.code).to.equal('range_not_satisfiable');
      expect(res.body.error.request_id).to.equal(res.headers.get('x-request-id'));
      expect(res.body.error.message).to.include(String(whole.body.length));
    });
  });
});
