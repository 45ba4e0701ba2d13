import { expect } from 'chai';
import { join } from 'node:path';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { publish } from '../../src/catalog/publish/publish.js';
import type { ChangeFeed } from '../../src/feed/feed.js';
import { startTestApp, tempDir, type TestApp } from '../support/app.js';

interface Posting {
  posting_id: string;
  last_fetch_at: string;
  application_check: { result: string; checked_at: string } | null;
  source_data?: { source_type: string };
}
interface Job {
  job_id: string;
  company_id: string | null;
  currentness: string;
  last_verified_at: string | null;
  days_open: number | null;
  postings: Posting[];
}
interface Event {
  event_id: string;
  type: 'created' | 'updated' | 'expired';
  occurred_at: string;
  job_id: string;
  job: Job;
}
interface ChangePage {
  data: Event[];
  resume_cursor: string;
  has_more: boolean;
  snapshot_watermark: string;
}
interface ErrorBody {
  error: { code: string; message: string; resume_since?: string };
}

/** A job without the two read timestamps that advance without saying anything new (docs/catalog.md). */
/** A job without the fields that advance with every read and make no event (docs/sync-and-exports.md). */
function comparable({ last_verified_at: _verified, days_open: _days, ...job }: Job): unknown {
  return {
    ...job,
    postings: job.postings.map(({ last_fetch_at: _, application_check: check, ...rest }) => ({
      ...rest,
      application_check: check && { result: check.result },
    })),
  };
}

describe('change feed', function () {
  this.timeout(240_000);
  let app: TestApp;
  let key: string;
  let corpus: string;
  let published = 0;

  before(async () => {
    const root = await tempDir('feed');
    corpus = join(root, 'corpus');
    await generateCorpus({ jobs: 300, seed: 11, days: 4, start: '2026-11-18' }, corpus, { workers: 0 });
    app = await startTestApp();
    ({ key } = await app.account());
  });
  after(() => app?.close());

  async function publishNext(): Promise<string> {
    published++;
    const dir = join(corpus, `day-${String(published).padStart(3, '0')}`);
    await publish({ input: dir, snapshotsDir: app.config.snapshotsDir, dataDir: app.config.dataDir, quiet: true, memoryLimit: '1GB' });
    await app.service.watcher.check();
    return (await app.api.get<{ snapshot_watermark: string }>('/v1/jobs/count', { key })).body.snapshot_watermark;
  }

  const changes = async (query: string) => {
    const r = await app.api.get<ChangePage>(`/v1/jobs/changes?${query}`, { key });
    expect(r.status, r.text).to.equal(200);
    return r.body;
  };
  const refused = async (query: string, status = 400) => {
    const r = await app.api.get<ErrorBody>(`/v1/jobs/changes?${query}`, { key });
    expect(r.status, r.text).to.equal(status);
    return r.body.error;
  };

  /** Every current or uncertain job of the latest catalog, by id. */
  async function listed(): Promise<Map<string, Job>> {
    const jobs = new Map<string, Job>();
    let cursor: string | null = null;
    do {
      const query: string = `currentness=current,uncertain&limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const r = await app.api.get<{ data: Job[]; next_cursor: string | null }>(`/v1/jobs?${query}`, { key });
      for (const job of r.body.data) jobs.set(job.job_id, job);
      cursor = r.body.next_cursor;
    } while (cursor);
    return jobs;
  }

  /**
   * A client following the recommended sync: it pages with after while has_more, and when a newer
   * catalog refuses its cursor it resumes with the since the refusal names.
   */
  class SyncClient {
    readonly jobs = new Map<string, Job>();
    cursor: string | null = null;
    pages = 0;

    constructor(private since: string) {}

    async sync(limit: number): Promise<void> {
      for (;;) {
        let query = this.cursor ? `after=${encodeURIComponent(this.cursor)}` : `since=${encodeURIComponent(this.since)}`;
        query += `&limit=${limit}`;
        const r = await app.api.get<ChangePage | ErrorBody>(`/v1/jobs/changes?${query}`, { key });
        if (r.status === 400 && this.cursor) {
          const error = (r.body as ErrorBody).error;
          expect(error.resume_since, error.message).to.be.a('string');
          expect(error.message).to.contain(`since=${error.resume_since}`);
          this.since = error.resume_since!;
          this.cursor = null;
          continue;
        }
        expect(r.status, r.text).to.equal(200);
        const page = r.body as ChangePage;
        this.pages++;
        for (const event of page.data) {
          if (event.type === 'expired') this.jobs.delete(event.job_id);
          else this.jobs.set(event.job_id, event.job);
        }
        this.cursor = page.resume_cursor;
        if (!page.has_more) return;
      }
    }
  }

  async function expectSynced(client: SyncClient): Promise<void> {
    const expected = await listed();
    expect([...client.jobs.keys()].sort()).to.deep.equal([...expected.keys()].sort());
    for (const [id, job] of expected) expect(comparable(client.jobs.get(id)!), id).to.deep.equal(comparable(job));
  }

  it('answers 503 catalog_unavailable before the first publication', async () => {
    expect((await refused('since=2026-01-01T00:00:00Z', 503)).code).to.equal('catalog_unavailable');
  });

  it('replayed from the beginning, and then followed across publications, yields exactly the listed jobs', async () => {
    await publishNext();
    const fromStart = new SyncClient('2000-01-01T00:00:00Z');
    await fromStart.sync(97);
    expect(fromStart.pages).to.be.greaterThan(2);
    await expectSynced(fromStart);

    // A second client loads in full first, then follows from the time its load began.
    const loadBegan = new Date().toISOString();
    const loader = new SyncClient(loadBegan);
    for (const [id, job] of await listed()) loader.jobs.set(id, job);

    const seen = new Set<string>();
    for (let day = 2; day <= 4; day++) {
      await publishNext();
      await fromStart.sync(250);
      await expectSynced(fromStart);
      await loader.sync(1000);
      await expectSynced(loader);
      // Each publication has events of every kind on this corpus.
      const page = await changes(`since=${encodeURIComponent(loadBegan)}&limit=1000`);
      for (const e of page.data) seen.add(e.type);
    }
    expect([...seen].sort()).to.deep.equal(['created', 'expired', 'updated']);
  });

  it('pages deliver every event once, in order, and the last cursor waits at the end of the log', async () => {
    const all = await changes('since=2000-01-01T00:00:00Z&limit=1000');
    expect(all.has_more).to.equal(false);
    const ids: string[] = [];
    let page = await changes('since=2000-01-01T00:00:00Z&limit=33');
    for (;;) {
      ids.push(...page.data.map((e) => e.event_id));
      if (!page.has_more) break;
      expect(page.data).to.have.length(33);
      page = await changes(`after=${encodeURIComponent(page.resume_cursor)}&limit=33`);
    }
    expect(ids).to.deep.equal(all.data.map((e) => e.event_id));
    const seqs = ids.map(Number);
    expect(seqs).to.deep.equal([...seqs].sort((a, b) => a - b));
    expect(new Set(ids).size).to.equal(ids.length);
    const atEnd = await changes(`after=${encodeURIComponent(page.resume_cursor)}`);
    expect(atEnd.data).to.deep.equal([]);
    expect(atEnd.has_more).to.equal(false);
  });

  it('since takes the events strictly after it: a publication at exactly since is left out', async () => {
    const all = (await changes('since=2000-01-01T00:00:00Z&limit=1000')).data;
    const times = [...new Set(all.map((e) => e.occurred_at))].sort();
    expect(times.length).to.equal(4);
    const after = (await changes(`since=${encodeURIComponent(times[2]!)}&limit=1000`)).data;
    expect(after.map((e) => e.event_id)).to.deep.equal(all.filter((e) => e.occurred_at > times[2]!).map((e) => e.event_id));
    expect((await changes(`since=${encodeURIComponent(times[3]!)}`)).data).to.deep.equal([]);
  });

  it('filters by types and company_id, paging through the filtered events only', async () => {
    const all = (await changes('since=2000-01-01T00:00:00Z&limit=1000')).data;
    const company = all.find((e) => e.job.company_id !== null)!.job.company_id!;
    const wanted = all.filter((e) => e.type !== 'created' && e.job.company_id === company);
    expect(wanted.length).to.be.greaterThan(0);
    const got: Event[] = [];
    let page = await changes(`since=2000-01-01T00:00:00Z&types=expired,updated&company_id=${company}&limit=2`);
    for (;;) {
      got.push(...page.data);
      if (!page.has_more) break;
      page = await changes(`after=${encodeURIComponent(page.resume_cursor)}&types=updated,expired&company_id=${company}&limit=2`);
    }
    expect(got.map((e) => e.event_id)).to.deep.equal(wanted.map((e) => e.event_id));
    expect((await changes('since=2000-01-01T00:00:00Z&company_id=00000000-0000-4000-8000-000000000000')).data).to.deep.equal([]);
  });

  it('include=source_data adds each posting source_data, nothing else changes', async () => {
    const plain = await changes('since=2000-01-01T00:00:00Z&limit=20');
    const withData = await changes('since=2000-01-01T00:00:00Z&limit=20&include=source_data');
    expect(withData.data.map((e) => e.event_id)).to.deep.equal(plain.data.map((e) => e.event_id));
    for (const [i, event] of withData.data.entries()) {
      for (const p of event.job.postings) expect(p.source_data?.source_type).to.be.a('string');
      const stripped = { ...event, job: { ...event.job, postings: event.job.postings.map(({ source_data: _, ...p }) => p) } };
      expect(stripped).to.deep.equal(plain.data[i]);
    }
  });

  it('refuses bad parameters with 400 invalid_request naming them', async () => {
    const cases: [string, RegExp][] = [
      ['limit=10', /exactly one of since/],
      [`since=2026-01-01T00:00:00Z&after=abc`, /exactly one of since/],
      ['since=yesterday', /since/],
      ['since=2026-01-01T00:00:00Z&types=created,deleted', /types/],
      ['since=2026-01-01T00:00:00Z&limit=0', /limit/],
      ['since=2026-01-01T00:00:00Z&limit=1001', /limit/],
      ['since=2026-01-01T00:00:00Z&company_id=NOT-A-UUID', /company_id/],
      ['since=2026-01-01T00:00:00Z&include=company', /include/],
      ['since=2026-01-01T00:00:00Z&sort=updated', /sort/],
    ];
    for (const [query, message] of cases) {
      const r = await app.api.get<ErrorBody>(`/v1/jobs/changes?${query}`, { key, unchecked: true });
      expect(r.status, query).to.equal(400);
      expect(r.body.error.code, query).to.equal('invalid_request');
      expect(r.body.error.message, query).to.match(message);
    }
    const page = await changes('since=2000-01-01T00:00:00Z&limit=5&types=created');
    const cursor = page.resume_cursor;
    const tampered = cursor.slice(0, 10) + (cursor[10] === 'A' ? 'B' : 'A') + cursor.slice(11);
    expect((await refused(`after=${encodeURIComponent(tampered)}`)).message).to.match(/cursor/);
    expect((await refused(`after=${encodeURIComponent(cursor)}&types=updated`)).message).to.match(/other filters/);
    const jobsCursor = (await app.api.get<{ next_cursor: string }>('/v1/jobs?limit=1', { key })).body.next_cursor;
    expect((await refused(`after=${encodeURIComponent(jobsCursor)}`)).message).to.match(/same route/);
  });

  it('answers 503 service_unavailable when a publication lands during the request', async () => {
    const feed = app.service.ctx.feed;
    const page = feed.page.bind(feed);
    const racing: ChangeFeed['page'] = async (snapshot, request) => {
      const result = await page(snapshot, request);
      app.service.ctx.publications.switchCatalog({ ...snapshot, watermark: `${snapshot.watermark}-next`, close: () => undefined });
      return result;
    };
    feed.page = racing;
    try {
      const error = await refused('since=2000-01-01T00:00:00Z', 503);
      expect(error.code).to.equal('service_unavailable');
    } finally {
      feed.page = page;
    }
  });
});
