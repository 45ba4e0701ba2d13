// Impact-ordered lists (src/jobs/ranked-lists.ts) are a faster way to the same answer: every page
// of a search for common words, and every count, must equal what the general path (score every
// match, keep the best) returns for the same request. "Common" is lowered so that a 2,000-job
// generated corpus has many common words.

import { expect } from 'chai';
import { limits } from '../../src/jobs/ranked-lists.js';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';

interface Page {
  data: { job_id: string }[];
  next_cursor: string | null;
}

/** Jobs a page: every page boundary is compared, and the walks stay short enough to run 200 searches. */
const PAGE = 100;

describe('impact-ordered lists', function () {
  this.timeout(180_000);
  let app: TestApp;
  let key: string;
  const saved = { ...limits };

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 2000, seed: 11 });
    // Pages through every match many times: the largest plan's records.
    ({ key } = await app.account({ plan: 'paid-500k' }));
    limits.commonWordDocs = 100;
  });

  after(async () => {
    Object.assign(limits, saved);
    await app?.close();
  });

  /** Every page of a search, as job ids, with the fast path on or off. */
  async function allPages(query: string, impactOrdered: boolean): Promise<string[][]> {
    limits.impactOrdered = impactOrdered;
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const r: { status: number; body: Page } = await app.api.get<Page>(
        `/v1/jobs?${query}&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key },
      );
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      pages.push(r.body.data.map((j) => j.job_id));
      cursor = r.body.next_cursor;
    } while (cursor !== null && pages.length < 200);
    return pages;
  }

  async function count(query: string, impactOrdered: boolean): Promise<number> {
    limits.impactOrdered = impactOrdered;
    const r = await app.api.get<{ count: number }>(`/v1/jobs/count?${query}`, { key });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body.count;
  }

  const WORDS = ['experience', 'team', 'engineer', 'support', 'nurse', 'sales'];
  const FILTERS = ['', '&country=US', '&work_arrangement=remote&currentness=current,uncertain', '&employment_type=part-time'];

  it('gives every page of a one-word search (q, title, description) as scoring every match does', async () => {
    let common = 0;
    for (const word of WORDS) {
      for (const name of ['q', 'title', 'description']) {
        for (const filter of FILTERS) {
          const query = `${name}=${word}${filter}`;
          const fast = await allPages(query, true);
          expect(fast, query).to.deep.equal(await allPages(query, false));
          expect(await count(query, true), query).to.equal(await count(query, false));
          if (fast.flat().length >= limits.commonWordDocs) common++;
        }
      }
    }
    // The lists were really walked: many of these searches are of common words.
    expect(common).to.be.greaterThan(20);
  });

  it('gives every page of a several-word description search as scoring every match does', async () => {
    let many = 0;
    for (const [a, b] of [
      ['experience', 'team'],
      ['work', 'support'],
      ['manager', 'experience'],
      ['team', 'work'],
      ['sales', 'support'],
    ]) {
      for (const filter of FILTERS) {
        const query = `description=${a}%20${b}${filter}`;
        const fast = await allPages(query, true);
        expect(fast, query).to.deep.equal(await allPages(query, false));
        if (fast.flat().length > PAGE) many++;
      }
    }
    expect(many).to.be.greaterThan(5);
  });

  it('pages past the first with a cursor like the general path', async () => {
    const fast = await allPages('q=experience&currentness=current,uncertain,not_current', true);
    expect(fast.length).to.be.greaterThan(3);
    expect(new Set(fast.flat()).size).to.equal(fast.flat().length);
  });
});
