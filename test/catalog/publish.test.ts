import { expect } from 'chai';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Duck } from '../../src/db/duckdb.js';
import { publish, type PublishSummary } from '../../src/catalog/publish/publish.js';
import { jobParts } from '../../src/catalog/publish/stages.js';
import { latestPointer, readPointer, snapshotDir, activePointer } from '../../src/catalog/layout.js';
import { rename, writeFile } from 'node:fs/promises';
import { startTestApp, tempDir } from '../support/app.js';
import { cutoffOf, writeDay, type TestDay, type TestPosting } from '../support/delivery.js';

interface Job {
  job_id: string;
  currentness: string;
  stale: boolean;
  job_first_seen_at: string;
  title: string;
  company_id: string | null;
  job_updated_at: string;
  curated_at: string;
  postings: { posting_id: string; source: string; status: string; source_posting_id: string; first_seen_at: string }[];
  locations: { city: string | null; state: string | null; country: string | null; msa: { cbsa_code: string } | null }[];
}
interface Event {
  seq: number;
  type: string;
  job_id: string;
}

/** DuckDB's JSON form of a TIMESTAMPTZ ("2026-11-02 06:00:00+00") as RFC 3339. */
const iso = (value: string) => new Date(value.replace(' ', 'T').replace(/\+00$/, 'Z')).toISOString();
const ats = (id: string, opening: string, extra: Partial<TestPosting> = {}): TestPosting => ({
  source: 'greenhouse',
  board: 'northwind',
  id,
  opening,
  ...extra,
});
const agg = (id: string, opening: string, extra: Partial<TestPosting> = {}): TestPosting => ({
  source: 'indeed',
  board: 'northwind',
  id,
  opening,
  ...extra,
});
const OTHER =
  'Northwind Logistics moves freight across North America. You will lead our warehouse team in Denver. You will hire and coach twelve associates. Forklift certification is a plus. We offer health insurance and a retirement plan.';

describe('publish', function () {
  this.timeout(60_000);
  let root: string;
  let snapshotsDir: string;
  let dataDir: string;

  beforeEach(async () => {
    root = await tempDir('publish');
    snapshotsDir = join(root, 'snapshots');
    dataDir = join(root, 'data');
  });

  async function day(n: number, spec: TestDay): Promise<PublishSummary> {
    const dir = await writeDay(join(root, 'delivery'), n, spec);
    return publish({ input: dir, snapshotsDir, dataDir, quiet: true, memoryLimit: '1GB' });
  }

  async function read<T>(file: string, where = ''): Promise<T[]> {
    const latest = (await readPointer(latestPointer(snapshotsDir)))!;
    const duck = await Duck.open();
    try {
      return await duck.all<T>(`SELECT * FROM read_parquet('${join(snapshotDir(snapshotsDir, latest), file)}') ${where}`);
    } finally {
      duck.close();
    }
  }
  const jobs = () => read<Job>('jobs*.parquet', 'ORDER BY title, job_id');
  const events = () => read<Event>('events.parquet', 'ORDER BY seq');

  it('merges copies of one opening into one job and keeps distinct openings apart', async () => {
    const summary = await day(1, {
      postings: [
        ats('1', 'A'),
        agg('x1', 'A', { title: 'Logistics Planner (R-2231)', locations: ['Chicago, Illinois'] }),
        ats('2', 'B', { title: 'Warehouse Lead', description: OTHER, locations: ['Denver, CO'] }),
      ],
    });
    expect(summary.status).to.equal('published');
    expect(summary.watermark).to.equal(cutoffOf(1));
    const published = await jobs();
    expect(published).to.have.length(2);
    const planner = published.find((j) => j.title === 'Logistics Planner')!;
    expect(planner.postings.map((p) => p.source).sort()).to.deep.equal(['greenhouse', 'indeed']);
    expect(planner.currentness).to.equal('current');
    expect(planner.locations[0]).to.deep.include({ city: 'Chicago', state: 'IL', country: 'US' });
    expect(planner.locations[0]!.msa?.cbsa_code).to.equal('16980');
    expect((await events()).map((e) => e.type)).to.deep.equal(['created', 'created']);
    expect(await readPointer(latestPointer(snapshotsDir))).to.equal(cutoffOf(1));
  });

  it('keeps job ids across publications and emits exactly the differences', async () => {
    await day(1, { postings: [ats('1', 'A'), ats('2', 'B', { title: 'Warehouse Lead', description: OTHER })] });
    const [planner1, lead1] = await jobs();
    await day(2, {
      postings: [
        ats('1', 'A', { pay: { currency: 'USD', min: 65000, max: 80000, interval: 'YEAR' } }),
        ats('2', 'B', { title: 'Warehouse Lead', description: OTHER }),
      ],
    });
    const [planner2, lead2] = await jobs();
    expect(planner2!.job_id).to.equal(planner1!.job_id);
    expect(lead2!.job_id).to.equal(lead1!.job_id);
    expect(iso(planner2!.job_updated_at)).to.equal(cutoffOf(2));
    expect(lead2!.job_updated_at).to.equal(lead1!.job_updated_at);
    expect(planner2!.curated_at).to.equal(planner1!.curated_at);
    expect((await events()).map((e) => [Number(e.seq), e.type, e.job_id])).to.deep.equal([[3, 'updated', planner1!.job_id]]);
  });

  it('marks a posting no longer listed after a complete read misses it, and expires the job', async () => {
    await day(1, { postings: [ats('1', 'A'), ats('2', 'B', { title: 'Warehouse Lead', description: OTHER })] });
    await day(2, { postings: [ats('2', 'B', { title: 'Warehouse Lead', description: OTHER })] });
    const planner = (await jobs()).find((j) => j.title === 'Logistics Planner')!;
    expect(planner.postings[0]!.status).to.equal('no_longer_listed');
    expect(planner.currentness).to.equal('not_current');
    const evs = await events();
    expect(evs.map((e) => [e.type, e.job_id])).to.deep.equal([['expired', planner.job_id]]);
  });

  it('keeps a posting listed when its board was read only partly', async () => {
    await day(1, { postings: [ats('1', 'A'), ats('2', 'B', { title: 'Warehouse Lead', description: OTHER })] });
    await day(2, {
      reads: [{ source: 'greenhouse', board: 'northwind', complete: false }],
      postings: [ats('2', 'B', { title: 'Warehouse Lead', description: OTHER })],
    });
    expect((await jobs()).map((j) => j.currentness)).to.deep.equal(['current', 'current']);
    expect(await events()).to.deep.equal([]);
  });

  it('is uncertain when no completed read has listed it', async () => {
    await day(1, { reads: [{ source: 'greenhouse', board: 'northwind', complete: false }], postings: [ats('1', 'A')] });
    expect((await jobs())[0]!.currentness).to.equal('uncertain');
  });

  it('takes a posting first seen before its first delivery from the collectors, never later than the read: a job seen 70 days ago is stale', async () => {
    const seventyDaysAgo = new Date(Date.parse(cutoffOf(1)) - 70 * 86_400_000).toISOString();
    await day(1, {
      postings: [
        ats('1', 'A', { first_seen_at: seventyDaysAgo }),
        ats('2', 'B', { title: 'Warehouse Lead', description: OTHER, first_seen_at: cutoffOf(3) }),
      ],
    });
    const [planner, lead] = await jobs();
    expect(iso(planner!.job_first_seen_at)).to.equal(seventyDaysAgo);
    expect(iso(planner!.postings[0]!.first_seen_at)).to.equal(seventyDaysAgo);
    expect([planner!.currentness, planner!.stale]).to.deep.equal(['current', true]);
    const read = new Date(Date.parse(cutoffOf(1)) - 3_600_000).toISOString();
    expect(iso(lead!.job_first_seen_at)).to.equal(read);
    expect(lead!.stale).to.equal(false);
    await day(2, {
      postings: [ats('1', 'A', { first_seen_at: cutoffOf(1) }), ats('2', 'B', { title: 'Warehouse Lead', description: OTHER })],
    });
    expect((await jobs()).map((j) => iso(j.job_first_seen_at))).to.deep.equal([seventyDaysAgo, read]);
  });

  it('merges two existing jobs when a late copy links them: the first seen survives, the other redirects', async () => {
    const weak = agg('x1', 'A', { description: 'Plan routes. Apply now...', title: 'Logistics Planner' });
    await day(1, { postings: [ats('1', 'A')] });
    await day(2, { postings: [ats('1', 'A'), weak] });
    const before = await jobs();
    expect(before).to.have.length(2);
    const survivor = before.find((j) => j.postings[0]!.source === 'greenhouse')!;
    const absorbed = before.find((j) => j.postings[0]!.source === 'indeed')!;
    await day(3, { postings: [ats('1', 'A'), agg('x1', 'A')] });
    const after = await jobs();
    expect(after.map((j) => j.job_id)).to.deep.equal([survivor.job_id]);
    expect(after[0]!.postings).to.have.length(2);
    const redirects = await read<{ from_job_id: string; to_job_id: string }>('redirects.parquet');
    expect(redirects.map((r) => [r.from_job_id, r.to_job_id])).to.deep.equal([[absorbed.job_id, survivor.job_id]]);
    const evs = await events();
    expect(evs.map((e) => [e.type, e.job_id]).sort()).to.deep.equal(
      [
        ['expired', absorbed.job_id],
        ['updated', survivor.job_id],
      ].sort(),
    );
  });

  it('classifies a job whose title names no occupation by the one its description names, and leaves a mention alone', async () => {
    const cashier =
      'Harbor Foods is adding a Cashier to its Denver store. You will greet guests and handle payments. ' +
      'One year of experience as a Cashier or in a similar role is a plus.';
    await day(1, {
      postings: [
        ats('1', 'A', { title: 'Team Member (Store 1234)', description: cashier }),
        ats('2', 'B', { title: 'Crew Associate', description: OTHER }),
        ats('3', 'C', { title: 'Registered Nurse', description: cashier }),
      ],
    });
    const occupations = (await jobs()).map((j) => [j.title, (j as Job & { occupation: { soc_code: string } | null }).occupation]);
    expect(occupations).to.deep.equal([
      ['Crew Associate', null],
      ['Registered Nurse', { soc_code: '29-1141', title: 'Registered Nurses' }],
      ['Team Member (Store 1234)', { soc_code: '41-2011', title: 'Cashiers' }],
    ]);
  });

  it('tells whether the employer still lists a job, how often it reposted it, how long it is open and when a read last listed it', async () => {
    type Reality = Job & { listed_by_employer: boolean | null; reposts: number; days_open: number; last_verified_at: string };
    const reads = [
      { source: 'greenhouse', board: 'northwind' },
      { source: 'indeed', board: 'northwind' },
    ];
    const reality = async () =>
      (await jobs()).map((j) => {
        const r = j as Reality;
        return [r.title, r.listed_by_employer, r.reposts, r.days_open, iso(r.last_verified_at) < cutoffOf(9)];
      });
    const onlyAggregators = agg('x2', 'B', { title: 'Warehouse Lead', description: OTHER });
    await day(1, { postings: [ats('1', 'A'), agg('x1', 'A'), onlyAggregators] });
    // Posted 2026-10-30 12:00, listed by the complete reads of 2026-11-01 (the day-1 delivery).
    const [planner] = (await jobs()) as Reality[];
    const daysOpen = Math.floor((Date.parse(iso(planner!.last_verified_at)) - Date.parse('2026-10-30T12:00:00Z')) / 86_400_000);
    expect(await reality()).to.deep.equal([
      ['Logistics Planner', true, 0, daysOpen, true],
      ['Warehouse Lead', null, 0, daysOpen, true],
    ]);
    // Day 2: the employer's board, read completely, no longer lists it; the aggregator still does (a ghost job).
    await day(2, { reads, postings: [agg('x1', 'A'), onlyAggregators] });
    expect((await jobs()).map((j) => [j.title, j.currentness, (j as Reality).listed_by_employer, (j as Reality).days_open])).to.deep.equal([
      ['Logistics Planner', 'current', false, daysOpen + 1],
      ['Warehouse Lead', 'current', null, daysOpen + 1],
    ]);
    const app = await startTestApp({ snapshotsDir });
    try {
      const { key } = await app.account();
      const titles = async (query: string) =>
        ((await app.api.get<{ data: Job[] }>(`/v1/jobs?${query}&fields=title,listed_by_employer`, { key })).body.data ?? []).map(
          (j) => j.title,
        );
      expect(await titles('listed_by_employer=false')).to.deep.equal(['Logistics Planner']);
      expect(await titles('listed_by_employer=true')).to.deep.equal([]);
      expect(await titles(`days_open_min=${daysOpen + 1}&days_open_max=${daysOpen + 1}`)).to.have.length(2);
      expect(await titles(`days_open_max=${daysOpen}`)).to.deep.equal([]);
      expect(await titles(`verified_since=${cutoffOf(2).slice(0, 10)}`)).to.have.length(2);
      expect(await titles('reposts_min=1')).to.deep.equal([]);
    } finally {
      await app.close();
    }
    // Day 3: the employer posts it again under a new id.
    await day(3, { reads, postings: [ats('2', 'A'), agg('x1', 'A'), onlyAggregators] });
    expect((await jobs()).map((j) => [j.title, (j as Reality).listed_by_employer, (j as Reality).reposts])).to.deep.equal([
      ['Logistics Planner', true, 1],
      ['Warehouse Lead', null, 0],
    ]);
  });

  it('remembers withdrawn jobs and never publishes them again', async () => {
    await day(1, { postings: [ats('1', 'A'), agg('x1', 'A')] });
    const [job] = await jobs();
    await day(2, { postings: [ats('1', 'A'), agg('x1', 'A')], withdrawals: [{ source: 'indeed', id: 'x1', reason: 'spam' }] });
    expect(await jobs()).to.deep.equal([]);
    expect((await read<{ job_id: string; reason: string }>('withdrawn.parquet')).map((w) => [w.job_id, w.reason])).to.deep.equal([
      [job!.job_id, 'spam'],
    ]);
    expect((await events()).map((e) => e.type)).to.deep.equal(['expired']);
    await day(3, { postings: [ats('1', 'A'), agg('x1', 'A')] });
    expect(await jobs()).to.deep.equal([]);
  });

  for (const [format, lacks] of [
    ['jps-catalog/1', ['occupation', 'description_pay', 'skills']],
    ['jps-catalog/2', ['skills']],
  ] as const)
    it(`serves and publishes after a snapshot of format ${format}, whose jobs have no ${lacks.join(', ')}`, async () => {
      await day(1, { postings: [ats('1', 'A'), ats('2', 'B', { title: 'Warehouse Associate', description: OTHER })] });
      // What the publisher of that format wrote: the jobs files without the later columns.
      const first = snapshotDir(snapshotsDir, cutoffOf(1));
      const duck = await Duck.open();
      try {
        for (const file of (await readdir(first)).filter((f) => f.startsWith('jobs'))) {
          const older = `SELECT * EXCLUDE (${lacks.join(', ')}) FROM read_parquet('${join(first, file)}')`;
          await duck.run(`COPY (${older}) TO '${join(first, 'old.parquet')}'`);
          await rename(join(first, 'old.parquet'), join(first, file));
        }
      } finally {
        duck.close();
      }
      const manifest = JSON.parse(await readFile(join(first, 'manifest.json'), 'utf8')) as { format: string };
      await writeFile(join(first, 'manifest.json'), JSON.stringify({ ...manifest, format }));

      const app = await startTestApp({ snapshotsDir });
      try {
        const { key } = await app.account();
        const groups = async (by: string) =>
          (await app.api.get<{ count: number; groups: unknown[] }>(`/v1/jobs/count?group_by=${by}`, { key })).body;
        expect(await groups('skills')).to.deep.include({ count: 2, groups: [{ value: null, count: 2 }] });
        if (format === 'jps-catalog/1')
          expect(await groups('soc_major')).to.deep.include({ count: 2, groups: [{ value: null, count: 2 }] });
      } finally {
        await app.close();
      }

      // The next publication: job B withdrawn, its event carries its last row, in this format, without the later columns.
      await day(2, {
        postings: [ats('1', 'A'), ats('3', 'C', { title: 'Registered Nurse', description: OTHER.replace('warehouse', 'ward') })],
        withdrawals: [{ source: 'greenhouse', id: '2', reason: 'spam' }],
      });
      const [gone] = await read<{ type: string; job: Record<string, unknown> }>('events.parquet', "WHERE type = 'expired'");
      expect(gone!.job).to.deep.include({ title: 'Warehouse Associate', skills: null });
      if (format === 'jps-catalog/1') expect(gone!.job).to.deep.include({ occupation: null });
      const occupations = (await jobs()).map((j) => [
        j.title,
        (j as Job & { occupation: { soc_code: string } | null }).occupation?.soc_code,
      ]);
      expect(occupations).to.deep.equal([
        ['Logistics Planner', undefined],
        ['Registered Nurse', '29-1141'],
      ]);
    });

  it('answers a rerun of the published day with nothing to do, and refuses an older day', async () => {
    await day(2, { postings: [ats('1', 'A')] });
    expect((await day(2, { postings: [ats('1', 'A')] })).status).to.equal('already_published');
    let refused: Error | undefined;
    try {
      await day(1, { postings: [ats('1', 'A')] });
    } catch (error) {
      refused = error as Error;
    }
    expect(refused?.message).to.include('older than the latest publication');
  });

  it('never writes the ground truth, board ids or raw payloads into the snapshot', async () => {
    await day(1, { postings: [ats('1', 'A', { company: '11111111-1111-4111-8111-111111111111' })] });
    const latest = snapshotDir(snapshotsDir, cutoffOf(1));
    const duck = await Duck.open();
    try {
      for (const file of (await readdir(latest)).filter((f) => f.endsWith('.parquet'))) {
        const text = JSON.stringify(await duck.all(`SELECT * FROM read_parquet('${join(latest, file)}')`));
        expect(text, file).not.to.match(/opening_id|truth_|"board"|secret_internal|northwind"/);
      }
    } finally {
      duck.close();
    }
    const manifest = JSON.parse(await readFile(join(latest, 'manifest.json'), 'utf8')) as { counts: { jobs: number } };
    expect(manifest.counts.jobs).to.equal(1);
  });

  it('publishes a registry release and links jobs to companies, following acquisitions', async () => {
    const acme = '22222222-2222-4222-8222-222222222222';
    const northwind = '33333333-3333-4333-8333-333333333333';
    await day(1, {
      postings: [ats('1', 'A')],
      registry: {
        release_id: 'r-1',
        companies: [
          { company_id: northwind, name: 'Northwind Logistics', domain: 'northwind-logistics.com', merged_into: acme },
          { company_id: acme, name: 'Acme Holdings', domain: 'acme.example' },
        ],
      },
    });
    expect(await readPointer(activePointer(snapshotsDir))).to.equal('r-1');
    expect((await jobs())[0]!.company_id).to.equal(acme);
    const duck = await Duck.open();
    try {
      const companies = await duck.all<{ company_id: string; merged_ids: string[] }>(
        `SELECT * FROM read_parquet('${join(snapshotsDir, 'registry', 'r-1', 'companies.parquet')}')`,
      );
      expect(companies.map((c) => [c.company_id, c.merged_ids])).to.deep.equal([[acme, [northwind]]]);
    } finally {
      duck.close();
    }
  });
});

describe('the parts the jobs are built in', () => {
  it('follow the live postings and the memory DuckDB may use: 300,000 a part at 4 GB', () => {
    expect(jobParts(1_000, '4GB')).to.equal(1);
    expect(jobParts(1_742_931, '4GB')).to.equal(6);
    expect(jobParts(1_742_931, '8GB')).to.equal(3);
    expect(jobParts(200_000, '1GB')).to.equal(3);
    expect(jobParts(200_000, '512MB')).to.equal(6);
    expect(jobParts(200_000, '2.5 GiB')).to.equal(2);
    // A size it cannot read counts as the default.
    expect(jobParts(1_742_931, 'lots')).to.equal(6);
  });
});
