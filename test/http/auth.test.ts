import { expect } from 'chai';
import { revokeKey, LEGACY_KEY_PREFIX } from '../../src/metering/keys.js';
import { startTestApp, type TestApp } from '../support/app.js';

describe('API key authentication', () => {
  let app: TestApp;
  let good: { key: string; keyId: string };

  before(async () => {
    app = await startTestApp();
    good = await app.account();
  });
  after(() => app.close());

  const routes: [string, string, unknown?][] = [
    ['GET', '/v1/jobs'],
    ['POST', '/v1/jobs/search', {}],
    ['GET', '/v1/jobs/count'],
    ['GET', '/v1/jobs/00000000-0000-4000-8000-000000000000'],
    ['GET', '/v1/companies'],
    ['GET', '/v1/jobs/exports'],
    ['PUT', '/v1/account/overage', { enabled: true }],
    ['GET', '/v1/usage/requests'],
    ['GET', '/v1/usage/analytics'],
    ['GET', '/v1/not-a-route'],
  ];

  function badKeys(): Record<string, Record<string, string>> {
    const [, secret] = good.key.split('.');
    const flipped = secret!.slice(0, -1) + (secret!.endsWith('A') ? 'B' : 'A');
    return {
      'no Authorization header': {},
      'an empty bearer': { authorization: 'Bearer ' },
      'another scheme': { authorization: `Basic ${Buffer.from(`${good.key}:`).toString('base64')}` },
      'a malformed key': { authorization: 'Bearer not-a-key' },
      'a key with no secret': { authorization: `Bearer jps_live_${good.keyId}` },
      'an unknown key id': { authorization: `Bearer jps_live_aaaaaaaaaaaaaaaa.${secret}` },
      'a wrong secret': { authorization: `Bearer jps_live_${good.keyId}.${flipped}` },
      'the right key under the other prefix': { authorization: `Bearer ${LEGACY_KEY_PREFIX}${good.key.slice('jps_live_'.length)}` },
    };
  }

  for (const [method, path, body] of routes) {
    it(`answers 401 invalid_api_key on ${method} ${path} for every kind of bad key`, async () => {
      for (const [kind, headers] of Object.entries(badKeys())) {
        const res = await app.api.request<{ error: { code: string; request_id: string } }>(method, path, { headers, body });
        expect(res.status, kind).to.equal(401);
        expect(res.body.error.code, kind).to.equal('invalid_api_key');
        expect(res.body.error.request_id, kind).to.equal(res.headers.get('x-request-id'));
      }
    });
  }

  it('accepts a current jps_live_ key', async () => {
    const res = await app.api.put('/v1/account/overage', { enabled: true }, { key: good.key });
    expect(res.status).to.equal(200);
  });

  it('accepts a key issued before October 2026 with the older jp_live_ prefix', async () => {
    const legacy = await app.account({}, { prefix: LEGACY_KEY_PREFIX, createdAt: new Date('2026-09-15T00:00:00Z') });
    expect(legacy.key.startsWith('jp_live_')).to.equal(true);
    const res = await app.api.put('/v1/account/overage', { enabled: true }, { key: legacy.key });
    expect(res.status).to.equal(200);
  });

  it('answers 401 for a revoked key from the moment it is revoked', async () => {
    const victim = await app.account();
    expect((await app.api.get('/v1/jobs', { key: victim.key })).status).to.equal(503);
    await revokeKey(app.store, victim.keyId);
    const res = await app.api.get<{ error: { code: string } }>('/v1/jobs', { key: victim.key });
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal('invalid_api_key');
  });

  it('stores only a hash of the secret', async () => {
    const rows = await app.store.query<{ secret_hash: Uint8Array }>('SELECT secret_hash FROM api_keys WHERE key_id = $1', [good.keyId]);
    const secret = good.key.split('.')[1]!;
    expect(Buffer.from(rows[0]!.secret_hash).toString('utf8')).not.to.include(secret);
    expect(rows[0]!.secret_hash.length).to.equal(32);
  });
});
