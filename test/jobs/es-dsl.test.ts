import { expect } from 'chai';
import esb from 'elastic-builder';
import { ApiError } from '../../src/errors.js';
import { translateEsDsl } from '../../src/jobs/es-dsl.js';
import { acceptedClauses, ES_DSL_FIELDS } from '../../src/jobs/es-dsl-fields.js';
import { LIST_OPTIONS, readFilters, readListOptions } from '../../src/jobs/filters.js';
import { parseAdvanced, toTsquery } from '../../src/search/query.js';

/** What a client sends: the builder's query serialised as JSON, under "query". */
const wire = (query: esb.Query, options: Record<string, unknown> = {}): unknown => JSON.parse(JSON.stringify({ query, ...options }));

/**
 * The POST /v1/jobs/search body of an es_dsl body, which must itself be a valid search body: the same
 * filter and option readers as the route accept it.
 */
function translated(body: unknown): Record<string, unknown> {
  const out = translateEsDsl(body);
  const filters = readFilters(
    Object.fromEntries(Object.entries(out).filter(([k]) => !(LIST_OPTIONS as readonly string[]).includes(k))),
    'body',
  );
  readListOptions(out, filters, 'body');
  return out;
}
const filtersOf = (query: esb.Query | Record<string, unknown>) => translated(query instanceof esb.Query ? wire(query) : { query });

/** The 400 invalid_request message for a body the translator refuses. */
function refused(body: unknown): string {
  try {
    translateEsDsl(body);
  } catch (error) {
    expect(error).to.be.instanceOf(ApiError);
    expect((error as ApiError).code).to.equal('invalid_request');
    expect((error as ApiError).status).to.equal(400);
    return (error as ApiError).message;
  }
  throw new Error(`accepted: ${JSON.stringify(body)}`);
}
const refusedQuery = (query: esb.Query | Record<string, unknown>) => refused(query instanceof esb.Query ? wire(query) : { query });

/** The tsquery an advanced filter value means, to compare translations by meaning rather than by spelling. */
const meaning = (advanced: unknown) => toTsquery(parseAdvanced(String(advanced)));

describe('the es_dsl translator (spec 4.4)', () => {
  describe('the body', () => {
    it('translates match_all to no filter and passes the listing options through unchanged', () => {
      const options = { limit: 20, cursor: 'abc', sort: 'updated', fields: ['title'], include: ['company'], description_format: 'text' };
      expect(translated(wire(esb.matchAllQuery(), options))).to.deep.equal(options);
      expect(translated({ query: { match_all: { boost: 1.5 } } })).to.deep.equal({});
    });

    it('answers 400 for a body that is not an object, a missing query and an unknown key', () => {
      expect(refused([])).to.match(/JSON object/);
      expect(refused({ limit: 5 })).to.match(/query is required/);
      expect(refused({ query: { match_all: {} }, size: 10 })).to.match(/Unknown key "size"/);
      expect(refused({ query: { match_all: {} }, country: 'US' })).to.match(/Unknown key "country"/);
    });

    it('answers 400 when query holds no clause, two clauses, or an unsupported one, naming it', () => {
      expect(refused({ query: {} })).to.match(/^query must be an object holding exactly one clause/);
      expect(refused({ query: { match_all: {}, term: { stale: true } } })).to.match(/exactly one clause/);
      expect(refused({ query: 'nurse' })).to.match(/exactly one clause/);
      expect(refusedQuery(esb.wildcardQuery('title', 'nur*'))).to.equal(
        'query.wildcard is not supported; use one of match_all, bool, term, terms, match, match_phrase, range, exists, query_string, simple_query_string.',
      );
      const nested = esb.boolQuery().must([esb.termQuery('stale', false), esb.fuzzyQuery('title', 'nurse')]);
      expect(refusedQuery(nested)).to.match(/^query\.bool\.must\[1\]\.fuzzy is not supported; use one of match_all, bool/);
      expect(refusedQuery(esb.boolQuery().filter(esb.multiMatchQuery(['title', 'description'], 'nurse')))).to.match(
        /^query\.bool\.filter\.multi_match is not supported/,
      );
    });

    it('answers 400 for an unknown field, listing the accepted ones', () => {
      const message = refusedQuery(esb.termQuery('salary', 5));
      expect(message).to.match(/^query\.term\.salary: unknown field; accepted fields: title, description, employer_name, /);
      for (const name of Object.keys(ES_DSL_FIELDS)) expect(message).to.include(name);
    });

    it('answers 400 for a clause a field does not take, saying which it takes', () => {
      expect(refusedQuery(esb.termQuery('title', 'nurse'))).to.equal(
        'query.term.title: term is not accepted on title; title accepts match, match_phrase, query_string, simple_query_string.',
      );
      expect(refusedQuery(esb.rangeQuery('locations.country').gte('A'))).to.match(
        /^query\.range\.locations\.country: range is not accepted on locations\.country; .* accepts term, terms, match\.$/,
      );
      expect(refusedQuery(esb.existsQuery('title'))).to.match(/^query\.exists\.field: exists is not accepted on title/);
      expect(refusedQuery(esb.matchQuery('employer_name', 'acme'))).to.match(
        /match is not accepted on employer_name; employer_name accepts match_phrase/,
      );
    });

    it('describes every field with at least one clause', () => {
      for (const [name, field] of Object.entries(ES_DSL_FIELDS)) expect(acceptedClauses(field), name).to.have.length.above(0);
    });
  });

  describe('bool', () => {
    it('ANDs must and filter clauses, flattening nested bools, and takes a single clause as well as a list', () => {
      const query = esb
        .boolQuery()
        .must(esb.termQuery('work_arrangement', 'remote'))
        .filter([
          esb.boolQuery().must([esb.termQuery('stale', false), esb.boolQuery().filter(esb.termQuery('source_class', 'ats'))]),
          esb.existsQuery('pay'),
        ]);
      expect(filtersOf(query)).to.deep.equal({ work_arrangement: 'remote', stale: false, source_class: 'ats', has_pay: true });
    });

    it('makes should on locations.country a country list that must match, also beside must and filter', () => {
      const query = esb
        .boolQuery()
        .must(esb.matchPhraseQuery('title', 'data engineer'))
        .filter(esb.rangeQuery('job_updated_at').gte('2026-11-01'))
        .should([esb.termQuery('locations.country', 'DE'), esb.matchQuery('locations.country', 'at')]);
      expect(filtersOf(query)).to.deep.equal({ title: 'data engineer', updated_since: '2026-11-01', country: ['AT', 'DE'] });
      expect(
        filtersOf(
          esb
            .boolQuery()
            .should([esb.termQuery('employment_type', 'FULL_TIME'), esb.termQuery('employment_type', 'contract')])
            .minimumShouldMatch(1),
        ),
      ).to.deep.equal({
        employment_type: ['contract', 'full_time'],
      });
    });

    it('keeps the values in common when should lists and terms lists are AND-ed', () => {
      const query = esb
        .boolQuery()
        .filter([
          esb.termsQuery('locations.country', ['US', 'CA', 'MX']),
          esb.boolQuery().should([esb.termQuery('locations.country', 'CA'), esb.termQuery('locations.country', 'US')]),
        ])
        .should([esb.termQuery('locations.country', 'US'), esb.termQuery('locations.country', 'DE')]);
      expect(filtersOf(query)).to.deep.equal({ country: ['US'] });
      const disjoint = esb.boolQuery().must([esb.termQuery('locations.country', 'US'), esb.termQuery('locations.country', 'CA')]);
      expect(refusedQuery(disjoint)).to.match(
        /^query\.bool\.must\[1\]\.term\.locations\.country: no country value is left: \["CA"\] here and \["US"\] at query\.bool\.must\[0\]/,
      );
    });

    it('answers 400 for should on another field, across fields, of other clauses, or with minimum_should_match other than 1', () => {
      expect(
        refusedQuery(esb.boolQuery().should([esb.termQuery('work_arrangement', 'remote'), esb.termQuery('work_arrangement', 'hybrid')])),
      ).to.equal(
        'query.bool.should[0].term.work_arrangement: should is supported only on locations.country, occupation.soc_code or employment_type.',
      );
      expect(
        refusedQuery(esb.boolQuery().should([esb.termQuery('locations.country', 'US'), esb.termQuery('employment_type', 'contract')])),
      ).to.match(/^query\.bool\.should\[1\]\.term\.employment_type: every should clause must be on the same field \(locations\.country/);
      expect(refusedQuery(esb.boolQuery().should(esb.termsQuery('locations.country', ['US', 'CA'])))).to.match(
        /^query\.bool\.should: should takes only term or match clauses/,
      );
      expect(refusedQuery(esb.boolQuery().should([esb.matchQuery('title', 'nurse'), esb.matchQuery('title', 'doctor')]))).to.match(
        /^query\.bool\.should\[0\]\.match\.title: should is supported only on/,
      );
      expect(
        refusedQuery(
          esb
            .boolQuery()
            .should([esb.boolQuery().must(esb.termQuery('locations.country', 'US')), esb.termQuery('locations.country', 'CA')]),
        ),
      ).to.match(/^query\.bool\.should\[0\]: should takes only term or match/);
      const two = esb
        .boolQuery()
        .should([esb.termQuery('locations.country', 'US'), esb.termQuery('locations.country', 'CA')])
        .minimumShouldMatch(2);
      expect(refusedQuery(two)).to.match(/^query\.bool\.minimum_should_match: only 1 is supported/);
      expect(refusedQuery(esb.boolQuery().must(esb.termQuery('stale', true)).minimumShouldMatch(1))).to.match(
        /^query\.bool\.minimum_should_match/,
      );
      expect(refusedQuery({ bool: { should: { term: { 'locations.country': 'US' } }, adjust_pure_negative: true } })).to.match(
        /^query\.bool\.adjust_pure_negative is not supported/,
      );
    });

    it('answers 400 for a bool or match_all inside must_not', () => {
      expect(refusedQuery(esb.boolQuery().mustNot(esb.boolQuery().must(esb.termQuery('stale', true))))).to.match(
        /^query\.bool\.must_not\.bool: a bool inside must_not is not supported/,
      );
      expect(refusedQuery(esb.boolQuery().mustNot(esb.matchAllQuery()))).to.equal(
        'query.bool.must_not.match_all: must_not match_all would match no job.',
      );
    });
  });

  describe('keyword fields', () => {
    it('maps term, terms and match on each keyword field to its filter, normalised as the filter reads it', () => {
      const company = '0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f';
      const query = esb
        .boolQuery()
        .filter([
          esb.termQuery('company_id', company),
          esb.termQuery('locations.state', 'tx'),
          esb.termQuery('locations.msa.cbsa_code', '12420'),
          esb.matchQuery('work_arrangement', 'hybrid'),
          esb.termsQuery('employment_type', [' Full_Time', 'PART_TIME']),
          esb.termsQuery('currentness', ['current', 'uncertain']),
          esb.termQuery('stale', false),
          esb.termQuery('source', 'Greenhouse'),
          esb.termQuery('source_type', 'ATS_API'),
          esb.termQuery('source_class', 'employer-site'),
          esb.termQuery('pay.currency', 'usd'),
          esb.termsQuery('locations.country', ['us', 'ca']),
          esb.termsQuery('occupation.soc_code', ['29-1141', '15-1252']),
          esb.termQuery('annual_pay.source', 'description'),
        ]);
      expect(filtersOf(query)).to.deep.equal({
        soc_code: ['15-1252', '29-1141'],
        pay_source: ['description'],
        company_id: company,
        state: 'TX',
        msa: '12420',
        work_arrangement: 'hybrid',
        employment_type: ['full_time', 'part_time'],
        currentness: ['current', 'uncertain'],
        stale: false,
        source: 'greenhouse',
        source_type: 'ats_api',
        source_class: 'employer-site',
        pay_currency: 'USD',
        country: ['CA', 'US'],
      });
    });

    it('adds up AND-ed skills clauses into one all-of skills filter, spelt as the vocabulary spells them', () => {
      const query = esb
        .boolQuery()
        .must([esb.termQuery('skills', 'python'), esb.matchQuery('skills', 'SQL'), esb.termsQuery('skills', ['Python'])]);
      expect(filtersOf(query)).to.deep.equal({ skills: ['Python', 'SQL'] });
      expect(refusedQuery(esb.termsQuery('skills', ['Python', 'SQL']))).to.equal(
        'query.terms.skills: skills takes one value per clause; AND-ed term clauses ask for every one.',
      );
      expect(refusedQuery(esb.termQuery('skills', 'Pyhton'))).to.equal('query.term.skills: "Pyhton" is not a skill of the vocabulary.');
      expect(refusedQuery(esb.boolQuery().mustNot(esb.termQuery('skills', 'Python')))).to.match(/must_not is not supported on skills/);
    });

    it('maps posting reality: listed_by_employer, whole-number ranges of reposts and days_open, last_verified_at', () => {
      const query = esb
        .boolQuery()
        .filter([
          esb.termQuery('listed_by_employer', false),
          esb.rangeQuery('reposts').gt(0),
          esb.rangeQuery('days_open').gte(7).lt(31),
          esb.rangeQuery('last_verified_at').gte('2026-11-20'),
        ]);
      expect(filtersOf(query)).to.deep.equal({
        listed_by_employer: false,
        reposts_min: 1,
        days_open_min: 7,
        days_open_max: 30,
        verified_since: '2026-11-20',
      });
      expect(refusedQuery(esb.rangeQuery('reposts').lte(2))).to.equal('query.range.reposts.lte: reposts takes only gte or gt.');
      expect(refusedQuery(esb.rangeQuery('days_open').gte(1.5))).to.equal(
        'query.range.days_open.gte must be a whole number from 0 to 100000.',
      );
      expect(refusedQuery(esb.rangeQuery('days_open').lt(0))).to.equal('query.range.days_open.lt: no days_open is below 0.');
    });

    it('takes the long forms of term and match, and the same value twice', () => {
      expect(filtersOf({ term: { work_arrangement: { value: 'remote', boost: 2, _name: 'wa' } } })).to.deep.equal({
        work_arrangement: 'remote',
      });
      expect(filtersOf({ match: { source: { query: 'lever' } } })).to.deep.equal({ source: 'lever' });
      expect(filtersOf(esb.boolQuery().must([esb.termQuery('source', 'lever'), esb.termQuery('source', 'LEVER')]))).to.deep.equal({
        source: 'lever',
      });
      expect(filtersOf(esb.termQuery('stale', 'true'))).to.deep.equal({ stale: true });
    });

    it('answers 400 for two different values of a one-value filter, naming both clauses', () => {
      const query = esb.boolQuery().must([esb.termQuery('work_arrangement', 'remote'), esb.termQuery('work_arrangement', 'hybrid')]);
      expect(refusedQuery(query)).to.equal(
        'query.bool.must[1].term.work_arrangement: work_arrangement takes one value: "hybrid" here and "remote" at query.bool.must[0].term.work_arrangement cannot both be sent.',
      );
      expect(refusedQuery(esb.termsQuery('source', ['lever', 'greenhouse']))).to.equal('query.terms.source: source takes one value.');
      expect(refusedQuery(esb.boolQuery().filter([esb.termQuery('stale', true), esb.termQuery('stale', false)]))).to.match(
        /stale takes one value: false here and true at/,
      );
    });

    it('answers 400 for a value the filter does not take', () => {
      expect(refusedQuery(esb.termQuery('locations.country', 'USA'))).to.equal(
        'query.term.locations.country: "USA" is not a two-letter ISO country code.',
      );
      expect(refusedQuery(esb.termQuery('company_id', '0B6F3C1E-8D2A-4C5B-9E7F-1A2B3C4D5E6F'))).to.match(/is not a lowercase UUID/);
      expect(refusedQuery(esb.termQuery('locations.msa.cbsa_code', 12420))).to.match(/12420 is not a 5-digit CBSA code/);
      expect(refusedQuery(esb.termQuery('work_arrangement', 'onsite'))).to.match(/"onsite" is not one of remote, hybrid, in_person/);
      expect(refusedQuery(esb.termQuery('employment_type', 'full,part'))).to.match(/without commas/);
      expect(refusedQuery(esb.termQuery('stale', 'yes'))).to.match(/stale takes one value, true or false/);
      expect(
        refusedQuery(esb.termsQuery('locations.country', ['AA', 'BB', 'CC', 'DD', 'EE', 'FF', 'GG', 'HH', 'II', 'JJ', 'KK'])),
      ).to.match(/country takes up to 10 values/);
      expect(refusedQuery(esb.termsQuery('locations.country', []))).to.match(/must be a non-empty array/);
      expect(refusedQuery({ terms: { 'locations.country': { index: 'x', id: '1', path: 'c' } } })).to.match(/must be a non-empty array/);
      expect(refusedQuery(esb.termQuery('locations.country', 'US').caseInsensitive(true))).to.match(
        /^query\.term\.locations\.country\.case_insensitive is not supported/,
      );
      expect(refusedQuery({ term: { stale: true, source: 'lever' } })).to.equal('query.term must name exactly one field.');
    });

    it('negates currentness and stale exactly, and answers 400 for must_not on other keyword fields', () => {
      expect(filtersOf(esb.boolQuery().mustNot(esb.termQuery('currentness', 'not_current')))).to.deep.equal({
        currentness: ['current', 'uncertain'],
      });
      expect(filtersOf(esb.boolQuery().mustNot(esb.termQuery('stale', true)))).to.deep.equal({ stale: false });
      expect(refusedQuery(esb.boolQuery().mustNot(esb.termsQuery('currentness', ['current', 'uncertain', 'not_current'])))).to.match(
        /must_not leaves no currentness value/,
      );
      expect(refusedQuery(esb.boolQuery().mustNot(esb.termQuery('source', 'indeed')))).to.equal(
        'query.bool.must_not.term.source: must_not is not supported on source.',
      );
      expect(refusedQuery(esb.boolQuery().mustNot(esb.termQuery('locations.country', 'US')))).to.match(
        /must_not is not supported on locations\.country/,
      );
    });
  });

  describe('dates and pay', () => {
    it('maps range on each date to its *_since / *_until filters, gt as gte and lt as lte', () => {
      const query = esb
        .boolQuery()
        .filter([
          esb.rangeQuery('posted_at').gt('2026-10-01').lt('2026-10-31'),
          esb.rangeQuery('first_seen_at').gte('2026-09-01T00:00:00Z'),
          esb.rangeQuery('job_updated_at').lte('2026-11-20T06:00:00+01:00'),
          esb.rangeQuery('curated_at').gte('2026-11-01'),
          esb.rangeQuery('last_fetch_at').gte('2026-11-19'),
        ]);
      const out = filtersOf(query);
      expect(out).to.deep.equal({
        posted_since: '2026-10-01',
        posted_until: '2026-10-31',
        first_seen_since: '2026-09-01T00:00:00Z',
        updated_until: '2026-11-20T06:00:00+01:00',
        curated_since: '2026-11-01',
        last_fetch_since: '2026-11-19',
      });
      // A plain date is the whole UTC day, as the filters read it: gt 2026-10-01 still takes that day.
      const filters = readFilters(out, 'body');
      expect([filters.posted_since, filters.posted_until]).to.deep.equal(['2026-10-01T00:00:00.000Z', '2026-10-31T23:59:59.999Z']);
      expect(filtersOf(esb.rangeQuery('job_first_seen_at').gte('2026-09-02'))).to.deep.equal({ first_seen_since: '2026-09-02' });
    });

    it('keeps the narrower bound when several ranges on one date are AND-ed', () => {
      const query = esb
        .boolQuery()
        .filter([
          esb.rangeQuery('job_updated_at').gte('2026-11-01').lte('2026-11-30'),
          esb.rangeQuery('job_updated_at').gte('2026-11-10T12:00:00Z'),
          esb.rangeQuery('job_updated_at').lt('2026-12-31'),
        ]);
      expect(filtersOf(query)).to.deep.equal({ updated_since: '2026-11-10T12:00:00Z', updated_until: '2026-11-30' });
    });

    it('answers 400 for date math, epoch numbers, time_zone, format, two lower bounds, no bound, and must_not range', () => {
      expect(refusedQuery(esb.rangeQuery('posted_at').gte('now-7d'))).to.equal(
        'query.range.posted_at.gte must be a date (YYYY-MM-DD) or an RFC 3339 date-time with a zone; date math such as now-7d is not supported.',
      );
      expect(refusedQuery(esb.rangeQuery('posted_at').gte(1762000000000))).to.match(/posted_at\.gte must be a date/);
      expect(refusedQuery(esb.rangeQuery('posted_at').gte('2026-11-01').timeZone('+01:00'))).to.match(
        /^query\.range\.posted_at\.time_zone is not supported/,
      );
      expect(refusedQuery(esb.rangeQuery('posted_at').gte('01/11/2026').format('dd/MM/yyyy'))).to.match(
        /^query\.range\.posted_at\.format is not supported/,
      );
      expect(refusedQuery({ range: { posted_at: { gte: '2026-11-01', gt: '2026-11-02' } } })).to.equal(
        'query.range.posted_at: send gte or gt, not both.',
      );
      expect(refusedQuery({ range: { posted_at: {} } })).to.match(/a range needs gte, gt, lte or lt/);
      expect(refusedQuery({ range: { posted_at: { from: '2026-11-01' } } })).to.match(/posted_at\.from is not supported/);
      expect(refusedQuery(esb.boolQuery().mustNot(esb.rangeQuery('posted_at').gte('2026-11-01')))).to.match(
        /must_not range is not supported/,
      );
    });

    it('maps a lower bound of pay.floor to pay_min, an upper bound of pay.ceiling to pay_max, and pay.currency', () => {
      const query = esb
        .boolQuery()
        .filter([esb.rangeQuery('pay.floor').gt(80000), esb.rangeQuery('pay.ceiling').lte(150000.5), esb.termQuery('pay.currency', 'USD')]);
      expect(filtersOf(query)).to.deep.equal({ pay_min: 80000, pay_max: 150000.5, pay_currency: 'USD' });
      expect(
        filtersOf(esb.boolQuery().filter([esb.rangeQuery('pay.floor').gte(50000), esb.rangeQuery('pay.floor').gte(70000)])),
      ).to.deep.equal({ pay_min: 70000 });
    });

    it('answers 400 for the side of a pay range no filter means, a ceiling below the floor, and bad amounts', () => {
      expect(refusedQuery(esb.rangeQuery('pay.floor').lte(100000))).to.equal(
        'query.range.pay.floor.lte: pay.floor takes only gte or gt (pay_min: the yearly pay floor is at least it).',
      );
      expect(refusedQuery(esb.rangeQuery('pay.ceiling').gte(100000))).to.match(
        /pay\.ceiling takes only lte or lt \(pay_max: the yearly pay ceiling is at most it\)/,
      );
      const inverted = esb.boolQuery().filter([esb.rangeQuery('pay.floor').gte(90000), esb.rangeQuery('pay.ceiling').lte(80000)]);
      expect(refusedQuery(inverted)).to.match(
        /^query\.bool\.filter\[1\]\.range\.pay\.ceiling: pay\.ceiling 80000 is below pay\.floor 90000/,
      );
      expect(refusedQuery(esb.rangeQuery('pay.floor').gte(10.123))).to.match(/at most two decimals/);
      expect(refusedQuery(esb.rangeQuery('pay.floor').gte('50000'))).to.match(/must be a number/);
      expect(refusedQuery(esb.termQuery('pay.currency', 'dollars'))).to.match(/not a three-letter ISO 4217 code/);
    });
  });

  describe('exists', () => {
    it('maps exists to the has_* filters and must_not exists to false', () => {
      const query = esb
        .boolQuery()
        .filter([esb.existsQuery('description'), esb.existsQuery('locations'), esb.existsQuery('pay')])
        .mustNot([esb.existsQuery('posting_url'), esb.existsQuery('application_url'), esb.existsQuery('company_id')]);
      expect(filtersOf(query)).to.deep.equal({
        has_description: true,
        has_location: true,
        has_pay: true,
        has_posting_url: false,
        has_application_url: false,
        company_linked: false,
      });
    });

    it('answers 400 for exists and must_not exists on one field, and for a missing field name', () => {
      const both = esb.boolQuery().filter(esb.existsQuery('pay')).mustNot(esb.existsQuery('pay'));
      expect(refusedQuery(both)).to.match(
        /^query\.bool\.must_not\.exists: has_pay takes one value: false here and true at query\.bool\.filter\.exists/,
      );
      expect(refusedQuery({ exists: {} })).to.equal('query.exists.field must be a field name.');
    });
  });

  describe('text: match and match_phrase', () => {
    it('maps match on title to title_advanced with the words OR-ed, or AND-ed with operator and', () => {
      expect(filtersOf(esb.matchQuery('title', 'nurse  practitioner'))).to.deep.equal({ title_advanced: 'nurse | practitioner' });
      expect(filtersOf(esb.matchQuery('title', 'nurse practitioner').operator('and'))).to.deep.equal({
        title_advanced: 'nurse & practitioner',
      });
      expect(filtersOf(esb.matchQuery('description', 'python sql').operator('or'))).to.deep.equal({ description_advanced: 'python | sql' });
    });

    it('quotes words the Boolean syntax would read as operators, so that they stay words', () => {
      const out = filtersOf(esb.matchQuery('title', 'R&D lead AND c++ (remote)'));
      expect(out.title_advanced).to.equal('"R&D" | lead | "AND" | c++ | "(remote)"');
      expect(meaning(out.title_advanced)).to.equal(meaning('"r d" | lead | c | remote'));
    });

    it('maps the first match_phrase on title to title, and phrases after it or on description to quoted phrases', () => {
      expect(filtersOf(esb.matchPhraseQuery('title', 'data engineer'))).to.deep.equal({ title: 'data engineer' });
      const two = esb.boolQuery().must([esb.matchPhraseQuery('title', 'data engineer'), esb.matchPhraseQuery('title', 'senior staff')]);
      expect(filtersOf(two)).to.deep.equal({ title: 'data engineer', title_advanced: '"senior staff"' });
      expect(filtersOf(esb.matchPhraseQuery('description', 'health insurance'))).to.deep.equal({
        description_advanced: '"health insurance"',
      });
      expect(filtersOf({ match_phrase: { description: { query: 'say "hi" there', slop: 0 } } })).to.deep.equal({
        description_advanced: '"say  hi  there"',
      });
    });

    it('ANDs the text clauses of one field, negating those of must_not', () => {
      const query = esb
        .boolQuery()
        .must([esb.matchQuery('title', 'nurse'), esb.matchQuery('title', 'registered licensed')])
        .mustNot([esb.matchQuery('title', 'travel'), esb.matchPhraseQuery('title', 'night shift')]);
      expect(filtersOf(query)).to.deep.equal({ title_advanced: 'nurse & (registered | licensed) & !travel & !"night shift"' });
    });

    it('maps match_phrase on employer_name and locations.city to the contains filters company and city', () => {
      expect(
        filtersOf(
          esb
            .boolQuery()
            .filter([esb.matchPhraseQuery('employer_name', 'Acme Robotics'), esb.matchPhraseQuery('locations.city', 'San Francisco')]),
        ),
      ).to.deep.equal({
        company: 'Acme Robotics',
        city: 'San Francisco',
      });
      expect(refusedQuery(esb.boolQuery().mustNot(esb.matchPhraseQuery('employer_name', 'Acme')))).to.match(
        /must_not is not supported on employer_name/,
      );
    });

    it('answers 400 for options that change the matches, and for empty or long texts', () => {
      expect(refusedQuery(esb.matchQuery('title', 'nurse').fuzziness('AUTO'))).to.equal(
        'query.match.title.fuzziness is not supported; accepted here: query, operator, boost, _name.',
      );
      expect(refusedQuery(esb.matchQuery('title', 'nurse').minimumShouldMatch(2))).to.match(/minimum_should_match is not supported/);
      expect(refusedQuery(esb.matchQuery('title', 'nurse').analyzer('whitespace'))).to.match(/analyzer is not supported/);
      expect(refusedQuery({ match: { title: { query: 'nurse', operator: 'xor' } } })).to.equal(
        'query.match.title.operator must be "or" or "and".',
      );
      expect(refusedQuery(esb.matchPhraseQuery('title', 'data engineer').slop(2))).to.match(/slop: only 0 is supported/);
      expect(refusedQuery(esb.matchQuery('title', '   '))).to.match(/the query must be a text of 1 to 200 characters/);
      expect(refusedQuery(esb.matchQuery('title', 'x'.repeat(201)))).to.match(/1 to 200 characters/);
      const words = Array.from(
        { length: 50 },
        (_, i) => `${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`,
      ).join(' ');
      expect(refusedQuery(esb.matchQuery('title', words))).to.match(/title_advanced filter of \d+ characters; filters take at most 200/);
    });

    it('answers 400 when the clauses of a field keep no positive search term', () => {
      expect(refusedQuery(esb.boolQuery().mustNot(esb.matchQuery('title', 'intern')))).to.match(
        /^query\.bool\.must_not\.match\.title: title_advanced "!intern" needs a positive search term/,
      );
      expect(refusedQuery(esb.matchQuery('title', 'the of'))).to.match(/needs a positive search term/);
    });
  });

  describe('text: query_string', () => {
    const qs = (query: string, operator?: 'AND' | 'OR', fields = ['title']) => {
      const q = esb.queryStringQuery(query).fields(fields);
      return filtersOf(operator ? q.defaultOperator(operator) : q);
    };

    it('translates AND, OR, NOT, && || !, + and -, groups, phrases and trailing-* prefixes', () => {
      expect(qs('(nurse* OR "registered nurse") AND NOT travel')).to.deep.equal({
        title_advanced: '(nurse:* | "registered nurse") & !travel',
      });
      expect(qs('nurse && (icu || er) && !travel')).to.deep.equal({ title_advanced: 'nurse & (icu | er) & !travel' });
      expect(qs('nurse manager', 'AND')).to.deep.equal({ title_advanced: 'nurse & manager' });
      expect(qs('ORACLE developer')).to.deep.equal({ title_advanced: 'ORACLE | developer' });
      expect(qs('data-engineer c++')).to.deep.equal({ title_advanced: 'data-engineer | c++' });
    });

    it('follows Lucene: optional clauses beside required ones only score, OR NOT is AND NOT, and a group of negations is "all but"', () => {
      expect(qs('+nurse travel -night')).to.deep.equal({ title_advanced: 'nurse & !night' });
      expect(qs('nurse OR manager AND remote')).to.deep.equal({ title_advanced: 'manager & remote' });
      expect(qs('nurse AND manager OR remote')).to.deep.equal({ title_advanced: 'nurse & manager' });
      // With default_operator AND, "a AND b OR c" is +a b c: OR makes b optional.
      expect(qs('nurse AND manager OR remote', 'AND')).to.deep.equal({ title_advanced: 'nurse' });
      expect(qs('nurse OR NOT travel')).to.deep.equal({ title_advanced: 'nurse & !travel' });
      expect(qs('nurse AND (-travel -night)')).to.deep.equal({ title_advanced: 'nurse & (!travel & !night)' });
      expect(qs('nurse', undefined, ['description'])).to.deep.equal({ description_advanced: 'nurse' });
      expect(filtersOf({ query_string: { query: 'nurse manager', default_field: 'title', default_operator: 'and' } })).to.deep.equal({
        title_advanced: 'nurse & manager',
      });
    });

    it('maps one word or one quoted phrase on fields [title, description] to q', () => {
      expect(qs('"data engineer"', undefined, ['title', 'description'])).to.deep.equal({ q: 'data engineer' });
      expect(qs('nurse', undefined, ['description', 'title'])).to.deep.equal({ q: 'nurse' });
      expect(refusedQuery(esb.queryStringQuery('data engineer').fields(['title', 'description']))).to.match(
        /^query\.query_string: on both title and description only one word or one quoted phrase \(as q\), not negated, is supported\.$/,
      );
      expect(refusedQuery(esb.boolQuery().mustNot(esb.queryStringQuery('nurse').fields(['title', 'description'])))).to.match(/not negated/);
    });

    it('answers 400 without fields, on other fields, or with options that change the matches', () => {
      expect(refusedQuery(esb.queryStringQuery('nurse'))).to.match(
        /^query\.query_string\.fields must be \["title"\], \["description"\] or \["title", "description"\]/,
      );
      expect(refusedQuery(esb.queryStringQuery('nurse').fields(['title', 'employer_name']))).to.match(/fields must be/);
      expect(refusedQuery(esb.queryStringQuery('nurse').fields(['title^3']))).to.match(/fields must be/);
      expect(refusedQuery(esb.queryStringQuery('nurse').fields(['title']).fuzziness('AUTO'))).to.match(
        /query_string\.fuzziness is not supported/,
      );
      expect(refusedQuery(esb.queryStringQuery('nurse').fields(['title']).analyzeWildcard(true))).to.match(
        /analyze_wildcard is not supported/,
      );
      expect(refusedQuery(esb.queryStringQuery('nurse').fields(['title']).defaultOperator('OR').minimumShouldMatch(2))).to.match(
        /minimum_should_match is not supported/,
      );
      expect(refusedQuery({ query_string: { query: 'nurse', fields: ['title'], default_operator: 'XOR' } })).to.match(
        /default_operator must be OR or AND/,
      );
    });

    it('answers 400 for syntax the filters cannot express, naming the character', () => {
      const cases: [string, RegExp][] = [
        ['title:nurse', /a field name \(":" at character 6\) is not supported/],
        ['nurse^2', /a boost \("\^" at character 6\)/],
        ['nurse~1', /fuzziness or proximity \("~" at character 6\)/],
        ['"registered nurse"~3', /fuzziness or proximity \("~" at character 19\)/],
        ['[a TO b]', /a range \("\[" at character 1\)/],
        ['/nur.e/', /a regular expression/],
        ['nurse\\-manager', /an escape/],
        ['nu*se', /the wildcard at character 1 is not supported; only a trailing \* \(prefix\) is/],
        ['nurs?', /the wildcard at character 1/],
        ['*', /the wildcard/],
        ['r&d*', /the prefix "r&d\*" at character 1 holds characters a prefix search cannot take/],
        ['"registered nurse', /the quote at character 1 is not closed/],
        ['(nurse OR doctor', /the parenthesis is not closed at character 1/],
        ['nurse) OR doctor', /the parenthesis has no opening one at character 6/],
        ['AND nurse', /operator AND has nothing on its left at character 1/],
        ['nurse OR', /a term is missing at character 9/],
        ['+ -nurse', /a second \+ - ! or NOT at character 3/],
        ['()', /a term is missing at character 2/],
        ['NOT travel', /title_advanced "!travel" needs a positive search term/],
        [`${'('.repeat(31)}nurse${')'.repeat(31)}`, /nests more than 30 levels/],
      ];
      for (const [query, message] of cases) expect(refusedQuery(esb.queryStringQuery(query).fields(['title'])), query).to.match(message);
    });
  });

  describe('text: simple_query_string', () => {
    const sqs = (query: string, operator?: 'AND' | 'OR', fields = ['title']) => {
      const q = esb.simpleQueryStringQuery(query).fields(fields);
      return filtersOf(operator ? q.defaultOperator(operator) : q);
    };

    it('folds + and | left without precedence, the first explicit operator winning, blanks meaning default_operator', () => {
      expect(sqs('nurse | doctor + remote')).to.deep.equal({ title_advanced: '(nurse | doctor) & remote' });
      expect(sqs('nurse +| doctor')).to.deep.equal({ title_advanced: 'nurse & doctor' });
      expect(sqs('nurse doctor remote', 'AND')).to.deep.equal({ title_advanced: 'nurse & doctor & remote' });
      expect(sqs('nurse (doctor | surgeon)', 'AND')).to.deep.equal({ title_advanced: 'nurse & (doctor | surgeon)' });
      expect(sqs('"registered nurse" + manag*')).to.deep.equal({ title_advanced: '"registered nurse" & manag:*' });
    });

    it('negates the next term with -, cancels --, and keeps - inside words literal', () => {
      expect(sqs('nurse -travel', 'AND')).to.deep.equal({ title_advanced: 'nurse & !travel' });
      expect(sqs('nurse --travel')).to.deep.equal({ title_advanced: 'nurse | travel' });
      expect(sqs('nurse - travel')).to.deep.equal({ title_advanced: 'nurse | travel' });
      expect(sqs('data-engineer')).to.deep.equal({ title_advanced: 'data-engineer' });
      expect(sqs('nurse', undefined, ['title', 'description'])).to.deep.equal({ q: 'nurse' });
    });

    it('answers 400 for a negation on one side of OR, fuzziness, escapes, wildcards, unbalanced groups and other options', () => {
      expect(refusedQuery(esb.simpleQueryStringQuery('nurse -travel').fields(['title']))).to.match(
        /^query\.simple_query_string: title_advanced "nurse \| !travel" needs a positive search term/,
      );
      expect(refusedQuery(esb.simpleQueryStringQuery('nurse~2').fields(['title']))).to.match(/fuzziness \(~\) and escapes/);
      expect(refusedQuery(esb.simpleQueryStringQuery('"a b"~2').fields(['title']))).to.match(/proximity \(~\)/);
      expect(refusedQuery(esb.simpleQueryStringQuery('nu*se').fields(['title']))).to.match(/wildcard/);
      expect(refusedQuery(esb.simpleQueryStringQuery('(nurse | doctor').fields(['title']))).to.match(
        /the parenthesis at character 1 is not closed/,
      );
      expect(refusedQuery(esb.simpleQueryStringQuery('nurse)').fields(['title']))).to.match(/has no opening one/);
      expect(refusedQuery(esb.simpleQueryStringQuery('nurse ()').fields(['title']))).to.match(/are empty/);
      expect(refusedQuery(esb.simpleQueryStringQuery('""').fields(['title']))).to.match(/holds no phrase/);
      expect(refusedQuery(esb.simpleQueryStringQuery('-').fields(['title']))).to.match(/holds no term/);
      expect(refusedQuery(esb.simpleQueryStringQuery('nurse').fields(['title']).flags('OR|AND'))).to.match(/flags is not supported/);
      expect(refusedQuery({ simple_query_string: { query: 'nurse', default_field: 'title' } })).to.match(/default_field is not supported/);
    });
  });

  describe('boost and _name', () => {
    it('accepts and drops them on every clause: they change scores and labels, never which jobs match', () => {
      const query = esb
        .boolQuery()
        .boost(2)
        .must([esb.matchQuery('title', 'nurse').boost(3), esb.matchPhraseQuery('employer_name', 'Acme').boost(0)])
        .filter([
          esb.termQuery('stale', false).boost(1.5),
          esb.termsQuery('locations.country', ['US']).boost(2),
          esb.rangeQuery('posted_at').gte('2026-11-01').boost(2),
          esb.existsQuery('pay').boost(2),
        ])
        .should([esb.termQuery('employment_type', 'contract').boost(4).name('contract')])
        .name('outer');
      const plain = esb
        .boolQuery()
        .must([esb.matchQuery('title', 'nurse'), esb.matchPhraseQuery('employer_name', 'Acme')])
        .filter([
          esb.termQuery('stale', false),
          esb.termsQuery('locations.country', ['US']),
          esb.rangeQuery('posted_at').gte('2026-11-01'),
          esb.existsQuery('pay'),
        ])
        .should([esb.termQuery('employment_type', 'contract')]);
      expect(filtersOf(query)).to.deep.equal(filtersOf(plain));
      expect(filtersOf(esb.queryStringQuery('nurse').fields(['title']).boost(2))).to.deep.equal({ title_advanced: 'nurse' });
    });

    it('answers 400 for a negative or non-numeric boost and a non-string _name', () => {
      expect(refusedQuery({ term: { stale: { value: true, boost: -1 } } })).to.equal(
        'query.term.stale.boost must be a non-negative number.',
      );
      expect(refusedQuery({ match_all: { boost: 'high' } })).to.equal('query.match_all.boost must be a non-negative number.');
      expect(refusedQuery({ exists: { field: 'pay', _name: 5 } })).to.equal('query.exists._name must be a string.');
    });
  });
});
