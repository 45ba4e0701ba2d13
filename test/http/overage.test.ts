import { expect } from 'chai';
import { updateAccount } from '../../src/metering/accounts.js';
import { startTestApp, type TestApp } from '../support/app.js';

interface OverageStatus {
  enabled: boolean;
  monthlyLimitUsd: number | null;
  usedUsd: number;
  periodStart: string;
  periodEnd: string;
}
interface ErrorBody {
  error: { code: string; message: string; request_id: string; upgrade_url?: string };
}

describe('PUT /v1/account/overage', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp({ upgradeUrl: 'https://jobs-data.example.com/upgrade' });
  });
  after(() => app.close());

  const put = (key: string, body: unknown) => app.api.put<OverageStatus & ErrorBody>('/v1/account/overage', body, { key });

  it('is off by default and turns on without a ceiling', async () => {
    const { key } = await app.account({ plan: 'paid-5k' });
    const limitOnly = await put(key, { monthlyLimitUsd: 50 });
    expect(limitOnly.status).to.equal(200);
    expect(limitOnly.body.enabled).to.equal(false);
    const { key: other } = await app.account({ plan: 'paid-5k' });
    const res = await put(other, { enabled: true });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ enabled: true, monthlyLimitUsd: null, usedUsd: 0 });
  });

  it('keeps the stored limit when monthlyLimitUsd is omitted and clears it with null', async () => {
    const { key } = await app.account();
    expect((await put(key, { enabled: true, monthlyLimitUsd: 12.34 })).body.monthlyLimitUsd).to.equal(12.34);
    const kept = await put(key, { enabled: false });
    expect(kept.body).to.include({ enabled: false, monthlyLimitUsd: 12.34 });
    const cleared = await put(key, { monthlyLimitUsd: null });
    expect(cleared.body).to.include({ enabled: false, monthlyLimitUsd: null });
  });

  for (const [value, status] of [
    [0, 400],
    [0.01, 200],
    [0.07, 200],
    [1.1, 200],
    [99_999.99, 200],
    [100_000, 200],
    [100_000.01, 400],
    [12.345, 400],
    [-5, 400],
    [null, 200],
  ] as const) {
    it(`answers ${status} for monthlyLimitUsd ${String(value)}`, async () => {
      const { key } = await app.account();
      const res = await put(key, { monthlyLimitUsd: value });
      expect(res.status).to.equal(status);
      if (status === 200) expect(res.body.monthlyLimitUsd).to.equal(value);
      else {
        expect(res.body.error.code).to.equal('invalid_request');
        expect(res.body.error.message).to.include('monthlyLimitUsd');
      }
    });
  }

  it('answers 400 for an empty body, a wrong JSON type or an unknown property', async () => {
    const { key } = await app.account();
    for (const body of [{}, { enabled: 'true' }, { monthlyLimitUsd: '5' }, { enabled: true, limit: 5 }]) {
      const res = await put(key, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_request');
    }
  });

  it('answers 403 upgrade_required with an upgrade_url on the free plan', async () => {
    const { key } = await app.account({ plan: 'free' });
    const res = await put(key, { enabled: true });
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('upgrade_required');
    expect(res.body.error.upgrade_url).to.equal('https://jobs-data.example.com/upgrade');
  });

  it('answers 403 no_active_subscription when the paid subscription is not active', async () => {
    for (const subscription of ['none', 'canceled'] as const) {
      const { key } = await app.account({ plan: 'paid-25k', subscription });
      const res = await put(key, { enabled: true });
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal('no_active_subscription');
    }
  });

  it('answers 409 overage_item_conflict when the subscription carries a different overage price', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-100k' });
    expect((await put(key, { enabled: true })).status).to.equal(200);
    await updateAccount(app.store, accountId, { plan: 'paid-500k' });
    const res = await put(key, { enabled: true });
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('overage_item_conflict');
    await updateAccount(app.store, accountId, { overage_price_usd: null });
    expect((await put(key, { enabled: true })).status).to.equal(200);
  });

  it("reports this month's overage use and period in UTC", async () => {
    const { key, accountId } = await app.account();
    app.setNow(new Date('2026-12-31T23:30:00-05:00'));
    try {
      await app.store.query('INSERT INTO usage_months (account_id, month, overage_used_micros) VALUES ($1, $2, $3)', [
        accountId,
        '2027-01-01',
        1_234_567,
      ]);
      const res = await put(key, { enabled: true });
      expect(res.body).to.include({ usedUsd: 1.234567, periodStart: '2027-01-01T00:00:00.000Z', periodEnd: '2027-02-01T00:00:00.000Z' });
    } finally {
      app.setNow(undefined);
    }
  });
});
