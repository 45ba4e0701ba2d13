import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/app.js';

const ORIGIN = 'https://app.example.com';

/** A browser's preflight before a cross-origin GET with an Authorization header. */
const preflight = (origin = ORIGIN) => ({
  origin,
  'access-control-request-method': 'GET',
  'access-control-request-headers': 'authorization',
});

/** Headers the metering, errors and downloads carry, which a browser app must be able to read. */
const EXPOSED = [
  'RateLimit-Policy',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'X-Data-Records-Charged',
  'X-Data-Records-Used',
  'X-Data-Records-Limit',
  'X-Data-Records-Remaining',
  'X-Data-Records-Reset',
  'X-Data-Requests-Used',
  'X-Data-Requests-Limit',
  'X-Data-Requests-Remaining',
  'X-Request-Id',
  'Retry-After',
  'Server-Timing',
  'Location',
  'Content-Disposition',
  'Content-Range',
  'WWW-Authenticate',
];

describe('CORS for browser apps', () => {
  describe('with the default setting (any origin)', () => {
    let app: TestApp;
    let key: string;
    let accountId: string;
    before(async () => {
      app = await startTestApp();
      ({ key, accountId } = await app.account());
    });
    after(() => app.close());

    it('answers a preflight with 204 without a key, using neither the window nor the ledger', async () => {
      for (const path of ['/v1/jobs', '/v1/account/overage', '/v1/not-a-route']) {
        const res = await app.api.request('OPTIONS', path, { headers: preflight(), unchecked: true });
        expect(res.status, path).to.equal(204);
        expect(res.headers.get('access-control-allow-origin')).to.equal('*');
        expect(res.headers.get('access-control-allow-methods')).to.include('GET').and.include('PUT').and.include('POST');
        expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).to.include('authorization');
        expect(res.headers.get('access-control-max-age')).to.match(/^\d+$/);
        expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
      }
      await app.service.ctx.meter.idle();
      expect(await app.store.query('SELECT 1 FROM ledger WHERE account_id = $1', [accountId])).to.have.length(0);
      const first = await app.api.get('/v1/jobs', { key });
      expect(first.headers.get('ratelimit-remaining')).to.equal(String(Number(first.headers.get('ratelimit-limit')) - 1));
    });

    it('puts Access-Control-Allow-Origin and the exposed headers on answers, errors included', async () => {
      const answers = [
        await app.api.get('/v1/jobs', { key, headers: { origin: ORIGIN } }),
        await app.api.put('/v1/account/overage', { enabled: true }, { key, headers: { origin: ORIGIN } }),
        await app.api.get('/v1/jobs', { headers: { origin: ORIGIN } }),
        await app.api.get('/v1/jobs?page=2', { key, headers: { origin: ORIGIN } }),
      ];
      for (const res of answers) {
        expect(res.headers.get('access-control-allow-origin'), String(res.status)).to.equal('*');
        const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(/,\s*/).map((h) => h.toLowerCase());
        for (const name of EXPOSED) expect(exposed, name).to.include(name.toLowerCase());
        expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
      }
    });

    it('leaves an OPTIONS that is not a preflight to the pipeline', async () => {
      const res = await app.api.request('OPTIONS', '/v1/jobs', { key });
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.equal('GET, HEAD');
    });
  });

  describe('with a list of origins', () => {
    let app: TestApp;
    let key: string;
    before(async () => {
      app = await startTestApp({ corsOrigins: `${ORIGIN}, https://admin.example.com` });
      ({ key } = await app.account());
    });
    after(() => app.close());

    it('names an origin of the list back, with Vary: Origin', async () => {
      const res = await app.api.get('/v1/jobs', { key, headers: { origin: 'https://admin.example.com' } });
      expect(res.headers.get('access-control-allow-origin')).to.equal('https://admin.example.com');
      expect(res.headers.get('vary')?.toLowerCase()).to.include('origin');
      const pre = await app.api.request('OPTIONS', '/v1/jobs', { headers: preflight(), unchecked: true });
      expect(pre.status).to.equal(204);
      expect(pre.headers.get('access-control-allow-origin')).to.equal(ORIGIN);
    });

    it('gives no Access-Control-Allow-Origin to another origin', async () => {
      const res = await app.api.get('/v1/jobs', { key, headers: { origin: 'https://evil.example.net' } });
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
      const pre = await app.api.request('OPTIONS', '/v1/jobs', { headers: preflight('https://evil.example.net'), unchecked: true });
      expect(pre.headers.get('access-control-allow-origin')).to.equal(null);
    });
  });

  describe('with none', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ corsOrigins: 'none' });
    });
    after(() => app.close());

    it('sends no CORS headers, and a preflight is a request like any other (401 without a key)', async () => {
      const res = await app.api.get('/v1/jobs', { headers: { origin: ORIGIN } });
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
      const pre = await app.api.request('OPTIONS', '/v1/jobs', { headers: preflight() });
      expect(pre.status).to.equal(401);
      expect(pre.headers.get('access-control-allow-origin')).to.equal(null);
    });
  });
});
