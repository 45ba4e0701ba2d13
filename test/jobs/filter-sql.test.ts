// The filter table's reading and SQL, without a catalog: what readFilters keeps and what condition
// filterCondition writes (the answers themselves are checked against an oracle in test/search).

import { expect } from 'chai';
import { filterCondition } from '../../src/jobs/filter-sql.js';
import { readFilters } from '../../src/jobs/filters.js';
import type { Codes } from '../../src/jobs/snapshot.js';
import type { ApiError } from '../../src/errors.js';

const codes: Codes = new Map([
  [
    'source',
    new Map([
      ['greenhouse', 0],
      ['lever', 1],
      ['rare', 70],
    ]),
  ],
  [
    'employment_type',
    new Map([
      ['full_time', 3],
      ['contract', 5],
    ]),
  ],
  [
    'country',
    new Map([
      ['DE', 2],
      ['US', 0],
    ]),
  ],
  [
    'subdivision',
    new Map([
      ['US-NY', 64],
      ['DE-BY', 1],
    ]),
  ],
]);

const condition = (query: Record<string, string>) => filterCondition(readFilters(query, 'query'), 't_', codes);
const message = (query: Record<string, unknown>, from: 'query' | 'body' = 'query') => {
  try {
    readFilters(query, from);
  } catch (error) {
    return (error as ApiError).message;
  }
  throw new Error('read without an error');
};

describe('job filters', () => {
  describe('reading', () => {
    it('keeps only current jobs unless told, and reads active as a shorthand for currentness', () => {
      expect(readFilters({}, 'query')).to.deep.equal({ currentness: ['current'] });
      expect(readFilters({ active: 'false' }, 'query')).to.deep.equal({ currentness: ['not_current'] });
      expect(message({ active: 'true', currentness: 'current' })).to.equal(
        'Send currentness or active, not both: active is a shorthand for currentness.',
      );
    });

    it('resolves aliases, refusing a filter sent under both names', () => {
      expect(readFilters({ remote_type: 'remote', published_since: '2026-11-01' }, 'query')).to.deep.include({
        work_arrangement: 'remote',
        posted_since: '2026-11-01T00:00:00.000Z',
      });
      expect(message({ remote_type: 'remote', work_arrangement: 'hybrid' })).to.equal(
        'Send work_arrangement or remote_type, not both: remote_type is an alias of work_arrangement.',
      );
      expect(message({ published_since: 'yesterday' })).to.match(/^published_since must be a date/);
    });

    it('normalises lists (sorted, unique, case) and drops an empty exclude_source', () => {
      expect(readFilters({ country: 'us,de,US', employment_type: ' Full_Time ,contract', exclude_source: '' }, 'query')).to.deep.equal({
        currentness: ['current'],
        country: ['DE', 'US'],
        employment_type: ['contract', 'full_time'],
      });
      expect(readFilters({ country: ['de', 'at'] }, 'body').country).to.deep.equal(['AT', 'DE']);
      expect(message({ country: ['de'] })).to.equal('country must be a string.');
    });

    it('refuses a pay range whose top is below its floor', () => {
      expect(message({ pay_min: '90000', pay_max: '50000' })).to.equal('pay_max (50000) must not be below pay_min (90000).');
    });
  });

  describe('SQL', () => {
    it('answers one coded posting condition by the job mask alone, and binds only what it uses', () => {
      const { sql, params } = condition({ source: 'Lever' });
      expect(sql).to.equal('j.currentness IN (0) AND (j.source_mask & $v0) <> 0');
      expect(params).to.deep.equal({ v0: 2n });
    });

    it('joins the postings when two posting conditions must hold on one posting, keeping the masks', () => {
      const { sql, params } = condition({ source: 'greenhouse', employment_type: 'contract' });
      expect(sql).to.equal(
        'j.currentness IN (0) AND (j.source_mask & $v0) <> 0 AND (j.employment_mask & $v1) <> 0 AND j.doc IN (SELECT p.doc FROM t_postings p WHERE p.source = $v2 AND p.employment_type = $v3)',
      );
      expect(params).to.deep.equal({ v0: 1n, v1: 32n, v2: 'greenhouse', v3: 'contract' });
    });

    it('joins when a value has no bit in the mask', () => {
      expect(condition({ source: 'rare' }).sql).to.equal(
        'j.currentness IN (0) AND j.doc IN (SELECT p.doc FROM t_postings p WHERE p.source = $v0)',
      );
    });

    it('reads a state in the countries sent (a U.S. state alone), the country test being the state test', () => {
      expect(condition({ state: 'by', country: 'de' }).sql).to.equal('j.currentness IN (0) AND (j.subdivision_mask0 & $v0) <> 0');
      const { sql, params } = condition({ state: 'ny', city: 'Albany' });
      expect(sql).to.equal(
        'j.currentness IN (0) AND (j.subdivision_mask1 & $v0) <> 0 AND j.doc IN (SELECT l.doc FROM t_locations l WHERE contains(l.city, $v1) AND l.state = $v2 AND l.country IN ($v3))',
      );
      expect(params).to.deep.equal({ v0: 4n, v1: 'albany', v2: 'NY', v3: 'US' });
    });

    it('writes a value nothing has as false, and job conditions on the job row', () => {
      expect(condition({ country: 'FR', stale: 'true', company: 'ab' }).sql).to.equal(
        "j.currentness IN (0) AND (j.employer_lc = $v0 OR split_part(j.employer_lc, ' ', 1) = $v1) AND j.stale = $v2 AND false",
      );
    });
  });
});
