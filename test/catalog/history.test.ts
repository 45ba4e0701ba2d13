import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { latestPointer, readPointer, snapshotDir } from '../../src/catalog/layout.js';
import { publish } from '../../src/catalog/publish/publish.js';
import { Duck } from '../../src/db/duckdb.js';
import { tempDir } from '../support/app.js';

type Json = Record<string, unknown>;
interface Read {
  source: string;
  board: string;
  started_at: string;
  finished_at: string;
  complete: boolean;
}

// The bands docs/corpus.md gives for a first delivery (day 1) and the day after: shares of all published jobs,
// stale as a share of current jobs.
const BANDS = {
  stale: [0.07, 0.16],
  uncertain: [0.03, 0.09],
  notCurrent: { 1: [0.02, 0.06], 2: [0.03, 0.09] } as Record<number, number[]>,
};

const readLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Json);
const ms = (text: unknown) => Date.parse(text as string);
const dayDir = (root: string, day: number) => join(root, `day-${String(day).padStart(3, '0')}`);

function postingsOf(root: string, day: number): Json[] {
  const dir = join(dayDir(root, day), 'postings');
  return readdirSync(dir)
    .sort()
    .flatMap((file) => readLines(join(dir, file)));
}

describe('the history a generated corpus starts with', function () {
  this.timeout(180_000);
  const options = { jobs: 5000, seed: 11, days: 2, start: '2026-11-18' };
  let root: string;
  let corpus: string;
  let dirs: { snapshotsDir: string; dataDir: string };
  const shares = new Map<number, { stale: number; uncertain: number; notCurrent: number }>();
  const snapshotViolations = new Map<number, Json>();

  /** Shares of currentness and the postings whose times are out of order in the latest snapshot. */
  async function inspect(day: number): Promise<void> {
    const watermark = (await readPointer(latestPointer(dirs.snapshotsDir)))!;
    const jobs = join(snapshotDir(dirs.snapshotsDir, watermark), 'jobs*.parquet');
    const duck = await Duck.open();
    try {
      const [counts] = await duck.all<Record<string, number>>(
        `SELECT count(*)::INT AS jobs, count(*) FILTER (WHERE currentness = 'current')::INT AS current, count(*) FILTER (WHERE stale)::INT AS stale,
                count(*) FILTER (WHERE currentness = 'uncertain')::INT AS uncertain, count(*) FILTER (WHERE currentness = 'not_current')::INT AS not_current
         FROM read_parquet('${jobs}')`,
      );
      shares.set(day, {
        stale: counts!.stale! / counts!.current!,
        uncertain: counts!.uncertain! / counts!.jobs!,
        notCurrent: counts!.not_current! / counts!.jobs!,
      });
      const at = `TIMESTAMPTZ '${watermark}'`;
      const [violations] = await duck.all<Json>(
        `SELECT count(*) FILTER (WHERE p.posted_at > p.first_seen_at)::INT AS posted_after_first_seen,
                count(*) FILTER (WHERE p.first_seen_at > ${at} OR p.last_fetch_at > ${at})::INT AS after_watermark,
                count(*) FILTER (WHERE p.application_check.checked_at < p.first_seen_at OR p.application_check.checked_at > ${at})::INT AS check_outside,
                count(*) FILTER (WHERE j.job_first_seen_at > p.first_seen_at)::INT AS job_seen_after_posting,
                list(p.source || '|' || p.source_posting_id) FILTER (WHERE p.first_seen_at > p.last_fetch_at) AS seen_after_fetch
         FROM read_parquet('${jobs}') j, unnest(j.postings) AS t(p)`,
      );
      snapshotViolations.set(day, violations!);
    } finally {
      duck.close();
    }
  }

  before(async () => {
    root = await tempDir('history');
    corpus = join(root, 'corpus');
    dirs = { snapshotsDir: join(root, 'snapshots'), dataDir: join(root, 'data') };
    await generateCorpus(options, corpus, { workers: 0 });
    for (let day = 1; day <= options.days; day += 1) {
      await publish({ input: dayDir(corpus, day), ...dirs, quiet: true, memoryLimit: '1GB' });
      await inspect(day);
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('never delivers a posting before it was posted or seen: posted_at ≤ first_seen_at ≤ the read that returned it, checks after first seen', () => {
    const firstSeen = new Map<string, string>();
    let checked = 0;
    for (let day = 1; day <= options.days; day += 1) {
      const cutoff = ms(`2026-11-${17 + day}T06:00:00.000Z`);
      const reads = new Map(
        readLines(join(dayDir(corpus, day), 'reads.jsonl')).map((r) => [
          `${r.source as string}|${r.board as string}`,
          r as unknown as Read,
        ]),
      );
      for (const read of reads.values())
        expect(ms(read.started_at) < ms(read.finished_at) && ms(read.finished_at) <= cutoff, JSON.stringify(read)).to.equal(true);
      for (const p of postingsOf(corpus, day)) {
        const id = `${p.source as string}|${p.board as string}|${p.source_posting_id as string}`;
        const read = reads.get(`${p.source as string}|${p.board as string}`)!;
        const seen = ms(p.first_seen_at);
        if (p.posted_at !== null) expect(ms(p.posted_at), `${id} posted after first seen`).to.be.at.most(seen);
        expect(seen, `${id} first seen after the read that returned it`).to.be.at.most(ms(read.started_at));
        const check = p.application_check as Json | null;
        if (check) expect(ms(check.checked_at), `${id} checked before first seen or after the cut-off`).to.be.within(seen, cutoff);
        expect(firstSeen.get(id) ?? p.first_seen_at, `${id} first seen changes`).to.equal(p.first_seen_at);
        firstSeen.set(id, p.first_seen_at as string);
        checked += 1;
      }
      const delivered = new Map(postingsOf(corpus, day).map((p) => [`${p.source as string}|${p.source_posting_id as string}`, p]));
      for (const w of readLines(join(dayDir(corpus, day), 'withdrawals.jsonl'))) {
        expect(ms(w.requested_at), JSON.stringify(w)).to.be.within(
          ms(delivered.get(`${w.source as string}|${w.source_posting_id as string}`)!.first_seen_at),
          cutoff,
        );
      }
    }
    expect(checked).to.be.greaterThan(12_000);
  });

  it('starts with postings first seen up to months before day 1, the same posting keeping its first sighting', () => {
    const day1 = ms('2026-11-18T06:00:00.000Z');
    const ages = postingsOf(corpus, 1).map((p) => (day1 - ms(p.first_seen_at)) / 86_400_000);
    expect(Math.max(...ages)).to.be.within(100, 125);
    expect(ages.filter((age) => age > 60).length / ages.length).to.be.within(0.05, 0.2);
    expect(ages.filter((age) => age < 1).length / ages.length).to.be.within(0.01, 0.1);
  });

  it('publishes stale, uncertain and not_current jobs in the bands docs/corpus.md gives, day after day', () => {
    for (const [day, share] of shares) {
      expect(share.stale, `day ${day} stale share of current jobs`).to.be.within(BANDS.stale[0]!, BANDS.stale[1]!);
      expect(share.uncertain, `day ${day} uncertain share`).to.be.within(BANDS.uncertain[0]!, BANDS.uncertain[1]!);
      expect(share.notCurrent, `day ${day} not_current share`).to.be.within(BANDS.notCurrent[day]![0]!, BANDS.notCurrent[day]![1]!);
    }
  });

  it('publishes times in order: posted ≤ first seen ≤ watermark, checks after first seen, first seen ≤ last fetch unless first seen by a partial read', () => {
    // A posting first returned by a partial read after its board's last complete read was seen after that fetch.
    const firstRead = new Map<string, boolean>();
    for (let day = 1; day <= options.days; day += 1) {
      const complete = new Map(
        readLines(join(dayDir(corpus, day), 'reads.jsonl')).map((r) => [
          `${r.source as string}|${r.board as string}`,
          r.complete as boolean,
        ]),
      );
      for (const p of postingsOf(corpus, day)) {
        const id = `${p.source as string}|${p.source_posting_id as string}`;
        if (!firstRead.has(id)) firstRead.set(id, complete.get(`${p.source as string}|${p.board as string}`)!);
      }
    }
    for (const [day, violations] of snapshotViolations) {
      const { seen_after_fetch: seenAfterFetch, ...counts } = violations;
      expect(counts, `day ${day}`).to.deep.equal({
        posted_after_first_seen: 0,
        after_watermark: 0,
        check_outside: 0,
        job_seen_after_posting: 0,
      });
      for (const id of (seenAfterFetch as string[] | null) ?? [])
        expect(firstRead.get(id), `${id} first seen after its last fetch`).to.equal(false);
    }
  });
});
