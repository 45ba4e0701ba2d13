import { expect } from 'chai';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';

interface Job {
  job_id: string;
  locations: { country: string | null; state: string | null; msa: { cbsa_code: string } | null }[];
  postings: { employment_type: string | null; source_class: string }[];
}

interface Counted {
  count: number;
  groups: { value: string | null; count: number }[];
}

/** Per group_by over a job's locations or postings: the values a job counts in (null: one without). */
const VALUES: Record<string, (job: Job) => (string | null)[]> = {
  country: (job) => (job.locations.length === 0 ? [null] : job.locations.map((l) => l.country)),
  state: (job) =>
    job.locations.length === 0
      ? [null]
      : job.locations.map((l) => (l.country === null || l.state === null ? null : `${l.country}-${l.state}`)),
  msa: (job) => (job.locations.length === 0 ? [null] : job.locations.map((l) => l.msa?.cbsa_code ?? null)),
  employment_type: (job) => job.postings.map((p) => p.employment_type?.toLowerCase() ?? null),
  source_class: (job) => job.postings.map((p) => p.source_class),
};

describe('GET /v1/jobs/count grouped by a location or posting value', function () {
  this.timeout(120_000);
  let app: TestApp;
  let key: string;
  let jobs: Job[];

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 300, seed: 11 });
    key = (await app.account({ plan: 'paid-500k' })).key;
    jobs = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: Job[]; next_cursor: string | null } } = await app.api.get(
        `/v1/jobs?limit=100&fields=locations,postings${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key },
      );
      jobs.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor);
  });
  after(() => app?.close());

  for (const [groupBy, valuesOf] of Object.entries(VALUES)) {
    it(`${groupBy}: counts each job once in every group it has a value in, a job without one in null, the 25 largest`, async () => {
      const expected = new Map<string | null, number>();
      for (const job of jobs) for (const value of new Set(valuesOf(job))) expected.set(value, (expected.get(value) ?? 0) + 1);
      const ranked = [...expected.entries()]
        .sort(([a, x], [b, y]) => y - x || (a === null ? 1 : b === null ? -1 : a < b ? -1 : a > b ? 1 : 0))
        .slice(0, 25)
        .map(([value, count]) => ({ value, count }));
      const r = await app.api.get<Counted>(`/v1/jobs/count?group_by=${groupBy}`, { key });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.count).to.equal(jobs.length);
      expect(r.body.groups).to.deep.equal(ranked);
    });
  }
});
