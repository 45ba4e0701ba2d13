import { expect } from 'chai';
import { join } from 'node:path';
import { publish } from '../../src/catalog/publish/publish.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { writeDay, type TestPosting } from '../support/delivery.js';

interface Job {
  job_id: string;
  title?: string;
  employer_name?: string;
  currentness?: string;
  company_id?: string | null;
  work_arrangement?: string;
  locations?: { city: string | null; state: string | null; country: string | null; msa: { cbsa_code: string } | null }[];
  postings?: { source: string; source_data?: { source_type: string }; pay: unknown; status: string }[];
  company?: { company_id: string; name: string } | null;
}
interface Page {
  data: Job[];
  next_cursor: string | null;
  snapshot_watermark: string;
}
interface ErrorBody {
  error: { code: string; message: string };
}

const NORTHWIND = '44444444-4444-4444-8444-444444444444';
const description = (topic: string) =>
  `${topic} is what this role is about, and you will own it from the first day. ` +
  `You will work with a small team on ${topic.toLowerCase()} and report to the head of operations. ` +
  'We offer health insurance and a retirement plan.';

// Day 1: six openings. A has two copies (an ATS board and an aggregator) that merge into one job.
const DAY1: TestPosting[] = [
  {
    source: 'greenhouse',
    board: 'northwind',
    id: 'a1',
    opening: 'A',
    title: 'Logistics Planner',
    description: description('Route planning for the regional fleet'),
    company: NORTHWIND,
  },
  {
    source: 'indeed',
    board: 'feed',
    id: 'a2',
    opening: 'A',
    title: 'Logistics Planner',
    description: description('Route planning for the regional fleet'),
    pay: null,
    company: NORTHWIND,
  },
  {
    source: 'lever',
    board: 'acme',
    id: 'b1',
    opening: 'B',
    employer: 'Acme Robotics',
    domain: 'acme-robotics.example',
    title: 'Senior Robotics Engineer',
    description: description('Motion control software in Python and C++'),
    locations: ['Toronto, ON, Canada'],
    work_arrangement: 'Remote',
    employment_type: 'CONTRACT',
    pay: { currency: 'CAD', min: 50, max: 70, interval: 'HOUR' },
    posting_url: null,
    application_url: 'https://acme-robotics.example/apply/b1',
  },
  {
    source: 'greenhouse',
    board: 'northwind',
    id: 'c1',
    opening: 'C',
    title: 'Warehouse Associate',
    // Pay stated only in the text: 18-22 USD an hour is 37,440-45,760 a year.
    description: `${description('Receiving and shipping in the warehouse')} Pay: $18 - $22 per hour.`,
    locations: ['Austin, TX'],
    pay: null,
    check: 'closed',
    company: NORTHWIND,
  },
  {
    source: 'workday',
    board: 'hb',
    id: 'd1',
    opening: 'D',
    employer: 'HB',
    domain: 'hb.example',
    title: 'Data Engineer',
    description: description('Data pipelines in Python and SQL'),
    locations: ['London, United Kingdom'],
    work_arrangement: 'Hybrid',
    pay: { currency: 'GBP', min: 50000, max: 60000, interval: 'YEAR' },
  },
  {
    source: 'greenhouse',
    board: 'northwind',
    id: 'e1',
    opening: 'E',
    title: 'Fleet Manager',
    description: description('Managing the fleet of trucks and their drivers'),
    locations: ['Chicago, IL'],
    employment_type: 'PART_TIME',
    pay: { currency: 'USD', min: 30, max: 40, interval: 'HOUR' },
    company: NORTHWIND,
  },
  {
    source: 'greenhouse',
    board: 'northwind',
    id: 'f1',
    opening: 'F',
    title: 'Dispatcher',
    description: description('Dispatching drivers at night'),
    locations: ['Chicago, IL', 'Austin, TX'],
    work_arrangement: null,
    pay: { currency: 'USD', min: 70000, max: 75000, interval: 'UNKNOWN' },
    company: NORTHWIND,
  },
];

describe('jobs read API', function () {
  this.timeout(90_000);
  let app: TestApp;
  let key: string;
  const byTitle = new Map<string, Job>();

  const list = async (query: string) => {
    const r = await app.api.get<Page>(`/v1/jobs?${query}`, { key });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body;
  };
  const titles = async (query: string) => (await list(query)).data.map((j) => j.title).sort();
  const refused = async (query: string) => {
    const r = await app.api.get<ErrorBody>(`/v1/jobs?${query}`, { key });
    expect(r.status, `${query}: ${JSON.stringify(r.body)}`).to.equal(400);
    expect(r.body.error.code).to.equal('invalid_request');
    return r.body.error.message;
  };

  before(async () => {
    app = await startTestApp(process.env.DEBUG_LOG ? { logLevel: 'error' } : {});
    ({ key } = await app.account());
    const root = join(app.config.dataDir, '..', 'delivery');
    const registry = {
      release_id: 'r-1',
      companies: [{ company_id: NORTHWIND, name: 'Northwind Logistics', domain: 'northwind-logistics.com' }],
    };
    const day = await writeDay(root, 1, { postings: DAY1, registry });
    await publish({ input: day, snapshotsDir: app.config.snapshotsDir, dataDir: app.config.dataDir, quiet: true, memoryLimit: '1GB' });
    await app.service.watcher.check();
    for (const job of (await list('currentness=current,uncertain,not_current')).data) byTitle.set(job.title!, job);
  });
  after(() => app.close());

  describe('listing', () => {
    it('lists current jobs by default, newest first, merged copies as one job with every posting', async () => {
      const page = await list('');
      expect(page.data.map((j) => j.title)).to.not.include('Warehouse Associate');
      expect(page.data).to.have.length(5);
      const planner = page.data.find((j) => j.title === 'Logistics Planner')!;
      expect(planner.postings!.map((p) => p.source).sort()).to.deep.equal(['greenhouse', 'indeed']);
      expect(planner.postings![0]).to.not.have.property('source_data');
      const ids = page.data.map((j) => j.job_id);
      expect(page.next_cursor).to.equal(null);
      expect(ids).to.have.length(new Set(ids).size);
    });

    it('pages with signed cursors: every match exactly once, next_cursor null on the last page', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: Page = await list(
          `currentness=current,uncertain,not_current&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        seen.push(...page.data.map((j) => j.job_id));
        cursor = page.next_cursor;
        pages++;
      } while (cursor);
      expect(pages).to.equal(3);
      expect(seen.sort()).to.deep.equal([...byTitle.values()].map((j) => j.job_id).sort());
    });

    it('refuses a cursor used with other filters, another page size, or altered', async () => {
      const first = await list('limit=2');
      const cursor = encodeURIComponent(first.next_cursor!);
      expect(await refused(`limit=3&cursor=${cursor}`)).to.match(/page size/);
      expect(await refused(`limit=2&company=north&cursor=${cursor}`)).to.match(/other filters/);
      expect(await refused(`limit=2&fields=title&cursor=${cursor}`)).to.match(/fields/);
      const altered = first.next_cursor!.replace(/^./, (c) => (c === 'e' ? 'f' : 'e'));
      expect(await refused(`limit=2&cursor=${encodeURIComponent(altered)}`)).to.match(/altered|not a cursor/);
      expect(await refused('limit=2&cursor=garbage')).to.match(/not a cursor/);
    });

    it('shapes jobs with fields and include without changing which jobs match', async () => {
      const page = await list('fields=title,locations&currentness=current');
      expect(page.data).to.have.length(5);
      for (const job of page.data) expect(Object.keys(job).sort()).to.deep.equal(['job_id', 'locations', 'title']);
      const withData = await list('include=source_data,company&title=Logistics%20Planner');
      const planner = withData.data[0]!;
      expect(planner.postings!.every((p) => typeof p.source_data?.source_type === 'string')).to.equal(true);
      expect(planner.company).to.include({ company_id: NORTHWIND, name: 'Northwind Logistics' });
      const hb = (await list('include=company&company=HB')).data[0]!;
      expect(hb.company).to.equal(null);
      const ids = await list('fields=job_id&limit=1000&currentness=current');
      expect(ids.data.map((j) => Object.keys(j))).to.deep.equal(Array(5).fill(['job_id']));
    });

    it('answers 503 for description_format=html, after checking the other parameters', async () => {
      const r = await app.api.get<ErrorBody>('/v1/jobs?description_format=html', { key });
      expect(r.status).to.equal(503);
      expect(r.body.error.code).to.equal('format_unavailable');
    });
  });

  describe('filters', () => {
    it('company: contains, case-insensitive; a term of 1-2 characters is the whole name or its first word', async () => {
      expect(await titles('company=ROBOT')).to.deep.equal(['Senior Robotics Engineer']);
      expect(await titles('company=hb')).to.deep.equal(['Data Engineer']);
      expect(await titles('company=ac')).to.deep.equal([]);
      expect(await titles(`company_id=${NORTHWIND}`)).to.deep.equal(['Dispatcher', 'Fleet Manager', 'Logistics Planner']);
      expect(await titles('company_linked=false')).to.deep.equal(['Data Engineer', 'Senior Robotics Engineer']);
    });

    it('locations: city, state alone (US) or with country, country lists, msa, free text', async () => {
      expect(await titles('city=chic')).to.deep.equal(['Dispatcher', 'Fleet Manager', 'Logistics Planner']);
      expect(await titles('state=tx&currentness=current,not_current')).to.deep.equal(['Dispatcher', 'Warehouse Associate']);
      expect(await titles('state=ON')).to.deep.equal([]);
      expect(await titles('state=ON&country=ca')).to.deep.equal(['Senior Robotics Engineer']);
      expect(await titles('country=GB,CA')).to.deep.equal(['Data Engineer', 'Senior Robotics Engineer']);
      expect(await titles('msa=16980')).to.deep.equal(['Dispatcher', 'Fleet Manager', 'Logistics Planner']);
      expect(await titles('location=london')).to.deep.equal(['Data Engineer']);
      expect(await titles('has_location=true&country=US')).to.have.length(3);
    });

    it('work arrangement and its alias; employment types; sources', async () => {
      expect(await titles('work_arrangement=remote')).to.deep.equal(['Senior Robotics Engineer']);
      expect(await titles('remote_type=hybrid')).to.deep.equal(['Data Engineer']);
      expect(await refused('remote_type=hybrid&work_arrangement=hybrid')).to.match(/remote_type/);
      expect(await titles('employment_type=Contract,part-time')).to.deep.equal(['Fleet Manager', 'Senior Robotics Engineer']);
      expect(await titles('source=indeed')).to.deep.equal(['Logistics Planner']);
      expect(await titles('source_class=aggregator')).to.deep.equal(['Logistics Planner']);
      expect(await titles('source_type=AGGREGATOR_API')).to.deep.equal(['Logistics Planner']);
      // A job still matches through another posting of a source not excluded.
      expect(await titles('exclude_source=greenhouse')).to.deep.equal(['Data Engineer', 'Logistics Planner', 'Senior Robotics Engineer']);
      expect(await titles('exclude_source=greenhouse,aggregator_api')).to.deep.equal(['Data Engineer', 'Senior Robotics Engineer']);
      expect(await titles('exclude_source=')).to.have.length(5);
    });

    it('postings: posting_id, source_posting_id, status, URLs', async () => {
      expect(await titles('source_posting_id=b1')).to.deep.equal(['Senior Robotics Engineer']);
      expect(await titles('has_posting_url=false')).to.deep.equal(['Senior Robotics Engineer']);
      expect(await titles('has_application_url=true')).to.deep.equal(['Senior Robotics Engineer']);
      expect(await titles('posting_status=no_longer_listed')).to.deep.equal([]);
      const planner = byTitle.get('Logistics Planner')!;
      const postingId = (await list(`job_id=${planner.job_id}`)).data[0]!.postings![0] as unknown as { posting_id: string };
      expect(await titles(`posting_id=${postingId.posting_id}`)).to.deep.equal(['Logistics Planner']);
    });

    it('pay: per year, one posting, never across currencies, unknown interval never matches', async () => {
      expect(await titles('has_pay=true')).to.deep.equal([
        'Data Engineer',
        'Dispatcher',
        'Fleet Manager',
        'Logistics Planner',
        'Senior Robotics Engineer',
      ]);
      // Logistics Planner's aggregator copy has no pay: a posting without pay.
      expect(await titles('has_pay=false')).to.deep.equal(['Logistics Planner']);
      // 30-40 USD an hour is 62,400-83,200 a year.
      expect(await titles('pay_currency=usd&pay_min=62400')).to.deep.equal(['Fleet Manager']);
      expect(await titles('pay_currency=USD&pay_min=60000&pay_max=80000')).to.deep.equal(['Logistics Planner']);
      expect(await titles('pay_min=100000')).to.deep.equal(['Senior Robotics Engineer']);
      expect(await titles('pay_currency=GBP')).to.deep.equal(['Data Engineer']);
      // The pay a description states counts when asked for: pay_source.
      const all = 'currentness=current,not_current';
      expect(await titles(`${all}&pay_source=description`)).to.deep.equal(['Warehouse Associate']);
      expect(await titles(`${all}&has_pay=true`)).to.not.include('Warehouse Associate');
      expect(await titles(`${all}&has_pay=true&pay_source=posted,description`)).to.include('Warehouse Associate');
      expect(await titles(`${all}&pay_currency=USD&pay_max=50000`)).to.deep.equal([]);
      expect(await titles(`${all}&pay_currency=USD&pay_max=50000&pay_source=posted,description`)).to.deep.equal(['Warehouse Associate']);
      expect(await titles(`${all}&pay_min=40000&pay_source=description`)).to.deep.equal([]);
      expect(await titles(`${all}&pay_source=posted`)).to.not.include('Warehouse Associate');
      expect(await refused('pay_source=salary')).to.match(/pay_source.*posted, description or both/);
      expect(await refused('pay_min=100&pay_max=99.99')).to.match(/pay_max/);
      expect(await refused('pay_min=1.001')).to.match(/pay_min/);
    });

    it('gives each posting its pay per year, and the job the range of its postings in their currency; none for an unknown interval', async () => {
      type Range = { floor: number | null; ceiling: number | null };
      type Paid = Job & { annual_pay: (Range & { currency: string; source: string }) | null };
      const jobs = (await list('currentness=current,uncertain,not_current&fields=title,postings,annual_pay')).data as Paid[];
      const job = (title: string) => jobs.find((j) => j.title === title)!;
      // 30-40 USD an hour is 62,400-83,200 a year; 50-70 CAD an hour 104,000-145,600.
      expect(job('Fleet Manager').annual_pay).to.deep.equal({ currency: 'USD', floor: 62400, ceiling: 83200, source: 'posted' });
      expect(job('Fleet Manager').postings![0]!.pay).to.deep.include({ interval: 'hour', annual: { floor: 62400, ceiling: 83200 } });
      expect(job('Senior Robotics Engineer').annual_pay).to.deep.equal({
        currency: 'CAD',
        floor: 104000,
        ceiling: 145600,
        source: 'posted',
      });
      expect(job('Data Engineer').annual_pay).to.deep.equal({ currency: 'GBP', floor: 50000, ceiling: 60000, source: 'posted' });
      expect(job('Dispatcher').annual_pay, 'unknown interval').to.equal(null);
      expect(job('Dispatcher').postings![0]!.pay).to.deep.include({ interval: 'unknown', annual: null });
      expect(job('Warehouse Associate').annual_pay, 'stated in the description only').to.deep.equal({
        currency: 'USD',
        floor: 37440,
        ceiling: 45760,
        source: 'description',
      });
      // Logistics Planner: the ATS copy states pay, the aggregator's copy none; the range is the one stated.
      const planner = job('Logistics Planner');
      const stated = planner.postings!.flatMap((p) => (p.pay ? [(p.pay as { annual: Range }).annual] : []));
      expect(stated).to.have.length(1);
      expect(planner.annual_pay).to.deep.equal({ currency: 'USD', ...stated[0], source: 'posted' });
      // Selectable alone.
      const only = await list('currentness=current,uncertain,not_current&fields=annual_pay&title=fleet%20manager');
      expect(only.data).to.deep.equal([{ job_id: job('Fleet Manager').job_id, annual_pay: job('Fleet Manager').annual_pay }]);
    });

    it('counts jobs by pay band: the middle of their yearly pay, in its currency', async () => {
      const r = await app.api.get<{ count: number; groups: { value: string | null; count: number }[] }>(
        '/v1/jobs/count?currentness=current,uncertain,not_current&group_by=pay_band',
        { key },
      );
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      const planner = (
        byTitle.get('Logistics Planner')!.postings!.find((p) => p.pay)!.pay as { annual: { floor: number; ceiling: number } }
      ).annual;
      const middle = (planner.floor + planner.ceiling) / 2;
      const plannerBand = middle < 75000 ? 'USD 50000-75000' : 'USD 75000-100000';
      // Fleet Manager: 62,400-83,200 USD, middle 72,800; Robotics: 104,000-145,600 CAD; Data Engineer 50,000-60,000 GBP;
      // Warehouse Associate (its description): 37,440-45,760 USD.
      const expected = new Map<string | null, number>([
        ['CAD 100000-150000', 1],
        ['GBP 50000-75000', 1],
        ['USD 25000-50000', 1],
        [null, 1],
      ]);
      for (const band of ['USD 50000-75000', plannerBand]) expected.set(band, (expected.get(band) ?? 0) + 1);
      expect(new Map(r.body.groups.map((g) => [g.value, g.count]))).to.deep.equal(expected);
      expect(r.body.count).to.equal(6);
    });

    it('gives each job its occupation (SOC 2018) from its title, filters by code or prefix and counts by code and major group', async () => {
      type Classified = Job & { occupation: { soc_code: string; title: string } | null };
      const all = 'currentness=current,uncertain,not_current';
      const jobs = (await list(`${all}&fields=title,occupation`)).data as Classified[];
      const occupation = (title: string) => jobs.find((j) => j.title === title)!.occupation;
      expect(occupation('Data Engineer')).to.deep.equal({ soc_code: '15-1243', title: 'Database Architects' });
      expect(occupation('Fleet Manager')).to.deep.equal({
        soc_code: '11-3071',
        title: 'Transportation, Storage, and Distribution Managers',
      });
      expect(occupation('Warehouse Associate')!.soc_code).to.equal('53-7062');
      expect(occupation('Dispatcher')!.soc_code).to.equal('43-5032');
      expect(occupation('Logistics Planner'), 'a title the lexicon does not know, a description naming no role').to.equal(null);
      expect(occupation('Senior Robotics Engineer')).to.equal(null);
      // A detailed code, a prefix, a group's code closed by zeros, several at once (any of them).
      expect(await titles(`${all}&soc_code=53-7062`)).to.deep.equal(['Warehouse Associate']);
      expect(await titles(`${all}&soc_code=53-`)).to.deep.equal(['Warehouse Associate']);
      expect(await titles(`${all}&soc_code=11-0000,15-12`)).to.deep.equal(['Data Engineer', 'Fleet Manager']);
      expect(await refused('soc_code=15')).to.match(/soc_code.*SOC 2018 codes or prefixes/);
      const count = async (groupBy: string) => {
        const r = await app.api.get<{ count: number; groups: { value: string | null; count: number }[] }>(
          `/v1/jobs/count?${all}&group_by=${groupBy}`,
          { key },
        );
        expect(r.status, JSON.stringify(r.body)).to.equal(200);
        return new Map(r.body.groups.map((g) => [g.value, g.count]));
      };
      expect(await count('soc_major')).to.deep.equal(
        new Map<string | null, number>([
          [null, 2],
          ['11-0000', 1],
          ['15-0000', 1],
          ['43-0000', 1],
          ['53-0000', 1],
        ]),
      );
      expect((await count('soc_code')).get('15-1243')).to.equal(1);
    });

    it('gives each job the skills its description names, filters by all of a list in any case and counts by skill', async () => {
      const all = 'currentness=current,uncertain,not_current';
      const jobs = (await list(`${all}&fields=title,skills`)).data as (Job & { skills: string[] })[];
      const skills = (title: string) => jobs.find((j) => j.title === title)!.skills;
      expect(skills('Data Engineer')).to.deep.equal(['Python', 'SQL']);
      expect(skills('Senior Robotics Engineer')).to.deep.equal(['C++', 'Python']);
      expect(skills('Dispatcher')).to.deep.equal([]);
      expect(await titles(`${all}&skills=python`)).to.deep.equal(['Data Engineer', 'Senior Robotics Engineer']);
      expect(await titles(`${all}&skills=Python,SQL`)).to.deep.equal(['Data Engineer']);
      expect(await titles(`${all}&skills=${encodeURIComponent('c++,PYTHON')}`)).to.deep.equal(['Senior Robotics Engineer']);
      expect(await refused('skills=Pyhton')).to.match(/skills must be up to 10 comma-separated skills of the vocabulary/);
      const r = await app.api.get<{ count: number; groups: { value: string | null; count: number }[] }>(
        `/v1/jobs/count?${all}&group_by=skills`,
        { key },
      );
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      const groups = new Map(r.body.groups.map((g) => [g.value, g.count]));
      expect(groups.get('Python')).to.equal(2);
      expect(groups.get('SQL')).to.equal(1);
      expect(groups.get('C++')).to.equal(1);
      expect(groups.get('route planning'), 'Logistics Planner').to.equal(1);
      expect(groups.get(null), 'the jobs whose descriptions name none').to.equal(r.body.count - 3);
      const search = await app.api.post<{ data: Job[] }>(
        '/v1/jobs/search',
        { currentness: ['current', 'uncertain', 'not_current'], skills: ['sql', 'Python'], fields: ['title'] },
        { key },
      );
      expect(search.body.data.map((j) => j.title)).to.deep.equal(['Data Engineer']);
    });

    it('currentness, active, stale and application checks', async () => {
      expect(await titles('currentness=not_current')).to.deep.equal(['Warehouse Associate']);
      expect(await titles('active=false')).to.deep.equal(['Warehouse Associate']);
      expect(await titles('active=true')).to.have.length(5);
      expect(await refused('active=true&currentness=current')).to.match(/active/);
      expect(await titles('application_check=closed&currentness=not_current')).to.deep.equal(['Warehouse Associate']);
      expect(await titles('stale=true')).to.deep.equal([]);
      expect(await titles('stale=false')).to.have.length(5);
    });

    it('dates: a plain date is the start or the end of that UTC day', async () => {
      expect(await titles('posted_since=2026-10-30')).to.have.length(5);
      expect(await titles('posted_until=2026-10-30')).to.have.length(5);
      expect(await titles('posted_since=2026-10-31')).to.deep.equal([]);
      expect(await titles('published_since=2026-10-30T12:00:00Z')).to.have.length(5);
      expect(await titles('posted_since=2026-10-30T12:00:00.001Z')).to.deep.equal([]);
      expect(await refused('posted_since=2026-10-30&published_since=2026-10-30')).to.match(/published_since/);
      expect(await titles('updated_since=2026-11-01&first_seen_until=2026-11-01')).to.have.length(5);
      expect(await titles('curated_until=2026-10-31')).to.deep.equal([]);
    });
  });

  describe('text search', () => {
    it('title is a phrase in order; q the phrase in title or description; description all words', async () => {
      expect(await titles('title=robotics%20engineer')).to.deep.equal(['Senior Robotics Engineer']);
      expect(await titles('title=engineer%20robotics')).to.deep.equal([]);
      expect(await titles('q=python')).to.deep.equal(['Data Engineer', 'Senior Robotics Engineer']);
      expect(await titles('q=fleet')).to.deep.equal(['Fleet Manager', 'Logistics Planner']);
      expect(await titles('description=drivers%20night')).to.deep.equal(['Dispatcher']);
      expect(await titles('description=night%20drivers%20trucks')).to.deep.equal([]);
    });

    it('ranks title matches above description matches', async () => {
      const page = await list('q=fleet');
      expect(page.data.map((j) => j.title)).to.deep.equal(['Fleet Manager', 'Logistics Planner']);
      const updated = await list('q=fleet&sort=updated');
      expect(updated.data).to.have.length(2);
    });

    it('Boolean searches: operators, prefixes, phrases; a positive term is required', async () => {
      expect(await titles('title_advanced=engineer%20AND%20NOT%20data')).to.deep.equal(['Senior Robotics Engineer']);
      expect(await titles('title_advanced=dispatch:*%20|%20planner')).to.deep.equal(['Dispatcher', 'Logistics Planner']);
      expect(await titles('description_advanced=%22regional%20fleet%22')).to.deep.equal(['Logistics Planner']);
      expect(await titles('description_advanced=python%20!sql')).to.deep.equal(['Senior Robotics Engineer']);
      expect(await refused('title_advanced=NOT%20engineer')).to.match(/title_advanced/);
      expect(await refused('title_advanced=(engineer')).to.match(/title_advanced/);
      expect(await refused('sort=relevance&title_advanced=engineer')).to.match(/sort=relevance/);
    });
  });

  describe('validation', () => {
    it('names the parameter in each 400', async () => {
      expect(await refused('fields=title,salary')).to.match(/'fields' must be a comma list of job property names/);
      expect(await refused('limit=251')).to.match(/limit/);
      expect(await refused('limit=0')).to.match(/limit/);
      expect((await list('limit=1000&fields=job_id')).data).to.have.length(5);
      expect(await refused('job_id=not-a-uuid')).to.match(/job_id/);
      expect(await refused('posted_since=2026-02-30')).to.match(/posted_since/);
      expect(await refused('sort=relevance')).to.match(/sort/);
    });
  });

  describe('POST /v1/jobs/search', () => {
    it('takes the filters as JSON with arrays where the spec allows them', async () => {
      const r = await app.api.post<Page>(
        '/v1/jobs/search',
        { country: ['GB', 'CA'], currentness: ['current'], fields: ['title'], has_pay: true, pay_min: 50000 },
        { key },
      );
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.data.map((j) => j.title).sort()).to.deep.equal(['Data Engineer', 'Senior Robotics Engineer']);
    });

    it('refuses strings for booleans and numbers, a string currentness and unknown keys', async () => {
      for (const body of [{ has_pay: 'true' }, { pay_min: '100' }, { currentness: 'current' }, { colour: 'red' }, { limit: '5' }]) {
        const r = await app.api.post<ErrorBody>('/v1/jobs/search', body, { key });
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.body.error.code).to.equal('invalid_request');
      }
    });

    it('pages with next_cursor sent as cursor in the body', async () => {
      const first = await app.api.post<Page>('/v1/jobs/search', { limit: 3 }, { key });
      const second = await app.api.post<Page>('/v1/jobs/search', { limit: 3, cursor: first.body.next_cursor }, { key });
      expect(second.status).to.equal(200);
      expect([...first.body.data, ...second.body.data].map((j) => j.job_id).sort()).to.deep.equal(
        (await list('')).data.map((j) => j.job_id).sort(),
      );
      const other = await app.api.get<ErrorBody>(`/v1/jobs?limit=3&cursor=${encodeURIComponent(first.body.next_cursor!)}`, { key });
      expect(other.status).to.equal(400);
    });
  });

  describe('GET /v1/jobs/count', () => {
    it('counts what the listing returns, with exact groups', async () => {
      const r = await app.api.get<{ count: number; snapshot_watermark: string; groups?: { value: string | null; count: number }[] }>(
        '/v1/jobs/count?country=US&group_by=state',
        { key },
      );
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.count).to.equal(3);
      expect(r.body.groups).to.deep.equal([
        { value: 'US-IL', count: 3 },
        { value: 'US-TX', count: 1 },
      ]);
      const all = await app.api.get<{ count: number }>('/v1/jobs/count?currentness=current,uncertain,not_current&q=fleet', { key });
      expect(all.body.count).to.equal(2);
      const bad = await app.api.get<ErrorBody>('/v1/jobs/count?limit=5', { key });
      expect(bad.status).to.equal(400);
    });
  });

  describe('GET /v1/jobs/{jobId}', () => {
    it('returns one job with all its postings, and the projection asked for', async () => {
      const planner = byTitle.get('Logistics Planner')!;
      const r = await app.api.get<{ data: Job; snapshot_watermark: string }>(`/v1/jobs/${planner.job_id}`, { key });
      expect(r.status).to.equal(200);
      expect(r.body.data.postings).to.have.length(2);
      const shaped = await app.api.get<{ data: Job }>(`/v1/jobs/${planner.job_id}?fields=title`, { key });
      expect(shaped.body.data).to.deep.equal({ job_id: planner.job_id, title: 'Logistics Planner' });
    });

    it('leaves out a work_arrangement its sources do not state: alone, in a page, with fields, read again from memory', async () => {
      const dispatcher = byTitle.get('Dispatcher')!;
      expect(byTitle.get('Fleet Manager')!.work_arrangement).to.equal('in_person');
      for (let read = 0; read < 2; read++) {
        const one = await app.api.get<{ data: Job }>(`/v1/jobs/${dispatcher.job_id}`, { key });
        expect(one.body.data.title).to.equal('Dispatcher');
        expect(one.body.data).to.not.have.property('work_arrangement');
        const page = await list('city=chic');
        expect(page.data.find((j) => j.title === 'Dispatcher')).to.not.have.property('work_arrangement');
        const shaped = await list('city=chic&fields=title,work_arrangement');
        expect(shaped.data.find((j) => j.title === 'Dispatcher')).to.deep.equal({ job_id: dispatcher.job_id, title: 'Dispatcher' });
      }
    });

    it('answers a page and a job as JSON in UTF-8, each job of a page as it is alone', async () => {
      const headers = { authorization: `Bearer ${key}` };
      const page = await fetch(`${app.url}/v1/jobs?limit=50`, { headers });
      expect(page.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      const jobs = ((await page.json()) as Page).data;
      expect(jobs).to.have.length.above(1);
      for (const job of jobs) {
        const one = await fetch(`${app.url}/v1/jobs/${job.job_id}`, { headers });
        expect(one.headers.get('content-type')).to.equal('application/json; charset=utf-8');
        expect(((await one.json()) as { data: Job }).data).to.deep.equal(job);
      }
    });

    it('says in Server-Timing how long the catalog took to answer, and metering: every answer is settled before it is sent', async () => {
      for (const path of ['/v1/jobs?q=planner', '/v1/jobs/count', `/v1/jobs/${byTitle.get('Dispatcher')!.job_id}`]) {
        const r = await app.api.get(path, { key });
        expect(r.status).to.equal(200);
        const timing = /^catalog;dur=(\d+\.\d{3}), meter;dur=(\d+\.\d{3})$/.exec(r.headers.get('server-timing') ?? '');
        expect(timing, path).to.not.equal(null);
        expect(Number(timing![1])).to.be.greaterThan(0);
        expect(Number(timing![2])).to.be.greaterThan(0);
      }
    });

    it('answers 404 job_not_found for an id never published', async () => {
      const r = await app.api.get<ErrorBody>('/v1/jobs/00000000-0000-4000-8000-000000000000', { key });
      expect(r.status).to.equal(404);
      expect(r.body.error.code).to.equal('job_not_found');
    });
  });
});
