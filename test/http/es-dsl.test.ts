import { expect } from 'chai';
import esb from 'elastic-builder';
import { join } from 'node:path';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { publish } from '../../src/catalog/publish/publish.js';
import { startTestApp, type TestApp } from '../support/app.js';
import type { ApiResponse } from '../support/client.js';

interface Page {
  data: ({ job_id: string } & Record<string, unknown>)[];
  next_cursor: string | null;
}
interface ErrorBody {
  error: { code: string; message: string; request_id: string };
}

const ES_DSL = '/v1/jobs/search/es_dsl';
const SEARCH = '/v1/jobs/search';

/** One question asked both ways: an es_dsl body built with elastic-builder, and the POST /v1/jobs/search body it means. */
interface Twin {
  name: string;
  query: esb.Query;
  search: Record<string, unknown>;
  options?: Record<string, unknown>;
  /** The least number of jobs the question finds in the corpus, so that no comparison is of two empty lists. */
  atLeast: number;
}

const TWINS: Twin[] = [
  { name: 'match_all', query: esb.matchAllQuery(), search: {}, options: { limit: 250, fields: ['job_id', 'title'] }, atLeast: 700 },
  {
    name: 'a match on title (words OR-ed)',
    query: esb.matchQuery('title', 'engineer nurse'),
    search: { title_advanced: 'engineer | nurse' },
    options: { limit: 40 },
    atLeast: 100,
  },
  {
    name: 'a match_phrase on title, ranked by relevance',
    query: esb.matchPhraseQuery('title', 'warehouse associate'),
    search: { title: 'warehouse associate' },
    options: { limit: 4 },
    atLeast: 5,
  },
  {
    name: 'query_string on description with OR, AND NOT and a phrase',
    query: esb.queryStringQuery('(python OR sql OR "health savings account") AND NOT contract').fields(['description']),
    search: { description_advanced: '(python | sql | "health savings account") & !contract' },
    options: { limit: 20 },
    atLeast: 30,
  },
  {
    name: 'simple_query_string on title with a prefix and a negation',
    query: esb.simpleQueryStringQuery('nurs* -travel').fields(['title']).defaultOperator('AND'),
    search: { title_advanced: 'nurs:* & !travel' },
    options: { limit: 15 },
    atLeast: 20,
  },
  {
    name: 'should on locations.country beside must',
    query: esb
      .boolQuery()
      .must(esb.matchQuery('title', 'engineer'))
      .should(['CA', 'GB', 'IN'].map((c) => esb.termQuery('locations.country', c))),
    search: { title_advanced: 'engineer', country: ['CA', 'GB', 'IN'] },
    options: { limit: 5 },
    atLeast: 6,
  },
  {
    name: 'should on employment_type with must_not exists pay',
    query: esb
      .boolQuery()
      .should([esb.termQuery('employment_type', 'contract'), esb.matchQuery('employment_type', 'Part-Time')])
      .mustNot(esb.existsQuery('pay')),
    search: { employment_type: ['contract', 'part-time'], has_pay: false },
    options: { limit: 10 },
    atLeast: 15,
  },
  {
    name: 'pay ranges in one currency',
    query: esb
      .boolQuery()
      .filter([esb.rangeQuery('pay.floor').gt(60000), esb.rangeQuery('pay.ceiling').lte(150000), esb.termQuery('pay.currency', 'usd')]),
    search: { pay_min: 60000, pay_max: 150000, pay_currency: 'USD' },
    options: { limit: 50 },
    atLeast: 100,
  },
  {
    name: 'date ranges: gt as gte on a plain date, lt as lte on a date-time with an offset',
    query: esb
      .boolQuery()
      .filter([
        esb.rangeQuery('posted_at').gt('2026-11-10'),
        esb.rangeQuery('job_updated_at').lt('2026-11-19T01:00:00+02:00'),
        esb.rangeQuery('job_first_seen_at').gte('2026-10-01'),
      ]),
    search: { posted_since: '2026-11-10', updated_until: '2026-11-18T23:00:00Z', first_seen_since: '2026-10-01' },
    options: { limit: 50 },
    atLeast: 100,
  },
  {
    name: 'exists and must_not exists',
    query: esb
      .boolQuery()
      .filter([esb.existsQuery('description'), esb.existsQuery('locations')])
      .mustNot(esb.existsQuery('company_id')),
    search: { has_description: true, has_location: true, company_linked: false },
    options: { limit: 50 },
    atLeast: 80,
  },
  {
    name: 'currentness terms and must_not stale',
    query: esb
      .boolQuery()
      .filter(esb.termsQuery('currentness', ['current', 'uncertain']))
      .mustNot(esb.termQuery('stale', true)),
    search: { currentness: ['current', 'uncertain'], stale: false },
    options: { limit: 250, fields: ['job_id', 'currentness'] },
    // The corpus's day 1 has a history: about a tenth of its jobs are stale and a few not current.
    atLeast: 600,
  },
  {
    name: 'a state, a metro and a work arrangement',
    query: esb
      .boolQuery()
      .filter([
        esb.termQuery('locations.state', 'ny'),
        esb.termQuery('locations.msa.cbsa_code', '35620'),
        esb.termQuery('work_arrangement', 'in_person'),
      ]),
    search: { state: 'NY', msa: '35620', work_arrangement: 'in_person' },
    options: { limit: 10 },
    atLeast: 20,
  },
  {
    name: 'one word in the title or the description (q)',
    query: esb.queryStringQuery('warehouse').fields(['title', 'description']),
    search: { q: 'warehouse' },
    options: { limit: 20, sort: 'updated' },
    atLeast: 40,
  },
  {
    name: 'names, places and sources, with include and fields',
    query: esb
      .boolQuery()
      .filter([
        esb.matchPhraseQuery('employer_name', 'care'),
        esb.termsQuery('source_type', ['ats_api']),
        esb.termQuery('source_class', 'ats'),
      ]),
    search: { company: 'care', source_type: 'ats_api', source_class: 'ats' },
    options: { limit: 10, include: ['source_data'], fields: ['title', 'employer_name', 'postings'] },
    atLeast: 30,
  },
];

describe('POST /v1/jobs/search/es_dsl', function () {
  this.timeout(120_000);
  let app: TestApp;
  let key: string;

  const post = <T>(path: string, body: unknown) => app.api.post<T>(path, body, { key });

  /** Every page of a listing, following next_cursor on the same route. */
  async function pages(path: string, body: Record<string, unknown>): Promise<Page['data'][]> {
    const all: Page['data'][] = [];
    let cursor: string | null = null;
    do {
      const r: ApiResponse<Page> = await post<Page>(path, cursor === null ? body : { ...body, cursor });
      expect(r.status, `${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`).to.equal(200);
      all.push(r.body.data);
      cursor = r.body.next_cursor;
    } while (cursor !== null);
    return all;
  }

  async function refused(body: unknown): Promise<string> {
    const r = await post<ErrorBody>(ES_DSL, body);
    expect(r.status, JSON.stringify(r.body)).to.equal(400);
    expect(Object.keys(r.body)).to.deep.equal(['error']);
    expect(r.body.error.code).to.equal('invalid_request');
    expect(r.body.error.request_id).to.be.a('string').and.equal(r.headers.get('x-request-id'));
    return r.body.error.message;
  }

  before(async () => {
    app = await startTestApp();
    ({ key } = await app.account({ plan: 'paid-100k' }));
    const corpus = join(app.config.dataDir, '..', 'corpus');
    await generateCorpus({ jobs: 800, seed: 7, days: 1, start: '2026-11-18' }, corpus, { workers: 0 });
    await publish({
      input: join(corpus, 'day-001'),
      snapshotsDir: app.config.snapshotsDir,
      dataDir: app.config.dataDir,
      quiet: true,
      memoryLimit: '1GB',
    });
    await app.service.watcher.check();
  });
  after(() => app.close());

  describe('answers the same jobs, in the same order and pages, as POST /v1/jobs/search', () => {
    for (const twin of TWINS) {
      it(twin.name, async () => {
        const options = twin.options ?? {};
        const viaEsDsl = await pages(ES_DSL, JSON.parse(JSON.stringify({ query: twin.query, ...options })) as Record<string, unknown>);
        const viaSearch = await pages(SEARCH, { ...twin.search, ...options });
        expect(viaEsDsl).to.deep.equal(viaSearch);
        expect(viaEsDsl.flat().length).to.be.at.least(twin.atLeast);
        if (twin.atLeast > Number(options.limit ?? 50)) expect(viaEsDsl.length, 'pages').to.be.above(1);
      });
    }
  });

  it('binds its cursors to its own route', async () => {
    const first = await post<Page>(ES_DSL, { query: { match: { title: 'engineer nurse' } }, limit: 5 });
    expect(first.status).to.equal(200);
    const next = await post<ErrorBody>(SEARCH, { title_advanced: 'engineer | nurse', limit: 5, cursor: first.body.next_cursor });
    expect(next.status).to.equal(400);
    expect(next.body.error.message).to.match(/same route/);
  });

  describe('answers 400 invalid_request in the error envelope, naming what it cannot translate', () => {
    it('an unsupported clause, by its place in the query', async () => {
      const query = esb.boolQuery().must([esb.termQuery('locations.country', 'US'), esb.wildcardQuery('title', 'nur*')]);
      expect(await refused({ query })).to.match(
        /^query\.bool\.must\[1\]\.wildcard is not supported; use one of match_all, bool, term, terms/,
      );
    });

    it('an unknown field, with the accepted ones', async () => {
      expect(await refused({ query: esb.rangeQuery('salary').gte(100000) })).to.match(
        /^query\.range\.salary: unknown field; accepted fields: title, /,
      );
    });

    it('should on a field other than locations.country, occupation.soc_code or employment_type', async () => {
      const query = esb.boolQuery().should([esb.matchQuery('title', 'nurse'), esb.matchQuery('title', 'doctor')]);
      expect(await refused({ query })).to.match(
        /^query\.bool\.should\[0\]\.match\.title: should is supported only on locations\.country, occupation\.soc_code or employment_type/,
      );
    });

    it('an option that changes the matches, query_string syntax it cannot express, and a negation-only text search', async () => {
      expect(await refused({ query: esb.matchQuery('title', 'nurse').fuzziness('AUTO') })).to.match(
        /^query\.match\.title\.fuzziness is not supported/,
      );
      expect(await refused({ query: esb.queryStringQuery('title:nurse').fields(['title']) })).to.match(
        /^query\.query_string\.query: a field name/,
      );
      expect(await refused({ query: esb.boolQuery().mustNot(esb.matchQuery('title', 'intern')) })).to.match(/needs a positive search term/);
    });

    it('a search error of the translated filters, such as sort=relevance without a ranked text', async () => {
      expect(await refused({ query: esb.matchQuery('title', 'nurse'), sort: 'relevance' })).to.match(
        /sort=relevance needs q, title or description/,
      );
    });

    it('a missing query and an unknown key of the body', async () => {
      expect(await refused({ limit: 5 })).to.match(/query/);
      expect(await refused({ query: { match_all: {} }, size: 5 })).to.match(/size/);
    });
  });
});
