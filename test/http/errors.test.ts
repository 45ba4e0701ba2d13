import { expect } from 'chai';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError, ERROR_CATALOGUE, errorBody, type ErrorCode } from '../../src/errors.js';
import { startTestApp, type TestApp } from '../support/app.js';
import type { ApiResponse } from '../support/client.js';
import { openapi } from '../support/contract.js';

type Trigger = (app: TestApp) => Promise<ApiResponse>;

/**
 * How to make the running service answer each code. The codes without one here are triggered in their own
 * tests: request_timeout (a body that never arrives, test/http/connections.test.ts) and
 * range_not_satisfiable (an export file, test/http/bad-input.test.ts and exports.test.ts).
 */
const TRIGGERS: Partial<Record<ErrorCode, Trigger>> = {
  invalid_request: async (app) => app.api.get('/v1/jobs?limit=abc', { key: (await app.account()).key }),
  invalid_api_key: (app) => app.api.get('/v1/jobs'),
  upgrade_required: async (app) =>
    app.api.put('/v1/account/overage', { enabled: true }, { key: (await app.account({ plan: 'free' })).key }),
  no_active_subscription: async (app) =>
    app.api.put('/v1/account/overage', { enabled: true }, { key: (await app.account({ plan: 'paid-5k', subscription: 'canceled' })).key }),
  overage_item_conflict: async (app) => {
    const { key, accountId } = await app.account({ plan: 'paid-5k' });
    await app.store.query('UPDATE accounts SET overage_price_micros = 1 WHERE account_id = $1', [accountId]);
    return app.api.put('/v1/account/overage', { enabled: true }, { key });
  },
  uri_too_long: async (app) => app.api.get(`/v1/jobs?title=${'a'.repeat(20_000)}`, { key: (await app.account()).key }),
  headers_too_large: async (app) =>
    app.api.get('/v1/jobs', { key: (await app.account()).key, headers: { 'x-padding': 'a'.repeat(20_000) } }),
  route_not_found: async (app) => app.api.get('/v1/unknown', { key: (await app.account()).key }),
  method_not_allowed: async (app) => app.api.request('PATCH', '/v1/jobs', { key: (await app.account()).key }),
  catalog_unavailable: async (app) => app.api.get('/v1/jobs/count', { key: (await app.account()).key }),
  registry_unavailable: async (app) => app.api.get('/v1/companies', { key: (await app.account()).key }),
  export_unavailable: async (app) => {
    // The exports folder is a plain file here: this server cannot write export files.
    const dir = join(app.config.dataDir, 'exports');
    await rm(dir, { recursive: true, force: true });
    await writeFile(dir, '');
    try {
      return await app.api.post('/v1/jobs/exports', {}, { key: (await app.account()).key });
    } finally {
      await rm(dir);
    }
  },
  service_unavailable: async (app) => {
    // A ledger segment the store lists as durable whose file is gone: the usage ledger cannot be read.
    const [segment] = await app.store.query<{ segment_id: string }>(
      "INSERT INTO ledger_segments (day, state, rows) VALUES (current_date, 'durable', 1) RETURNING segment_id",
    );
    try {
      return await app.api.get('/v1/usage/analytics', { key: (await app.account()).key });
    } finally {
      await app.store.query('DELETE FROM ledger_segments WHERE segment_id = $1', [segment!.segment_id]);
    }
  },
};

describe('error catalogue', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('lists in openapi.yaml exactly the codes of the catalogue', () => {
    const schema = openapi.components.schemas!.Error as { properties: { error: { properties: { code: { enum: string[] } } } } };
    expect([...schema.properties.error.properties.code.enum].sort()).to.deep.equal(Object.keys(ERROR_CATALOGUE).sort());
  });

  for (const code of Object.keys(ERROR_CATALOGUE) as ErrorCode[]) {
    const { status } = ERROR_CATALOGUE[code];
    it(`${code}: status ${status}, the envelope, and X-Request-Id equal to error.request_id`, async () => {
      const body = errorBody(new ApiError(code), 'req_test');
      expect(Object.keys(body)).to.deep.equal(['error']);
      expect(body.error).to.include({ code, request_id: 'req_test' });
      expect(body.error.message).to.be.a('string').and.not.equal('');
      const trigger = TRIGGERS[code];
      if (!trigger) return; // not reachable through HTTP in this build; the shape is checked above
      const res = (await trigger(app)) as ApiResponse<{ error: { code: string; message: string; request_id: string } }>;
      expect(res.status).to.equal(status);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.body.error.code).to.equal(code);
      expect(res.body.error.message).to.be.a('string').and.not.equal('');
      expect(res.body.error.request_id).to.equal(res.headers.get('x-request-id'));
    });
  }

  it('internal_error: a failing state store answers 500 in the envelope without internals', async () => {
    const broken = await startTestApp();
    const { key } = await broken.account();
    await broken.store.close();
    const res = await broken.api.get<{ error: { code: string; message: string; request_id: string } }>('/v1/jobs', { key });
    expect(res.status).to.equal(500);
    expect(res.body.error.code).to.equal('internal_error');
    expect(res.body.error.request_id).to.equal(res.headers.get('x-request-id'));
    expect(res.text).not.to.match(/PGlite|stack|\.ts:\d+/i);
    await broken.service.close();
  });
});
