import { expect } from 'chai';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';

interface Page {
  data: { job_id: string }[];
  next_cursor: string | null;
}

describe('conditional GET (ETag, If-None-Match)', function () {
  this.timeout(120_000);
  let app: TestApp;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 300, seed: 11 });
  });
  after(() => app?.close());

  // What the server settled in memory reaches the store within milliseconds: read once it has.
  const ledger = async (accountId: string) => {
    await app.service.ctx.meter.idle();
    return app.store.query<{ status: number; records_charged: number; settlement_status: string }>(
      'SELECT status, records_charged::int AS records_charged, settlement_status FROM ledger WHERE account_id = $1 ORDER BY seq',
      [accountId],
    );
  };

  it('gives a page and a job a strong ETag, the same while they are unchanged, another for another page', async () => {
    const { key } = await app.account();
    const first = await app.api.get<Page>('/v1/jobs?limit=5', { key });
    const again = await app.api.get<Page>('/v1/jobs?limit=5', { key });
    const etag = first.headers.get('etag');
    expect(etag).to.match(/^"[0-9a-z]+-[0-9a-z]+"$/);
    expect(again.headers.get('etag')).to.equal(etag);
    const next = await app.api.get<Page>(`/v1/jobs?limit=5&cursor=${encodeURIComponent(first.body.next_cursor!)}`, { key });
    expect(next.headers.get('etag')).to.not.equal(etag);
    const job = await app.api.get(`/v1/jobs/${first.body.data[0]!.job_id}`, { key });
    expect(job.headers.get('etag')).to.match(/^"/);
  });

  it('answers 304 without a body and charges nothing when If-None-Match names the ETag (or is *); the call still counts a request', async () => {
    const { key, accountId } = await app.account();
    const first = await app.api.get<Page>('/v1/jobs?limit=5', { key });
    const id = first.body.data[0]!.job_id;
    const job = await app.api.get(`/v1/jobs/${id}`, { key });
    const requestsBefore = Number(job.headers.get('x-data-requests-used'));
    for (const [path, condition] of [
      ['/v1/jobs?limit=5', first.headers.get('etag')!],
      [`/v1/jobs/${id}`, `W/${job.headers.get('etag')!}, "other"`],
      [`/v1/jobs/${id}`, '*'],
    ] as const) {
      const res = await app.api.get(path, { key, headers: { 'if-none-match': condition } });
      expect(res.status, `${path} ${condition}`).to.equal(304);
      expect(res.text).to.equal('');
      expect(res.headers.get('x-data-records-charged')).to.equal('0');
    }
    const changed = await app.api.get(`/v1/jobs/${id}`, { key, headers: { 'if-none-match': '"something-else"' } });
    expect(changed.status).to.equal(200);
    expect(Number(changed.headers.get('x-data-requests-used'))).to.equal(requestsBefore + 4);
    await app.service.ctx.meter.idle();
    expect((await ledger(accountId)).map((r) => [r.status, r.records_charged, r.settlement_status])).to.deep.equal([
      [200, 5, 'included'],
      [200, 1, 'included'],
      [304, 0, 'not_charged'],
      [304, 0, 'not_charged'],
      [304, 0, 'not_charged'],
      [200, 1, 'included'],
    ]);
  });

  it('never answers 304 to a POST search or an export file, whatever If-None-Match says', async () => {
    const { key } = await app.account();
    const search = await app.api.post('/v1/jobs/search', { limit: 2 }, { key, headers: { 'if-none-match': '*' } });
    expect(search.status).to.equal(200);
    expect(search.headers.get('etag')).to.equal(null);
    const created = await app.api.post<{ export_id: string }>('/v1/jobs/exports', { max_records: 5 }, { key });
    await app.service.exportRunner.idle();
    const file = await app.api.download(`/v1/jobs/exports/${created.body.export_id}/files/1`, { key, headers: { 'if-none-match': '*' } });
    expect(file.status).to.equal(200);
    expect(file.body.length).to.be.greaterThan(0);
  });
});
