import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/app.js';

describe('HTTP pipeline', () => {
  let app: TestApp;
  let key: string;

  before(async () => {
    app = await startTestApp();
    ({ key } = await app.account());
  });
  after(() => app.close());

  function expectEnvelope(res: { status: number; headers: Headers; body: unknown }, status: number, code: string): void {
    expect(res.status).to.equal(status);
    const body = res.body as { error: { code: string; message: string; request_id: string } };
    expect(body.error.code).to.equal(code);
    expect(body.error.message).to.be.a('string').and.not.equal('');
    expect(body.error.request_id).to.equal(res.headers.get('x-request-id'));
  }

  it('sends a distinct X-Request-Id on every response', async () => {
    const a = await app.api.get('/healthz');
    const b = await app.api.get('/v1/jobs');
    const c = await app.api.put('/v1/account/overage', { enabled: true }, { key });
    const ids = [a, b, c].map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).to.match(/^req_[A-Za-z0-9_-]{16}$/);
    expect(new Set(ids).size).to.equal(3);
  });

  it('answers 400 invalid_request naming an unknown query parameter, on every route (the contract checks it, not the handlers)', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const path of [
      '/v1/jobs',
      '/v1/jobs/changes',
      '/v1/companies',
      `/v1/companies/${id}`,
      '/v1/jobs/exports',
      `/v1/jobs/exports/${id}`,
      `/v1/jobs/exports/${id}/files/1`,
    ]) {
      const res = await app.api.get(`${path}?nope=1`, { key });
      expectEnvelope(res, 400, 'invalid_request');
      expect((res.body as { error: { message: string } }).error.message, path).to.include('nope');
    }
  });

  it('answers 400 invalid_request naming an unknown JSON key', async () => {
    const res = await app.api.put('/v1/account/overage', { enabled: true, surprise: 1 }, { key });
    expectEnvelope(res, 400, 'invalid_request');
    expect((res.body as { error: { message: string } }).error.message).to.include('surprise');
  });

  it('answers 400 invalid_request, not an HTML page, for malformed JSON', async () => {
    const res = await app.api.put('/v1/account/overage', '{"enabled": tru', { key, headers: { 'content-type': 'application/json' } });
    expectEnvelope(res, 400, 'invalid_request');
    expect(res.text).not.to.include('<');
    expect(res.text).not.to.match(/at .*\.(ts|js):\d+/);
  });

  it('answers 400 invalid_request for a wrong Content-Type', async () => {
    const res = await app.api.put('/v1/account/overage', '{"enabled": true}', { key, headers: { 'content-type': 'text/plain' } });
    expectEnvelope(res, 400, 'invalid_request');
    expect((res.body as { error: { message: string } }).error.message).to.include('application/json');
  });

  it('answers 400 invalid_request for a body over 16,384 bytes', async () => {
    const big = JSON.stringify({ enabled: true, pad: 'x'.repeat(16_400) });
    const res = await app.api.put('/v1/account/overage', big, { key, headers: { 'content-type': 'application/json' } });
    expectEnvelope(res, 400, 'invalid_request');
    expect((res.body as { error: { message: string } }).error.message).to.include('16384');
  });

  it('answers 400 for a JSON body that is not an object', async () => {
    expectEnvelope(await app.api.put('/v1/account/overage', [1, 2], { key }), 400, 'invalid_request');
    expectEnvelope(
      await app.api.put('/v1/account/overage', '"text"', { key, headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    );
  });

  it('answers 404 route_not_found for an unknown path and 405 for a wrong method', async () => {
    expectEnvelope(await app.api.get('/v1/nothing-here', { key }), 404, 'route_not_found');
    expectEnvelope(await app.api.get('/elsewhere', { key }), 404, 'route_not_found');
    expectEnvelope(await app.api.request('DELETE', '/v1/jobs', { key }), 405, 'method_not_allowed');
  });

  it('answers 503 catalog_unavailable on the job routes while no catalog is published', async () => {
    const jobId = '00000000-0000-4000-8000-000000000000';
    for (const res of [
      await app.api.get('/v1/jobs', { key }),
      await app.api.post('/v1/jobs/search', {}, { key }),
      await app.api.post('/v1/jobs/search/es_dsl', { query: { match_all: {} } }, { key }),
      await app.api.get('/v1/jobs/count', { key }),
      await app.api.get('/v1/jobs/changes?since=2026-11-01T00:00:00Z', { key }),
      await app.api.get(`/v1/jobs/${jobId}`, { key }),
    ]) {
      expectEnvelope(res, 503, 'catalog_unavailable');
    }
  });

  it('answers 503 registry_unavailable on the company routes while no registry release is active', async () => {
    const companyId = '00000000-0000-4000-8000-000000000001';
    for (const res of [
      await app.api.get('/v1/companies', { key }),
      await app.api.post('/v1/companies/search', { name: 'acme' }, { key }),
      await app.api.get(`/v1/companies/${companyId}`, { key }),
      await app.api.get(`/v1/companies/${companyId}/jobs`, { key }),
    ]) {
      expectEnvelope(res, 503, 'registry_unavailable');
    }
  });

  it('validates parameters before answering 503', async () => {
    expectEnvelope(await app.api.get('/v1/jobs?limit=0', { key }), 400, 'invalid_request');
    expectEnvelope(await app.api.get('/v1/jobs/NOT-A-UUID', { key }), 400, 'invalid_request');
    expectEnvelope(await app.api.get('/v1/jobs?posted_since=2026-02-30', { key }), 400, 'invalid_request');
    expectEnvelope(await app.api.post('/v1/jobs/search', { stale: 'true' }, { key }), 400, 'invalid_request');
  });

  it('answers /healthz without a key, with the store state and the loaded catalog', async () => {
    const res = await app.api.get<{ status: string; store: { open: boolean; kind: string }; catalog: { watermark: string | null } }>(
      '/healthz',
    );
    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('ok');
    expect(res.body.store).to.deep.equal({ open: true, kind: app.store.kind });
    expect(res.body.catalog.watermark).to.equal(null);
  });
});
