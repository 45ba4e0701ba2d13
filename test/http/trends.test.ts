import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { snapshotDir, trendsFolder } from '../../src/catalog/layout.js';
import { publish } from '../../src/catalog/publish/publish.js';
import type { JobsSnapshot } from '../../src/jobs/snapshot.js';
import { GROUP_BY } from '../../src/jobs/groups.js';
import { openapi } from '../support/contract.js';
import { output, overHttp, toolError } from '../support/mcp.js';
import { startTestApp, tempDir, type TestApp } from '../support/app.js';

interface Count {
  count: number;
  snapshot_watermark: string;
  groups?: { value: string | null; count: number }[];
}
interface Point {
  start: string;
  publication_watermark: string | null;
  count: number | null;
  groups?: { value: string | null; count: number }[] | null;
}
interface Trend {
  snapshot_watermark: string;
  interval: string;
  start: string;
  end: string;
  points: Point[];
}
interface ErrorBody {
  error: { code: string; message: string; request_id: string };
}

const DAYS = 4;
// Filters of every kind: on the job, a location, a posting (mask and join), pay, dates, and the text
// filters (whose matches come from the publication's index and the versions' own texts).
const QUERIES = [
  '',
  'currentness=current,uncertain,not_current',
  'state=CA',
  'country=US&work_arrangement=remote',
  'source_class=ats&employment_type=full_time',
  'has_pay=true&pay_min=60000&pay_currency=USD',
  'soc_code=29-',
  'posted_since=2026-11-01&stale=false',
  'q=nurse',
  'title=software engineer',
  'description=customers',
  'title_advanced=manager | director',
  'description_advanced=team %26 !travel',
  'q=sales&state=TX',
  'company=health',
];
// Every group, with filters of each kind, text among them. Where a group has more than 25 values, count
// lists the 25 largest: a point's groups are compared where count listed them.
const GROUPED = [
  'group_by=work_arrangement',
  'group_by=currentness&currentness=current,uncertain,not_current',
  'group_by=soc_major&country=US',
  'group_by=employment_type&q=nurse',
  'group_by=source_class&title_advanced=engineer:*',
  'group_by=pay_band&pay_currency=USD',
  'group_by=employer',
  'group_by=company_id&state=CA',
  'group_by=country',
  'group_by=state&country=US&work_arrangement=remote',
  'group_by=msa&q=sales',
  'group_by=soc_code&soc_code=15-',
  'group_by=skills&description=customers',
];

describe('GET /v1/jobs/trends', function () {
  this.timeout(300_000);
  let app: TestApp;
  let key: string;
  const watermarks: string[] = [];
  /** Per query, what GET /v1/jobs/count answered at each publication, in order. */
  const counted = new Map<string, Count[]>();

  const trend = (query: string) => app.api.get<Trend>(`/v1/jobs/trends?${query}`, { key });
  const refused = async (query: string, status = 400) => {
    const r = await app.api.get<ErrorBody>(`/v1/jobs/trends?${query}`, { key });
    expect(r.status, r.text).to.equal(status);
    expect(r.body.error.request_id).to.equal(r.headers.get('x-request-id'));
    return r.body.error;
  };
  const day = (watermark: string) => watermark.slice(0, 10);

  before(async () => {
    const root = await tempDir('trends');
    const corpus = join(root, 'corpus');
    await generateCorpus({ jobs: 1500, seed: 11, days: DAYS, start: '2026-11-18' }, corpus, { workers: 0 });
    app = await startTestApp();
    ({ key } = await app.account());
    for (let d = 1; d <= DAYS; d++) {
      const input = join(corpus, `day-${String(d).padStart(3, '0')}`);
      // Two threads: the own texts' index is built in two parts, which the text filters below read as one.
      await publish({
        input,
        snapshotsDir: app.config.snapshotsDir,
        dataDir: app.config.dataDir,
        quiet: true,
        memoryLimit: '1GB',
        threads: 2,
      });
      await app.service.watcher.check();
      for (const query of [...QUERIES, ...GROUPED]) {
        const r = await app.api.get<Count>(`/v1/jobs/count?${query}`, { key });
        expect(r.status, r.text).to.equal(200);
        counted.set(query, [...(counted.get(query) ?? []), r.body]);
      }
      watermarks.push(counted.get('')!.at(-1)!.snapshot_watermark);
    }
    await rm(root, { recursive: true, force: true });
  });
  after(() => app?.close());

  it('reads versions whose text is no longer their job’s (the own-text index is exercised)', () => {
    const s = app.service.ctx.publications.catalog as JobsSnapshot;
    expect(s.trends!.publications).to.deep.equal(watermarks);
    expect(s.trends!.ownFrom).to.be.below(s.trends!.size);
  });

  for (const query of QUERIES) {
    it(`answers at each publication what GET /v1/jobs/count answered then: ${query || 'no filter'}`, async () => {
      const r = await trend(`${query}&start=${day(watermarks[0]!)}&end=${day(watermarks.at(-1)!)}`);
      expect(r.status, r.text).to.equal(200);
      expect(r.body.points.map((p) => p.publication_watermark)).to.deep.equal(watermarks);
      expect(r.body.points.map((p) => p.count)).to.deep.equal(counted.get(query)!.map((c) => c.count));
    });
  }

  it('is checked against count for every group', () => {
    expect(new Set(GROUPED.map((q) => /group_by=(\w+)/.exec(q)![1]))).to.deep.equal(new Set(GROUP_BY));
  });

  for (const query of GROUPED) {
    it(`gives each point the counts of the same groups as count did then: ${query}`, async () => {
      const r = await trend(`${query}&interval=day`);
      expect(r.status, r.text).to.equal(200);
      const latest = counted.get(query)!.at(-1)!;
      expect(r.body.points.at(-1)!.groups).to.deep.equal(latest.groups);
      r.body.points.forEach((point, i) => {
        const listed = counted.get(query)![i]!.groups!;
        const then = new Map(listed.map((g) => [g.value, g.count]));
        expect(point.count).to.equal(counted.get(query)![i]!.count);
        for (const group of point.groups!)
          if (listed.length < 25 || then.has(group.value))
            expect(group.count, `${group.value} at ${point.start}`).to.equal(then.get(group.value) ?? 0);
      });
    });
  }

  it('answers null for a day without a publication, and defaults the range to the history', async () => {
    const before = new Date(Date.parse(watermarks[0]!) - 86_400_000).toISOString().slice(0, 10);
    const r = await trend(`start=${before}&group_by=currentness`);
    expect(r.body.points[0]).to.deep.equal({ start: before, publication_watermark: null, count: null, groups: null });
    expect(r.body.end).to.equal(day(watermarks.at(-1)!));
    const plain = await trend('');
    expect(plain.body).to.include({ interval: 'day', start: day(watermarks[0]!), end: day(watermarks.at(-1)!) });
    expect(plain.body.snapshot_watermark).to.equal(watermarks.at(-1));
  });

  it('reads a week at its last publication in the range', async () => {
    // 2026-11-18 is a Wednesday: the four days fall in the ISO week of Monday 2026-11-16.
    const r = await trend('interval=week&q=nurse');
    expect(r.body.points).to.deep.equal([
      { start: '2026-11-16', publication_watermark: watermarks.at(-1), count: counted.get('q=nurse')!.at(-1)!.count },
    ]);
    const cut = await trend(`interval=week&end=${day(watermarks[1]!)}`);
    expect(cut.body.points[0]!.publication_watermark).to.equal(watermarks[1]);
    expect(cut.body.points[0]!.count).to.equal(counted.get('')![1]!.count);
  });

  it('is priced as a count: a jobs_count request, no records', async () => {
    const r = await trend('state=CA');
    expect(r.headers.get('x-data-records-charged')).to.equal('0');
    const usage = await app.api.get<{ data: { route: string; route_class: string; records_charged: number }[] }>(
      '/v1/usage/requests?limit=5',
      {
        key,
      },
    );
    expect(usage.body.data.find((e) => e.route === '/v1/jobs/trends')).to.include({ route_class: 'jobs_count', records_charged: 0 });
  });

  it('answers 400 invalid_request for a bad interval, range, date, group or filter', async () => {
    expect((await refused('interval=month')).message).to.match(/interval/);
    expect((await refused('start=2026-11-20&end=2026-11-18')).message).to.match(/must not be after end/);
    expect((await refused('start=2026-01-01&end=2026-11-20')).message).to.match(/at most 92 points by day/);
    expect((await refused('interval=week&start=2024-01-01&end=2026-11-20')).message).to.match(/at most 53 points by week/);
    expect((await refused('start=2026-02-30')).message).to.match(/start/);
    expect((await refused('group_by=skills_unknown')).message).to.match(/group_by/);
    expect((await refused('last_fetch_since=2026-11-01')).message).to.match(/last_fetch_since/);
    expect((await refused('pay_min=100&pay_max=50')).message).to.match(/pay_max/);
    expect((await refused('active=true&currentness=current')).message).to.match(/not both/);
  });

  it('takes the groups of count, as openapi.yaml lists them for both routes', () => {
    const groups = (path: string) =>
      (openapi.paths[path]!.get as unknown as { parameters: { name: string; schema: { enum: string[] } }[] }).parameters.find(
        (p) => p.name === 'group_by',
      )!.schema.enum;
    expect(groups('/v1/jobs/trends')).to.deep.equal([...GROUP_BY]);
    expect(groups('/v1/jobs/count')).to.deep.equal([...GROUP_BY]);
  });

  it('is count_jobs with interval over MCP: the same points, one request, no records', async () => {
    // An account of its own: the request window of the first is spent by the tests above.
    const client = await overHttp(app.url, (await app.account()).key);
    try {
      const args = { interval: 'day', q: 'nurse', more_filters: { state: 'CA' }, group_by: 'work_arrangement' };
      const answer = output<{ points: Point[]; charged: { requests: number; records: number } }>(
        await client.callTool({ name: 'count_jobs', arguments: args }),
      );
      expect(answer.points).to.deep.equal((await trend('q=nurse&state=CA&group_by=work_arrangement')).body.points);
      expect(answer.charged).to.deep.equal({ requests: 1, records: 0 });
      const refused = toolError(
        await client.callTool({ name: 'count_jobs', arguments: { interval: 'day', more_filters: { last_fetch_since: '2026-11-01' } } }),
      );
      expect(refused).to.include({ code: 'invalid_request', http_status: 400 });
    } finally {
      await client.close();
    }
  });

  it('answers 503 trends_unavailable while the latest publication carries no history', async () => {
    await rm(trendsFolder(snapshotDir(app.config.snapshotsDir, watermarks.at(-1)!)), { recursive: true });
    await app.restart();
    const error = await refused('', 503);
    expect(error.code).to.equal('trends_unavailable');
    expect((await app.api.get<Count>('/v1/jobs/count', { key })).status).to.equal(200);
  });
});
