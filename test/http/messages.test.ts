import { expect } from 'chai';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';
import type { ApiResponse } from '../support/client.js';
import { openapi } from '../support/contract.js';

type ErrorBody = { error: { code: string; message: string } };

/** What no message may hold: a regular expression's pieces or the validator's own phrases. */
const REGEX_FRAGMENTS = ['^', '$', '[A-Z', '[a-z', '[0-9', '\\d', '{0,', '{8}', '(?'];
const VALIDATOR_PHRASES = [
  'must NOT',
  'must match',
  'must be equal to one of',
  'unevaluated',
  'additional properties',
  'format "',
  'must have required property',
  'must be boolean',
  'must be integer',
  'must be array',
  'must be object',
  'must be string',
  'must be number',
  'must be >=',
  'must be <=',
  'Empty value found',
  'schema in anyOf',
  'request/',
  '/query/',
  '/body/',
];

/** A wrong value for each parameter of GET /v1/jobs. */
const BAD_JOBS_QUERY: Record<string, string> = {
  company: '',
  company_id: 'acme',
  title: 'a'.repeat(201),
  title_advanced: 'NOT nurse',
  description: '',
  description_advanced: '(nurse',
  q: '',
  location: 'x'.repeat(201),
  city: '',
  state: 'California',
  country: 'USA',
  msa: '123',
  soc_code: '15',
  skills: 'Pyhton',
  listed_by_employer: 'maybe',
  reposts_min: '-1',
  days_open_min: 'ten',
  days_open_max: '1.5',
  verified_since: 'yesterday',
  verified_until: 'soon',
  pay_source: 'salary',
  work_arrangement: 'office',
  remote_type: 'yes',
  employment_type: 'full-time,,part-time',
  source: '',
  exclude_source: 'a,,b',
  source_type: '',
  source_class: 'board',
  posting_id: '',
  source_posting_id: '',
  posting_status: 'open',
  currentness: 'now',
  active: 'yes',
  stale: '1',
  company_linked: 'Y',
  has_description: 'TRUE',
  has_location: 'maybe',
  has_pay: '',
  has_posting_url: 'on',
  has_application_url: 'no',
  pay_currency: 'dollars',
  pay_min: '-5',
  pay_max: '2000000000',
  posted_since: 'yesterday',
  posted_until: '2026-11-20T06:00:00',
  published_since: '2026-02-30',
  first_seen_since: '20261120',
  first_seen_until: 'last week',
  updated_since: '2026-11-20 06:00',
  updated_until: 'now',
  curated_since: '11/20/2026',
  curated_until: '2026-13-01',
  last_fetch_since: 'x',
  last_fetch_until: '2026-11-20T25:00:00Z',
  application_check: 'ok',
  application_check_since: 'today',
  job_id: '123',
  include: 'companies',
  fields: 'titel',
  description_format: 'markdown',
  limit: '5000',
  cursor: 'not-a-cursor',
  sort: 'newest',
};

describe('error messages in words', function () {
  this.timeout(180_000);
  let app: TestApp;
  let key: string;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 60, seed: 17 });
  });
  beforeEach(async () => {
    ({ key } = await app.account({ plan: 'paid-25k' }));
  });
  after(() => app?.close());

  function expectWords(res: ApiResponse, status: number, ...words: string[]): string {
    const { message } = (res.body as ErrorBody).error;
    expect(res.status, message).to.equal(status);
    for (const fragment of [...REGEX_FRAGMENTS, ...VALIDATOR_PHRASES])
      expect(message, `"${fragment}" in: ${message}`).not.to.include(fragment);
    for (const word of words) expect(message).to.include(word);
    return message;
  }

  it('has a wrong value for every parameter of GET /v1/jobs', () => {
    const params = (openapi.paths['/v1/jobs']!.get as unknown as { parameters: { $ref: string }[] }).parameters.map((p) =>
      p.$ref.split('/').pop()!,
    );
    expect(Object.keys(BAD_JOBS_QUERY).sort()).to.deep.equal([...params].sort());
  });

  for (const [name, value] of Object.entries(BAD_JOBS_QUERY)) {
    it(`names ${name} and says what it accepts for ${name}=${JSON.stringify(value.slice(0, 30))}`, async () => {
      const res = await app.api.get(`/v1/jobs?${name}=${encodeURIComponent(value)}`, { key });
      expectWords(res, 400, name);
    });
  }

  it('says what a date accepts, with examples', async () => {
    const message = expectWords(await app.api.get('/v1/jobs?updated_since=yesterday', { key }), 400);
    expect(message).to.equal(
      `query parameter 'updated_since' must be a date (2026-11-20) or a date-time with a zone (2026-11-20T06:00:00Z); got "yesterday".`,
    );
    expectWords(
      await app.api.post('/v1/jobs/search', { updated_since: 'yesterday' }, { key }),
      400,
      `'updated_since' must be a date (2026-11-20) or a date-time with a zone (2026-11-20T06:00:00Z)`,
    );
    expectWords(await app.api.get('/v1/jobs/changes?since=yesterday', { key }), 400, 'since', '2026-11-20T06:00:00Z');
  });

  it('names the parameter and what it accepts on the other routes', async () => {
    const cases: [string, string[]][] = [
      ['/v1/jobs/count?has_pay=maybe', ['has_pay', 'true or false']],
      ['/v1/jobs/changes?since=2026-11-01T00:00:00Z&types=deleted', ['types', 'created, updated, expired']],
      ['/v1/jobs/changes?since=2026-11-01T00:00:00Z&limit=5000', ['limit', '1 to 1000']],
      ['/v1/jobs/changes?since=2026-11-01T00:00:00Z&include=company', ['include', 'source_data']],
      ['/v1/jobs/not-a-uuid', ['jobId', 'UUID', 'e.g.']],
      ['/v1/companies/not-a-uuid', ['companyId', 'UUID']],
      ['/v1/companies?limit=500', ['limit', '1 to 100']],
      ['/v1/usage/requests?route_class=jobs', ['route_class', 'jobs_list']],
      ['/v1/usage/requests?api_key_id=abc', ['api_key_id']],
      ['/v1/usage/requests?start=monday', ['start', '2026-11-20T06:00:00Z']],
      ['/v1/usage/analytics?start=2026-11', ['start', '2026-11-20']],
      ['/v1/jobs?fields=title&fields=salary', ['fields', 'job_id, currentness']],
    ];
    for (const [path, words] of cases) expectWords(await app.api.get(path, { key }), 400, ...words);
  });

  it('names the property of a JSON body and what it accepts', async () => {
    const cases: [string, unknown, string[]][] = [
      ['/v1/jobs/search', { stale: 'true' }, ['stale', 'JSON boolean']],
      ['/v1/jobs/search', { limit: '5' }, ['limit', 'whole number']],
      ['/v1/jobs/search', { currentness: 'current' }, ['currentness', 'array']],
      ['/v1/jobs/search', { work_arrangement: 'office' }, ['work_arrangement', 'remote, hybrid, in_person']],
      ['/v1/jobs/search', { company_id: 'acme' }, ['company_id', 'UUID']],
      ['/v1/jobs/search', { fields: ['salary'] }, ['fields', 'job_id, currentness']],
      ['/v1/jobs/search', { include: ['jobs'] }, ['include', 'company', 'source_data']],
      ['/v1/jobs/search', { country: 'usa' }, ['country', 'two-letter']],
      ['/v1/jobs/search', { pay_min: 1.234 }, ['pay_min', 'two decimals']],
      ['/v1/jobs/search', [1, 2], ['JSON object']],
      ['/v1/jobs/search/es_dsl', {}, ['query', 'match_all']],
      ['/v1/jobs/search/es_dsl', { query: { match_all: {} }, limit: 0 }, ['limit', '1 to']],
      ['/v1/jobs/exports', { max_records: 0 }, ['max_records', '1 to 100000']],
      ['/v1/jobs/exports', { limit: 5 }, ['limit', 'max_records']],
      ['/v1/companies/search', { status: 'open' }, ['status', 'active, inactive']],
    ];
    for (const [path, body, words] of cases) expectWords(await app.api.post(path, body, { key }), 400, ...words);
    expectWords(await app.api.put('/v1/account/overage', {}, { key }), 400, 'enabled', 'monthlyLimitUsd');
    expectWords(await app.api.put('/v1/account/overage', { enabled: 'yes' }, { key }), 400, 'enabled', 'JSON boolean');
    expectWords(await app.api.put('/v1/account/overage', { monthlyLimitUsd: 'ten' }, { key }), 400, 'monthlyLimitUsd', '49.99');
  });

  describe('unknown names: the nearest known one, or what this API calls it', () => {
    const queries: [string, string[]][] = [
      ['/v1/jobs?page=2', ["'page'", 'cursor']],
      ['/v1/jobs?offset=50', ["'offset'", 'cursor']],
      ['/v1/jobs?per_page=10', ["'per_page'", 'limit']],
      ['/v1/jobs?page_size=10', ["'page_size'", 'limit']],
      ['/v1/jobs?size=10', ["'size'", 'limit']],
      ['/v1/jobs?keyword=nurse', ["'keyword'", "'q'"]],
      ['/v1/jobs?query=nurse', ["'query'", "'q'"]],
      ['/v1/jobs?search=nurse', ["'search'", "'q'"]],
      ['/v1/jobs?remote=true', ["'remote'", 'work_arrangement=remote']],
      ['/v1/jobs?titel=nurse', ["'titel'", "'title'"]],
      ['/v1/jobs?updated_sinse=2026-11-01', ["'updated_sinse'", "'updated_since'"]],
      ['/v1/jobs?salary_min=50000', ["'salary_min'", "'pay_min'"]],
      ['/v1/jobs/changes?since=2026-11-01T00:00:00Z&cursor=abc', ["'cursor'", "'after'"]],
      ['/v1/jobs/count?limit=5', ["'limit'", 'count']],
      ['/v1/jobs?page=2&per_page=10', ["'page'", 'cursor', "'per_page'", 'limit']],
    ];
    for (const [path, words] of queries) {
      it(`GET ${path}`, async () => {
        expectWords(await app.api.get(path, { key }), 400, ...words);
      });
    }

    it('in a JSON body', async () => {
      expectWords(await app.api.post('/v1/jobs/search', { titel: 'nurse' }, { key }), 400, "'titel'", "'title'");
      expectWords(await app.api.post('/v1/jobs/search', { page: 2 }, { key }), 400, "'page'", 'cursor');
      expectWords(
        await app.api.post('/v1/jobs/search', { keywords: 'nurse', per_page: 5 }, { key }),
        400,
        "'keywords'",
        "'q'",
        "'per_page'",
        'limit',
      );
      expectWords(await app.api.post('/v1/jobs/search/es_dsl', { query: { match_all: {} }, size: 10 }, { key }), 400, "'size'", 'limit');
      expectWords(await app.api.post('/v1/companies/search', { nam: 'acme' }, { key }), 400, "'nam'", "'name'");
      expectWords(await app.api.put('/v1/account/overage', { enable: true }, { key }), 400, "'enable'", "'enabled'");
    });

    it('in the path: the nearest route', async () => {
      const id = '0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f';
      const paths: [string, string][] = [
        ['/v1/job', '/v1/jobs'],
        ['/v1/jobs/serch', '/v1/jobs/search'],
        [`/v1/company/${id}`, `/v1/companies/${id}`],
        [`/v1/company/${id}/jobs`, `/v1/companies/${id}/jobs`],
        ['/jobs', '/v1/jobs'],
        ['/v2/jobs', '/v1/jobs'],
        ['/v1/jobs/search/es-dsl', '/v1/jobs/search/es_dsl'],
        ['/v1/usage', '/v1/usage/requests'],
      ];
      for (const [path, meant] of paths) {
        const res = await app.api.request(path.endsWith('es-dsl') ? 'POST' : 'GET', path, {
          key,
          body: path.endsWith('es-dsl') ? { query: { match_all: {} } } : undefined,
        });
        const status = path === '/v1/jobs/serch' ? 400 : 404;
        expectWords(res, status, meant);
      }
    });
  });

  describe('upper-case UUIDs', () => {
    it('are accepted in the path and the query, read as lower case', async () => {
      const page = await app.api.get<{ data: { job_id: string; company_id: string | null }[] }>('/v1/jobs?company_linked=true&limit=1', {
        key,
      });
      const job = page.body.data[0]!;
      const one = await app.api.get<{ data: { job_id: string } }>(`/v1/jobs/${job.job_id.toUpperCase()}`, { key });
      expect(one.status, one.text).to.equal(200);
      expect(one.text).to.include(job.job_id);
      const byCompany = await app.api.get<{ data: { company_id: string }[] }>(
        `/v1/jobs?company_id=${job.company_id!.toUpperCase()}&limit=5`,
        { key },
      );
      expect(byCompany.status, byCompany.text).to.equal(200);
      expect(byCompany.body.data.length).to.be.above(0);
      for (const found of byCompany.body.data) expect(found.company_id).to.equal(job.company_id);
      const byJob = await app.api.get<{ data: { job_id: string }[] }>(`/v1/jobs?job_id=${job.job_id.toUpperCase()}`, { key });
      expect(byJob.body.data.map((j) => j.job_id)).to.deep.equal([job.job_id]);
      const search = await app.api.post<{ data: { job_id: string }[] }>('/v1/jobs/search', { job_id: job.job_id.toUpperCase() }, { key });
      expect(search.body.data.map((j) => j.job_id)).to.deep.equal([job.job_id]);
    });

    it('are accepted for an export id', async () => {
      const created = await app.api.post<{ export_id: string }>('/v1/jobs/exports', { max_records: 3 }, { key });
      expect(created.status, created.text).to.equal(202);
      const res = await app.api.get<{ export_id: string }>(`/v1/jobs/exports/${created.body.export_id.toUpperCase()}`, { key });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.export_id).to.equal(created.body.export_id);
    });
  });
});
