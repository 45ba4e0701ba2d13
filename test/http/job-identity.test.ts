import { expect } from 'chai';
import { join } from 'node:path';
import { publish } from '../../src/catalog/publish/publish.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { writeDay, type TestDay, type TestPosting } from '../support/delivery.js';

const ats = (id: string, opening: string, extra: Partial<TestPosting> = {}): TestPosting => ({
  source: 'greenhouse',
  board: 'northwind',
  id,
  opening,
  ...extra,
});
const agg = (id: string, opening: string, extra: Partial<TestPosting> = {}): TestPosting => ({
  source: 'indeed',
  board: 'feed',
  id,
  opening,
  ...extra,
});
const OTHER =
  'Northwind Logistics moves freight across North America. You will lead our warehouse team in Denver. ' +
  'You will hire and coach twelve associates. Forklift certification is a plus. We offer health insurance and a retirement plan.';

interface Job {
  job_id: string;
  title: string;
  postings: { source: string }[];
}

describe('job identity outcomes (GET /v1/jobs/{jobId})', function () {
  this.timeout(90_000);
  let app: TestApp;
  let key: string;

  async function day(n: number, spec: TestDay): Promise<void> {
    const dir = await writeDay(join(app.config.dataDir, '..', 'delivery'), n, spec);
    await publish({ input: dir, snapshotsDir: app.config.snapshotsDir, dataDir: app.config.dataDir, quiet: true, memoryLimit: '1GB' });
    await app.service.watcher.check();
  }
  const all = async () => (await app.api.get<{ data: Job[] }>('/v1/jobs?currentness=current,uncertain,not_current', { key })).body.data;

  before(async () => {
    app = await startTestApp();
    ({ key } = await app.account());
  });
  after(() => app.close());

  it('answers 503 catalog_unavailable on every job route while nothing is published', async () => {
    for (const path of ['/v1/jobs', '/v1/jobs/count', '/v1/jobs/00000000-0000-4000-8000-000000000000']) {
      const r = await app.api.get<{ error: { code: string } }>(path, { key });
      expect(r.status, path).to.equal(503);
      expect(r.body.error.code).to.equal('catalog_unavailable');
    }
  });

  it('redirects a merged id with 308 to the job it merged into, and answers 410 for a withdrawn job', async () => {
    const weak = agg('x1', 'A', { description: 'Plan routes. Apply now...', title: 'Logistics Planner' });
    await day(1, { postings: [ats('1', 'A'), ats('2', 'B', { title: 'Warehouse Lead', description: OTHER })] });
    await day(2, { postings: [ats('1', 'A'), weak, ats('2', 'B', { title: 'Warehouse Lead', description: OTHER })] });
    const before = await all();
    const absorbed = before.find((j) => j.postings[0]!.source === 'indeed')!;
    const warehouse = before.find((j) => j.title === 'Warehouse Lead')!;
    expect(before).to.have.length(3);

    await day(3, {
      postings: [ats('1', 'A'), agg('x1', 'A'), ats('2', 'B', { title: 'Warehouse Lead', description: OTHER })],
      withdrawals: [{ source: 'greenhouse', id: '2', reason: 'spam' }],
    });
    const moved = await app.api.get<{ location: string }>(`/v1/jobs/${absorbed.job_id}?fields=title`, { key });
    expect(moved.status).to.equal(308);
    const to = moved.headers.get('location')!;
    expect(moved.body.location).to.equal(to);
    expect(to).to.match(/^\/v1\/jobs\/[0-9a-f-]{36}\?fields=title$/);
    const followed = await app.api.get<{ data: Job }>(to, { key });
    expect(followed.status).to.equal(200);
    expect(followed.body.data.job_id).to.not.equal(absorbed.job_id);

    const gone = await app.api.get<{ error: { code: string } }>(`/v1/jobs/${warehouse.job_id}`, { key });
    expect(gone.status).to.equal(410);
    expect(gone.body.error.code).to.equal('job_withdrawn');
  });

  it('refuses a cursor of an older snapshot after a new publication', async () => {
    await day(4, { postings: [ats('1', 'A'), agg('x1', 'A'), ats('3', 'C', { title: 'Dock Supervisor', description: OTHER })] });
    const first = await app.api.get<{ next_cursor: string | null }>('/v1/jobs?limit=1&currentness=current,uncertain,not_current', { key });
    expect(first.body.next_cursor).to.be.a('string');
    await day(5, { postings: [ats('1', 'A'), agg('x1', 'A'), ats('3', 'C', { title: 'Dock Supervisor', description: OTHER })] });
    const next = await app.api.get<{ error: { code: string; message: string } }>(
      `/v1/jobs?limit=1&currentness=current,uncertain,not_current&cursor=${encodeURIComponent(first.body.next_cursor!)}`,
      { key },
    );
    expect(next.status).to.equal(400);
    expect(next.body.error.message).to.match(/snapshot/);
  });
});
