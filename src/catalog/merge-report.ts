// How good the merge is: pairwise precision and recall of "same job" against the generator's truth.

import { dirname, join, resolve } from 'node:path';
import { runScript, Duck } from '../db/duckdb.js';
import { namedQueries, namedScripts } from '../db/sql-files.js';
import { readDelivery } from './delivery.js';
import { readCatalogManifest, snapshotDir } from './layout.js';
import { classifyTexts, defineMacros, loadSocLexicon } from './publish/stages.js';

const SCRIPTS = namedScripts('publish/report.sql', ['truth', 'published', 'described']);
const QUERIES = namedQueries('publish/report.sql', [
  'pairwise',
  'company_links',
  'worst_splits',
  'worst_merges',
  'occupations',
  'occupation_errors',
  'described_occupations',
  'description_pay',
  'skills',
  'skill_errors',
  'reality',
]);

export interface MergeReport {
  watermark: string;
  postings: number;
  openings: number;
  jobs: number;
  /** Of the posting pairs put in one job, the share that are one opening. */
  precision: number;
  /** Of the posting pairs that are one opening, the share put in one job. */
  recall: number;
  pairs: { true_positive: number; predicted: number; actual: number };
  company_links: { linkable: number; linked_right: number; linked_wrong: number };
  /** Jobs whose postings carry a truth code: how many got it (detailed), its major group, or none. */
  occupations: Accuracy & {
    /** The fallback for a title naming no occupation, measured on every job (a sample at most): its description alone. */
    from_description: Accuracy;
  };
  /**
   * The pay read in descriptions against what they state: of the jobs with one read, how many match a
   * statement of their postings (precision); of the jobs whose postings state one, how many were read
   * right (recall); `alone`: the same over the jobs none of whose postings publishes pay.
   */
  description_pay: { stated: number; extracted: number; right: number; precision: number; recall: number; alone: PayReading };
  /** The skills read in the jobs' descriptions against those the generator wrote (`stated`: written), over `jobs`. */
  skills: PayReading & { jobs: number };
  /**
   * listed_by_employer=false (a ghost job) against the truth: `stated` the true ghosts, `extracted` the jobs
   * flagged; `agreement`: the share of jobs whose value (true, false or null) is the truth's; reposts alike.
   */
  listed_by_employer: PayReading & { jobs: number; agreement: number };
  reposts: { jobs: number; reposted: number; agreement: number };
  examples: {
    split_openings: { opening_id: string; job_ids: string[] }[];
    merged_jobs: { job_id: string; opening_ids: string[] }[];
    occupation_errors: OccupationError[];
    skill_errors: { kind: 'extra' | 'missed'; skill: string; jobs: number }[];
  };
}

interface PayReading {
  stated: number;
  extracted: number;
  right: number;
  precision: number;
  recall: number;
}

/** Precision and recall of a reading: `right` of `extracted`, and of `stated`. */
const reading = (stated: number, extracted: number, right: number): PayReading => ({
  stated,
  extracted,
  right,
  precision: extracted === 0 ? 1 : right / extracted,
  recall: stated === 0 ? 1 : right / stated,
});

interface Accuracy {
  jobs: number;
  detailed: number;
  major: number;
  unclassified: number;
  detailed_accuracy: number;
  major_accuracy: number;
}

/** Of `jobs`, the shares right at the detailed code and at the major group. */
const accuracy = (row: Record<string, number | string | null>): Accuracy => {
  const count = (key: string) => Number(row[key] ?? 0);
  const [jobs, detailed, major] = [count('jobs'), count('detailed'), count('major')];
  const share = (n: number) => (jobs === 0 ? 1 : n / jobs);
  return { jobs, detailed, major, unclassified: count('unclassified'), detailed_accuracy: share(detailed), major_accuracy: share(major) };
};

interface OccupationError {
  truth: string;
  published: string | null;
  jobs: number;
  example: string;
}

/** The postings files of days 1 to `day` of the corpus whose day folder `input` is (day-001, day-002, ...). */
async function deliveriesUpTo(input: string, day: number): Promise<string[]> {
  const root = dirname(resolve(input));
  const days = await Promise.all(
    Array.from({ length: day }, (_, i) => readDelivery(join(root, `day-${String(i + 1).padStart(3, '0')}`)).catch(() => null)),
  );
  return days.flatMap((d) => d?.postingPaths ?? []);
}

/** Compares the publication of the delivery's day with the truth the delivery carries. */
export async function mergeReport(input: string, snapshotsDir: string, examples = 5): Promise<MergeReport> {
  const delivery = await readDelivery(input);
  const watermark = new Date(delivery.manifest.cutoff).toISOString();
  const dir = snapshotDir(snapshotsDir, watermark);
  await readCatalogManifest(dir).catch(() => {
    throw new Error(`the delivery of day ${delivery.manifest.day} (watermark ${watermark}) is not published in ${snapshotsDir}`);
  });
  const duck = await Duck.open();
  try {
    await defineMacros(duck);
    const history = await deliveriesUpTo(input, delivery.manifest.day);
    await runScript(duck, SCRIPTS.truth, { paths: delivery.postingPaths.join('\n'), history: history.join('\n') });
    await runScript(duck, SCRIPTS.published, { dir });
    const p = (await duck.one<Record<string, number | null>>(QUERIES.pairwise))!;
    const num = (v: number | string | null | undefined) => Number(v ?? 0);
    const pairs = { true_positive: num(p.true_positive), predicted: num(p.predicted), actual: num(p.actual) };
    const links = (await duck.one<Record<string, number>>(QUERIES.company_links))!;
    const splits = await duck.all<{ opening_id: string; job_ids: string[] }>(QUERIES.worst_splits, { examples });
    const merges = await duck.all<{ job_id: string; opening_ids: string[] }>(QUERIES.worst_merges, { examples });
    const occupations = accuracy((await duck.one<Record<string, number>>(QUERIES.occupations))!);
    await loadSocLexicon(duck);
    await runScript(duck, SCRIPTS.described, { dir });
    await classifyTexts(duck);
    const fromDescription = accuracy((await duck.one<Record<string, number>>(QUERIES.described_occupations))!);
    const errors = await duck.all<OccupationError>(QUERIES.occupation_errors, { examples });
    const d = (await duck.one<Record<string, number>>(QUERIES.description_pay))!;
    const k = (await duck.one<Record<string, number>>(QUERIES.skills))!;
    const r = (await duck.one<Record<string, number>>(QUERIES.reality))!;
    const agreement = (n: number) => (num(r.jobs) === 0 ? 1 : n / num(r.jobs));
    const skillErrors = await duck.all<{ kind: 'extra' | 'missed'; skill: string; jobs: number }>(QUERIES.skill_errors, { examples });
    return {
      watermark,
      postings: num(p.postings),
      openings: num(p.openings),
      jobs: num(p.jobs),
      precision: pairs.predicted === 0 ? 1 : pairs.true_positive / pairs.predicted,
      recall: pairs.actual === 0 ? 1 : pairs.true_positive / pairs.actual,
      pairs,
      company_links: { linkable: num(links.linkable), linked_right: num(links.linked_right), linked_wrong: num(links.linked_wrong) },
      occupations: { ...occupations, from_description: fromDescription },
      description_pay: {
        ...reading(num(d.stated), num(d.extracted), num(d.right)),
        alone: reading(num(d.stated_alone), num(d.extracted_alone), num(d.right_alone)),
      },
      skills: { jobs: num(k.jobs), ...reading(num(k.written), num(k.extracted), num(k.right)) },
      listed_by_employer: {
        jobs: num(r.jobs),
        ...reading(num(r.ghosts), num(r.flagged), num(r.flagged_right)),
        agreement: agreement(num(r.listed_agree)),
      },
      reposts: { jobs: num(r.jobs), reposted: num(r.reposted), agreement: agreement(num(r.reposts_agree)) },
      examples: {
        split_openings: splits.map((s) => ({ opening_id: s.opening_id, job_ids: s.job_ids })),
        merged_jobs: merges.map((m) => ({ job_id: m.job_id, opening_ids: m.opening_ids })),
        occupation_errors: errors.map((e) => ({ ...e, jobs: num(e.jobs) })),
        skill_errors: skillErrors.map((e) => ({ ...e, jobs: num(e.jobs) })),
      },
    };
  } finally {
    duck.close();
  }
}
