import { expect } from 'chai';
import { canonicalSkill } from '../../src/catalog/reference/skills.js';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCorpus, OutputExistsError } from '../../src/catalog/generator/corpus.js';
import { renderText } from '../../src/catalog/generator/description.js';
import { OpeningState } from '../../src/catalog/generator/opening-state.js';
import { buildPosting } from '../../src/catalog/generator/posting.js';
import { postingJson } from '../../src/catalog/generator/serialise.js';
import { buildWorld } from '../../src/catalog/generator/world.js';
import { tempDir } from '../support/app.js';
import { runCli } from '../support/cli.js';

type Json = Record<string, unknown>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CLASSES = [
  'ats',
  'employer-site',
  'aggregator',
  'staffing-network',
  'government-exchange',
  'dataset',
  'purchased',
  'third-party-api',
  'unknown',
];
const TYPES = ['ats_api', 'ats_html', 'career_page_html', 'jsonld', 'xml_feed', 'aggregator_api', 'aggregator_html', 'rss', 'partner_csv'];
const POSTING_KEYS = [
  'source',
  'board',
  'source_posting_id',
  'source_class',
  'source_type',
  'opening_id',
  'truth_company_id',
  'employer_name',
  'employer_domain',
  'truth_soc_code',
  'truth_description_pay',
  'truth_skills',
  'truth_listed_by_employer',
  'truth_reposts',
  'title',
  'description_text',
  'description_html',
  'locations',
  'work_arrangement',
  'employment_type',
  'pay',
  'posted_at',
  'first_seen_at',
  'posting_url',
  'application_url',
  'attribution',
  'application_check',
  'source_data',
  'raw',
];

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Json;
const readLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Json);
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

function postingsOf(root: string, day: number): Json[] {
  const dir = join(root, `day-${String(day).padStart(3, '0')}`, 'postings');
  return readdirSync(dir)
    .sort()
    .flatMap((file) => readLines(join(dir, file)));
}

function filesOf(root: string, dir = ''): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesOf(root, join(dir, e.name)) : [join(dir, e.name)]))
    .sort();
}

describe('the corpus generator', function () {
  this.timeout(120_000);
  let root: string;
  let corpus: string;
  const options = { jobs: 1200, seed: 5, days: 6, start: '2026-11-18' };

  before(async () => {
    root = await tempDir('generator');
    corpus = join(root, 'corpus');
    await generateCorpus(options, corpus, { workers: 0 });
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('writes the delivery layout of the contract, each file matching its manifest entry', () => {
    const top = readJson(join(corpus, 'manifest.json'));
    expect(top).to.deep.include({ format: 'jps-delivery/1', seed: 5, jobs: 1200, days: 6, start: '2026-11-18' });
    expect(top.days_list).to.deep.equal([1, 2, 3, 4, 5, 6].map((day) => ({ day, path: `day-00${day}` })));
    for (let day = 1; day <= 6; day += 1) {
      const dir = join(corpus, `day-00${day}`);
      const manifest = readJson(join(dir, 'manifest.json'));
      expect(manifest.cutoff).to.equal(`2026-11-${17 + day}T06:00:00.000Z`);
      const reads = manifest.reads as Json;
      expect(readLines(join(dir, 'reads.jsonl'))).to.have.length(reads.rows as number);
      expect(sha256(join(dir, 'reads.jsonl'))).to.equal(reads.sha256);
      for (const entry of manifest.postings as Json[]) {
        const path = join(dir, entry.path as string);
        expect(readLines(path)).to.have.length(entry.rows as number);
        expect(readFileSync(path).length).to.equal(entry.bytes);
        expect(sha256(path)).to.equal(entry.sha256);
        expect(entry.path).to.equal(`postings/${entry.source as string}.jsonl`);
      }
      const withdrawals = manifest.withdrawals as Json;
      expect(sha256(join(dir, 'withdrawals.jsonl'))).to.equal(withdrawals.sha256);
      const release = day === 1 || day === 3;
      expect(manifest.registry === null).to.equal(!release);
      if (release) {
        expect(readJson(join(dir, 'registry', 'release.json'))).to.deep.equal({
          release_id: `r-2026-11-${17 + day}`,
          released_at: `2026-11-${17 + day}T05:00:00.000Z`,
        });
        expect(readLines(join(dir, 'registry', 'companies.jsonl'))).to.have.length((manifest.registry as Json).companies as number);
      }
    }
  });

  it('writes the same bytes for the same arguments, with or without worker threads, and other bytes for another seed', async () => {
    const again = join(root, 'again');
    await generateCorpus(options, again, { workers: 2 });
    const files = filesOf(corpus);
    expect(filesOf(again)).to.deep.equal(files);
    for (const file of files) expect(sha256(join(again, file)), file).to.equal(sha256(join(corpus, file)));
    const other = join(root, 'other');
    await generateCorpus({ ...options, seed: 6, days: 1 }, other, { workers: 0 });
    expect(sha256(join(other, 'day-001/reads.jsonl'))).not.to.equal(sha256(join(corpus, 'day-001/reads.jsonl')));
  });

  it('goes through days already delivered without writing them, and writes the days after byte for byte as a whole run', async () => {
    const dir = join(root, 'passed');
    const handed: number[] = [];
    await generateCorpus(options, dir, { workers: 2, passDays: 4, afterDay: (day) => Promise.resolve(void handed.push(day.day)) });
    expect(handed).to.deep.equal([5, 6]);
    const files = filesOf(dir).filter((file) => file !== 'manifest.json');
    expect(files).to.deep.equal(filesOf(corpus).filter((file) => /^day-00[56]\//.test(file)));
    for (const file of files) expect(sha256(join(dir, file)), file).to.equal(sha256(join(corpus, file)));
  });

  it('with overlap, hands each day to afterDay while the next is generated, in order and one at a time, and fails as afterDay fails', async () => {
    const dir = join(root, 'overlapped');
    const seen: string[] = [];
    let running = 0;
    await generateCorpus(options, dir, {
      workers: 0,
      overlap: true,
      afterDay: async (day, path) => {
        expect(++running).to.equal(1);
        seen.push(`${day.day}:${sha256(join(path, 'reads.jsonl')) === sha256(join(corpus, day.path, 'reads.jsonl'))}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running--;
      },
    });
    expect(seen).to.deep.equal(['1:true', '2:true', '3:true', '4:true', '5:true', '6:true']);
    const failing = generateCorpus({ ...options, days: 3 }, join(root, 'failing'), {
      workers: 0,
      force: true,
      overlap: true,
      afterDay: (day) => (day.day === 2 ? Promise.reject(new Error('day 2 failed')) : Promise.resolve()),
    });
    let failure: unknown;
    await failing.catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('day 2 failed');
  });

  it('refuses a folder that is not empty unless forced, then replaces it', async () => {
    const dir = join(root, 'taken');
    mkdirSync(dir);
    writeFileSync(join(dir, 'keep.txt'), 'x');
    let refused: unknown;
    await generateCorpus({ ...options, days: 1, jobs: 100 }, dir, { workers: 0 }).catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(OutputExistsError);
    await generateCorpus({ ...options, days: 1, jobs: 100 }, dir, { workers: 0, force: true });
    expect(readdirSync(dir).sort()).to.deep.equal(['day-001', 'manifest.json']);
  });

  it('answers the generate command with a JSON summary, and exit code 2 for an occupied folder', async () => {
    const out = join(root, 'cli');
    const first = await runCli(['generate', '--jobs', '300', '--days', '2', '--seed', '9', '--out', out, '--workers', '0', '--json']);
    expect(first.code, first.stderr).to.equal(0);
    expect(JSON.parse(first.stdout)).to.deep.include({ jobs: 300, days: 2, seed: 9 });
    const second = await runCli(['generate', '--jobs', '300', '--out', out]);
    expect(second.code).to.equal(2);
    expect(second.stderr).to.include('--force');
  });

  it('delivers every posting in the raw posting shape, with ids unique within each source', () => {
    for (const day of [1, 6]) {
      const seen = new Set<string>();
      for (const posting of postingsOf(corpus, day)) {
        expect(Object.keys(posting)).to.deep.equal(POSTING_KEYS);
        expect(CLASSES).to.include(posting.source_class);
        expect(TYPES).to.include(posting.source_type);
        expect(posting.opening_id).to.match(/^op-\d{8}$/);
        if (posting.truth_company_id !== null) expect(posting.truth_company_id).to.match(UUID);
        expect(posting.description_text !== null && posting.description_html !== null).to.equal(false);
        expect((posting.locations as string[]).length).to.be.within(0, 3);
        expect((posting.source_data as Json).source_type).to.equal(posting.source_type);
        const pay = posting.pay as Json | null;
        if (pay) expect(Object.keys(pay)).to.deep.equal(['currency', 'min', 'max', 'interval']);
        const key = `${posting.source as string}|${posting.source_posting_id as string}`;
        expect(seen.has(key), key).to.equal(false);
        seen.add(key);
      }
    }
  });

  it('posts each opening one to five times, about 1.6 times on average, first mostly on the employer ATS', () => {
    const byOpening = new Map<string, Json[]>();
    for (const posting of postingsOf(corpus, 1))
      byOpening.set(posting.opening_id as string, [...(byOpening.get(posting.opening_id as string) ?? []), posting]);
    const counts = [...byOpening.values()].map((list) => list.length);
    expect(Math.max(...counts)).to.be.at.most(5);
    const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
    expect(mean).to.be.within(1.4, 1.8);
    expect(counts.filter((c) => c === 1).length / counts.length).to.be.within(0.5, 0.7);
    const world = buildWorld(options);
    const firsts = Array.from({ length: 1200 }, (_, i) => new OpeningState(world, i).slots[0]!.source);
    const atsShare = firsts.filter((s) => s < 10).length / firsts.length;
    expect(atsShare).to.be.within(0.6, 0.8);
  });

  it('writes each posting line exactly as JSON.stringify would', () => {
    const world = buildWorld({ ...options, days: 3 });
    for (let index = 0; index < world.openings.firstIndex[4]!; index += 1) {
      const state = new OpeningState(world, index);
      for (const slot of state.listed(3)) {
        const { posting } = buildPosting(state, slot, 3);
        expect(postingJson(posting)).to.equal(JSON.stringify(posting));
      }
    }
  });

  it('never makes two distinct openings identical: employer, title, place or description tells them apart', () => {
    const world = buildWorld({ ...options, jobs: 2000 });
    const fingerprints = new Map<string, number>();
    for (let i = 0; i < 2000; i += 1) {
      const state = new OpeningState(world, i);
      const { content } = state;
      const place = content.place.cities.map((c) => `${c.name},${c.state},${c.country}`).join(';');
      const key = [content.company.index, state.version(0).ctx.title, place, renderText(state.version(0).blocks, '- ')].join('\u0000');
      expect(fingerprints.has(key), `openings ${fingerprints.get(key)} and ${i}`).to.equal(false);
      fingerprints.set(key, i);
    }
  });

  it('changes over the days: new openings, closures, reposts under a new id, partial reads and closed application checks', () => {
    const ids = (day: number) => new Set(postingsOf(corpus, day).map((p) => p.opening_id as string));
    const [first, last] = [ids(1), ids(6)];
    expect([...last].filter((id) => !first.has(id)).length).to.be.greaterThan(100);
    expect([...first].filter((id) => !last.has(id)).length).to.be.greaterThan(50);
    const reposted = new Map<string, string>();
    for (const p of postingsOf(corpus, 1))
      if (p.source_class === 'ats') reposted.set(`${p.opening_id as string}|${p.source as string}`, p.source_posting_id as string);
    const changed = postingsOf(corpus, 6).filter(
      (p) =>
        p.source_class === 'ats' &&
        reposted.has(`${p.opening_id as string}|${p.source as string}`) &&
        reposted.get(`${p.opening_id as string}|${p.source as string}`) !== p.source_posting_id,
    );
    expect(changed.length).to.be.greaterThan(0);
    const reads = readLines(join(corpus, 'day-002', 'reads.jsonl'));
    const partial = reads.filter((r) => r.complete === false);
    expect(partial.length).to.be.greaterThan(0);
    const listed = new Map<string, number>();
    for (const p of postingsOf(corpus, 2)) listed.set(p.source as string, (listed.get(p.source as string) ?? 0) + 1);
    for (const [source, count] of listed)
      expect(reads.filter((r) => r.source === source).reduce((sum, r) => sum + (r.listed as number), 0)).to.equal(count);
    const checks = postingsOf(corpus, 6).map((p) => (p.application_check as Json | null)?.result);
    for (const result of ['available', 'closed', 'inconclusive']) expect(checks, result).to.include(result);
  });

  it('merges companies at a later registry release: the absorbed one is inactive and points at its acquirer', () => {
    const before = new Map(readLines(join(corpus, 'day-001', 'registry', 'companies.jsonl')).map((c) => [c.company_id as string, c]));
    const after = readLines(join(corpus, 'day-003', 'registry', 'companies.jsonl'));
    const merged = after.filter((c) => c.merged_into !== null);
    expect(merged.length).to.be.greaterThan(0);
    for (const company of merged) {
      expect(company.status).to.equal('inactive');
      expect(before.get(company.company_id as string)?.merged_into).to.equal(null);
      expect(after.some((c) => c.company_id === company.merged_into)).to.equal(true);
    }
    expect(after.length).to.be.greaterThan(before.size);
    for (const company of after) expect(company.company_id).to.match(UUID);
  });

  it('writes text that searches like real text: common words in most descriptions, skills in few', () => {
    const texts = postingsOf(corpus, 1).map((p) => ((p.description_text ?? p.description_html ?? '') as string).toLowerCase());
    const share = (word: string) => texts.filter((t) => new RegExp(`\\b${word}\\b`).test(t)).length / texts.length;
    expect(share('experience')).to.be.greaterThan(0.4);
    expect(share('team')).to.be.greaterThan(0.5);
    expect(share('kubernetes')).to.be.within(0.001, 0.15);
    const vocabulary = new Set(texts.join(' ').match(/\p{L}[\p{L}'-]+/gu));
    expect(vocabulary.size).to.be.greaterThan(3000);
  });

  it('records as truth the vocabulary skills each description shows whole, and leaves no mark of them in the text', () => {
    const postings = postingsOf(corpus, 1);
    let truncated = 0;
    for (const posting of postings) {
      const text = (posting.description_text ?? posting.description_html ?? '') as string;
      const skills = posting.truth_skills as string[];
      expect(text.includes('\u0002') || text.includes('\u0003'), 'a skill mark left in the text').to.equal(false);
      expect(skills).to.deep.equal([...skills].sort());
      for (const skill of skills) {
        expect(canonicalSkill(skill), skill).to.equal(skill);
        expect(text.toLowerCase(), skill).to.include(skill.toLowerCase().replace(/&/g, posting.description_html ? '&amp;' : '&'));
      }
      if (text.endsWith('...')) truncated += 1;
    }
    const withSkills = postings.filter((p) => (p.truth_skills as string[]).length > 0).length;
    expect(withSkills / postings.length).to.be.greaterThan(0.6);
    expect(truncated).to.be.greaterThan(10);
  });

  it('pays in the currency of the country, hourly occupations by the hour, and leaves pay out of many postings', () => {
    const postings = postingsOf(corpus, 1);
    const currencies = new Set(postings.map((p) => (p.pay as Json | null)?.currency).filter(Boolean));
    for (const currency of ['USD', 'CAD', 'GBP', 'EUR', 'INR']) expect([...currencies]).to.include(currency);
    const cashiers = postings.filter((p) => /cashier/i.test(p.title as string) && p.pay && (p.pay as Json).currency === 'USD');
    for (const p of cashiers) expect((p.pay as Json).max ?? (p.pay as Json).min).to.be.below(60);
    const unpaid = postings.filter((p) => p.pay === null).length / postings.length;
    expect(unpaid).to.be.within(0.3, 0.6);
  });
});
