import { expect } from 'chai';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { publish } from '../../src/catalog/publish/publish.js';
import { startTestApp, tempDir, type TestApp } from '../support/app.js';

interface Company {
  company_id: string;
  name: string;
  country: string | null;
  status: 'active' | 'inactive';
  domain: string | null;
  industry: string | null;
  employee_range: string | null;
  merged_ids: string[];
}
interface CompanyPage {
  data: Company[];
  next_cursor: string | null;
  release_id: string;
}
interface JobPage {
  data: { job_id: string; company_id: string | null }[];
  next_cursor: string | null;
}
interface ErrorBody {
  error: { code: string; message: string };
}

/** The route order, computed apart from the server: accents folded and lower case, then company_id. */
const sortKey = (name: string) => name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const routeOrder = (a: Company, b: Company) => {
  const [x, y] = [sortKey(a.name), sortKey(b.name)];
  if (x !== y) return x < y ? -1 : 1;
  return a.company_id < b.company_id ? -1 : 1;
};

describe('companies', function () {
  this.timeout(240_000);
  let app: TestApp;
  let key: string;
  let corpus: string;
  /** The companies of each release, read from its Parquet file. */
  const releases = new Map<string, Company[]>();

  before(async () => {
    const root = await tempDir('companies');
    corpus = join(root, 'corpus');
    await generateCorpus({ jobs: 400, seed: 11, days: 3, start: '2026-11-16' }, corpus, { workers: 0 });
    app = await startTestApp();
    ({ key } = await app.account({ plan: 'paid-25k' }));
    await publishDay(1);
  });
  after(() => app?.close());

  async function publishDay(day: number): Promise<void> {
    await publish({
      input: join(corpus, `day-00${day}`),
      snapshotsDir: app.config.snapshotsDir,
      dataDir: app.config.dataDir,
      quiet: true,
      memoryLimit: '1GB',
    });
    await app.service.watcher.check();
  }

  async function release(): Promise<{ id: string; companies: Company[] }> {
    const id = (await readFile(join(app.config.snapshotsDir, 'registry', 'ACTIVE'), 'utf8')).trim();
    if (!releases.has(id)) {
      const db = await (await DuckDBInstance.create(':memory:')).connect();
      const rows = (
        await db.runAndReadAll(`SELECT * FROM read_parquet('${join(app.config.snapshotsDir, 'registry', id, 'companies.parquet')}')`)
      ).getRowObjectsJson();
      releases.set(id, (rows as unknown as Company[]).sort(routeOrder));
      db.closeSync();
    }
    return { id, companies: releases.get(id)! };
  }

  /** Every page of a company listing, following next_cursor. */
  async function pages(first: (cursor?: string) => Promise<{ status: number; body: CompanyPage }>): Promise<CompanyPage[]> {
    const out: CompanyPage[] = [];
    let cursor: string | undefined;
    do {
      const r = await first(cursor);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      out.push(r.body);
      cursor = r.body.next_cursor ?? undefined;
    } while (cursor);
    return out;
  }

  it('lists every company of the release once, by normalised name then company_id, page by page', async () => {
    const { id, companies } = await release();
    expect(companies.length).to.be.greaterThan(14);
    const got = await pages((cursor) =>
      app.api.get<CompanyPage>(`/v1/companies?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key }),
    );
    expect(got.every((p) => p.release_id === id)).to.equal(true);
    expect(got.slice(0, -1).every((p) => p.data.length === 7)).to.equal(true);
    expect(got.at(-1)!.next_cursor).to.equal(null);
    expect(got.flatMap((p) => p.data)).to.deep.equal(companies);
  });

  it('filters by a case-insensitive substring of the name, and search ANDs name, country and status', async () => {
    const { companies } = await release();
    const word = companies[3]!.name.split(' ')[0]!.slice(1, 4);
    const byName = companies.filter((c) => c.name.toLowerCase().includes(word.toLowerCase()));
    const listed = await pages((cursor) =>
      app.api.get<CompanyPage>(
        `/v1/companies?name=${encodeURIComponent(word.toUpperCase())}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key },
      ),
    );
    expect(listed.flatMap((p) => p.data)).to.deep.equal(byName);

    const country = companies[0]!.country!;
    for (const status of ['active', 'inactive'] as const) {
      const expected = companies.filter(
        (c) => c.country === country && c.status === status && c.name.toLowerCase().includes(word.toLowerCase()),
      );
      const searched = await pages((cursor) =>
        app.api.post<CompanyPage>(
          '/v1/companies/search',
          { name: word, country: country.toLowerCase(), status, limit: 2, ...(cursor ? { cursor } : {}) },
          { key },
        ),
      );
      expect(
        searched.flatMap((p) => p.data),
        status,
      ).to.deep.equal(expected);
    }
    const all = await pages((cursor) =>
      app.api.post<CompanyPage>('/v1/companies/search', { country, limit: 100, ...(cursor ? { cursor } : {}) }, { key }),
    );
    expect(all.flatMap((p) => p.data)).to.deep.equal(companies.filter((c) => c.country === country));
  });

  it('counts each company returned as one record', async () => {
    const r = await app.api.get<CompanyPage>('/v1/companies?limit=9', { key });
    expect(r.headers.get('X-Data-Records-Charged')).to.equal('9');
    const one = await app.api.get(`/v1/companies/${r.body.data[0]!.company_id}`, { key });
    expect(one.headers.get('X-Data-Records-Charged')).to.equal('1');
  });

  it('refuses bad input with 400 naming it, and cursors used with other filters, another page size or altered', async () => {
    const first = await app.api.get<CompanyPage>('/v1/companies?limit=5', { key });
    const cursor = first.body.next_cursor!;
    const cases: [() => Promise<{ status: number; body: unknown }>, RegExp][] = [
      [() => app.api.get(`/v1/companies?limit=6&cursor=${encodeURIComponent(cursor)}`, { key }), /cursor/],
      [() => app.api.get(`/v1/companies?limit=5&name=ab&cursor=${encodeURIComponent(cursor)}`, { key }), /cursor/],
      [() => app.api.get(`/v1/companies?limit=5&cursor=${encodeURIComponent(`${cursor.slice(0, -2)}AA`)}`, { key }), /cursor/],
      [() => app.api.get(`/v1/companies?limit=5&cursor=${encodeURIComponent(first.body.release_id)}`, { key }), /cursor/],
      [() => app.api.get('/v1/companies?limit=101', { key, unchecked: true }), /limit/],
      [() => app.api.get('/v1/companies?limit=0', { key, unchecked: true }), /limit/],
      [() => app.api.get('/v1/companies?country=DE', { key, unchecked: true }), /country/],
      [() => app.api.post('/v1/companies/search', { name: 'a', sector: 'x' }, { key, unchecked: true }), /sector/],
      [() => app.api.post('/v1/companies/search', { country: 'DEU' }, { key, unchecked: true }), /country/],
      [() => app.api.post('/v1/companies/search', { status: 'dissolved' }, { key, unchecked: true }), /status/],
      [() => app.api.post('/v1/companies/search', { limit: '5' }, { key, unchecked: true }), /limit/],
      [() => app.api.post('/v1/companies/search', { name: '' }, { key, unchecked: true }), /name/],
      [() => app.api.get('/v1/companies/not-a-uuid', { key, unchecked: true }), /companyId/],
    ];
    for (const [call, message] of cases) {
      const r = await call();
      expect(r.status, String(message)).to.equal(400);
      expect((r.body as ErrorBody).error.code).to.equal('invalid_request');
      expect((r.body as ErrorBody).error.message, String(message)).to.match(message);
    }
    // A cursor of the list serves the search with the same filters and page size.
    const next = await app.api.post<CompanyPage>('/v1/companies/search', { limit: 5, cursor }, { key });
    expect(next.status).to.equal(200);
    expect(next.body.data[0]!.company_id).to.not.equal(first.body.data[0]!.company_id);
  });

  it('answers one company, 404 for an unknown id', async () => {
    const { companies } = await release();
    const r = await app.api.get<{ data: Company }>(`/v1/companies/${companies[5]!.company_id}`, { key });
    expect(r.status).to.equal(200);
    expect(r.body.data).to.deep.equal(companies[5]);
    const missing = await app.api.get<ErrorBody>('/v1/companies/00000000-0000-4000-8000-000000000000', { key });
    expect(missing.status).to.equal(404);
    expect(missing.body.error.code).to.equal('company_not_found');
  });

  it("lists a company's jobs as GET /v1/jobs does with its company_id, page by page", async () => {
    const all = await app.api.get<JobPage>('/v1/jobs?limit=250&fields=job_id,company_id', { key });
    const counts = new Map<string, number>();
    for (const job of all.body.data) if (job.company_id) counts.set(job.company_id, (counts.get(job.company_id) ?? 0) + 1);
    const [companyId] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    const walk = async (path: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const r: { status: number; body: JobPage } = await app.api.get<JobPage>(
          `${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { key },
        );
        expect(r.status).to.equal(200);
        ids.push(...r.body.data.map((j) => j.job_id));
        cursor = r.body.next_cursor;
      } while (cursor);
      return ids;
    };
    const viaCompany = await walk(`/v1/companies/${companyId}/jobs?limit=2&currentness=current,uncertain`);
    expect(viaCompany.length).to.be.greaterThan(2);
    expect(viaCompany).to.deep.equal(await walk(`/v1/jobs?company_id=${companyId}&limit=2&currentness=current,uncertain`));
    const text = await app.api.get<JobPage>(`/v1/companies/${companyId}/jobs?limit=3&fields=job_id`, { key });
    expect(text.headers.get('X-Data-Records-Charged')).to.equal(String(text.body.data.length));

    const withId = await app.api.get<ErrorBody>(`/v1/companies/${companyId}/jobs?company_id=${companyId}`, { key, unchecked: true });
    expect(withId.status).to.equal(400);
    expect(withId.body.error.message).to.match(/company_id/);
    const missing = await app.api.get<ErrorBody>('/v1/companies/00000000-0000-4000-8000-000000000000/jobs', { key });
    expect(missing.status).to.equal(404);
    expect(missing.body.error.code).to.equal('company_not_found');
  });

  it('keeps a cursor reading its release after a newer one is active, redirects merged ids, and refuses a cursor of a release no longer kept', async () => {
    const before = await release();
    const first = await app.api.get<CompanyPage>('/v1/companies?limit=4', { key });
    expect(first.body.release_id).to.equal(before.id);
    await publishDay(2);
    await publishDay(3);
    const after = await release();
    expect(after.id).to.not.equal(before.id);

    // The cursor goes on in the release it started on; a new listing reads the new one.
    const rest = await pages((cursor) =>
      app.api.get<CompanyPage>(`/v1/companies?limit=4&cursor=${encodeURIComponent(cursor ?? first.body.next_cursor!)}`, { key }),
    );
    expect(rest.every((p) => p.release_id === before.id)).to.equal(true);
    expect([...first.body.data, ...rest.flatMap((p) => p.data)]).to.deep.equal(before.companies);
    const fresh = await pages((cursor) =>
      app.api.get<CompanyPage>(`/v1/companies?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key }),
    );
    expect(fresh.flatMap((p) => p.data)).to.deep.equal(after.companies);

    // Acquisitions of the new release: the absorbed id answers 308 to its acquirer, and so do its jobs.
    const acquirer = after.companies.find((c) => c.merged_ids.length > 0)!;
    expect(acquirer, 'the corpus has an acquisition by day 3').to.not.equal(undefined);
    const merged = acquirer.merged_ids[0]!;
    const moved = await app.api.get<{ location: string }>(`/v1/companies/${merged}`, { key });
    expect(moved.status).to.equal(308);
    expect(moved.headers.get('location')).to.equal(`/v1/companies/${acquirer.company_id}`);
    expect(moved.headers.get('X-Data-Records-Charged')).to.equal('0');
    const movedJobs = await app.api.get(`/v1/companies/${merged}/jobs?limit=5&fields=job_id`, { key });
    expect(movedJobs.status).to.equal(308);
    expect(movedJobs.headers.get('location')).to.equal(`/v1/companies/${acquirer.company_id}/jobs?limit=5&fields=job_id`);

    // Once the old release is no longer retained, its cursor is refused.
    const again = await app.api.get<CompanyPage>('/v1/companies?limit=4', { key });
    const old = first.body.next_cursor!;
    await rm(join(app.config.snapshotsDir, 'registry', before.id), { recursive: true, force: true });
    const refused = await app.api.get<ErrorBody>(`/v1/companies?limit=4&cursor=${encodeURIComponent(old)}`, { key });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.message).to.match(/no longer retained/);
    expect((await app.api.get(`/v1/companies?limit=4&cursor=${encodeURIComponent(again.body.next_cursor!)}`, { key })).status).to.equal(
      200,
    );
  });
});
