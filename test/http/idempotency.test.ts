import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';

interface ExportRecord {
  export_id: string;
  status: string;
}
interface ErrorBody {
  error: { code: string; message: string };
}

describe('Idempotency-Key (POST /v1/jobs/exports, PUT /v1/account/overage)', function () {
  this.timeout(120_000);
  let app: TestApp;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 300, seed: 11 });
  });
  after(() => app?.close());

  const exportsOf = (accountId: string) =>
    app.store.query<{ export_id: string }>('SELECT export_id FROM exports WHERE account_id = $1', [accountId]);
  const create = (key: string, body: unknown, idempotencyKey?: string) =>
    app.api.post<ExportRecord & ErrorBody>('/v1/jobs/exports', body, {
      key,
      headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
    });

  it('creates one export for a request sent twice under one key, answers the second with the first answer, and charges once', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-5k' });
    const idem = randomUUID();
    const first = await create(key, { max_records: 20, country: 'US' }, idem);
    expect(first.status).to.equal(202);
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    // The same body with its keys in another order is the same request.
    const again = await create(key, { country: 'US', max_records: 20 }, idem);
    expect(again.status).to.equal(202);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body.export_id).to.equal(first.body.export_id);
    expect(again.headers.get('location')).to.equal(`/v1/jobs/exports/${first.body.export_id}`);
    await app.service.exportRunner.idle();
    await app.service.ctx.meter.idle();
    expect(await exportsOf(accountId)).to.have.length(1);
    const rows = await app.store.query<{ status: number; records_charged: number; settlement_status: string }>(
      'SELECT status, records_charged::int AS records_charged, settlement_status FROM ledger WHERE account_id = $1 ORDER BY seq',
      [accountId],
    );
    expect(rows).to.deep.equal([
      { status: 202, records_charged: 20, settlement_status: 'included' },
      { status: 202, records_charged: 0, settlement_status: 'not_charged' },
    ]);
  });

  it('answers 422 idempotency_key_reused for another body under a key, and creates nothing', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-5k' });
    const idem = randomUUID();
    expect((await create(key, { max_records: 5 }, idem)).status).to.equal(202);
    await app.service.exportRunner.idle();
    const other = await create(key, { max_records: 6 }, idem);
    expect(other.status).to.equal(422);
    expect(other.body.error.code).to.equal('idempotency_key_reused');
    const overage = await app.api.put<ErrorBody>('/v1/account/overage', { enabled: true }, { key, headers: { 'idempotency-key': idem } });
    expect(overage.status, 'another route under the key').to.equal(422);
    expect(await exportsOf(accountId)).to.have.length(1);
  });

  it('lets two requests sent at once under one key make one export, both answered with it', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-5k' });
    const idem = randomUUID();
    const [a, b] = await Promise.all([create(key, { max_records: 7 }, idem), create(key, { max_records: 7 }, idem)]);
    expect([a.status, b.status]).to.deep.equal([202, 202]);
    expect(a.body.export_id).to.equal(b.body.export_id);
    await app.service.exportRunner.idle();
    expect(await exportsOf(accountId)).to.have.length(1);
  });

  it('keeps only a successful answer: a request refused under a key is done when sent again with it', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-5k' });
    app.service.exportRunner.pause();
    try {
      expect((await create(key, { max_records: 3 })).status).to.equal(202);
      const idem = randomUUID();
      const refused = await create(key, { max_records: 4 }, idem);
      expect(refused.status).to.equal(409);
      app.service.exportRunner.resume();
      await app.service.exportRunner.idle();
      expect((await create(key, { max_records: 4 }, idem)).status).to.equal(202);
    } finally {
      app.service.exportRunner.resume();
    }
    await app.service.exportRunner.idle();
    expect(await exportsOf(accountId)).to.have.length(2);
  });

  it('replays the first answer of the overage PUT without changing the setting again, and forgets a key after 24 hours', async () => {
    const { key } = await app.account({ plan: 'paid-5k' });
    const put = (body: unknown, idem?: string) =>
      app.api.put<{ enabled: boolean }>('/v1/account/overage', body, { key, headers: idem ? { 'idempotency-key': idem } : {} });
    const idem = randomUUID();
    expect((await put({ enabled: true }, idem)).body.enabled).to.equal(true);
    expect((await put({ enabled: false })).body.enabled).to.equal(false);
    const replay = await put({ enabled: true }, idem);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body.enabled).to.equal(true);
    // Replayed, not done: the setting is still off.
    expect((await put({ monthlyLimitUsd: 10 })).body.enabled).to.equal(false);
    app.setNow(new Date(Date.now() + 25 * 3600_000));
    try {
      const later = await put({ enabled: true }, idem);
      expect(later.headers.get('idempotent-replayed')).to.equal(null);
      expect(later.body.enabled).to.equal(true);
    } finally {
      app.setNow(undefined);
    }
  });

  it('refuses a key that is not 1 to 255 visible characters with 400 naming Idempotency-Key', async () => {
    const { key } = await app.account({ plan: 'paid-5k' });
    for (const bad of ['has space', 'x'.repeat(256)]) {
      const res = await app.api.put<ErrorBody>('/v1/account/overage', { enabled: true }, { key, headers: { 'idempotency-key': bad } });
      expect(res.status, bad).to.equal(400);
      expect(res.body.error.message).to.include('Idempotency-Key');
    }
  });
});
