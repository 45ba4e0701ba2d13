// The catalog under benchmark: a generated corpus (kept in bench/.cache/ between runs, since the
// same arguments always give the same bytes) and its publication, timed, with its peak memory.

import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Calendar } from '../src/catalog/generator/calendar.js';
import { generateCorpus, GENERATOR_REVISION } from '../src/catalog/generator/corpus.js';
import { DEFAULT_START } from '../src/catalog/generator/options.js';
import { CATALOG_FORMAT, latestPointer, readPointer } from '../src/catalog/layout.js';
import { runCliJson, ROOT } from './cli.js';

/** Whether `corpus` holds a corpus this generator revision wrote (same arguments, same bytes). */
export function corpusIsCurrent(corpus: string): boolean {
  const manifest = join(corpus, 'manifest.json');
  return existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { generator?: number }).generator === GENERATOR_REVISION;
}

/** The watermark a day of the corpus publishes as: its cutoff. */
async function cutoff(day: string): Promise<string> {
  return (JSON.parse(await readFile(join(day, 'manifest.json'), 'utf8')) as { cutoff: string }).cutoff;
}

export interface CatalogRun {
  corpus: string;
  snapshotsDir: string;
  dataDir: string;
  generate_s: number | null;
  publish: { duration_s: number; peak_rss_gib: number; jobs: number; postings: number };
  merge: { precision: number; recall: number };
}

/**
 * Publishes the corpus of (jobs, seed, days) into a fresh folder, each day as soon as the generator has
 * written it. A one-day corpus is kept and published again by the next run. Of a corpus of several days,
 * generated afresh, each day but the last (which merge-report reads) is removed once published: 30 days
 * of a million jobs would take over 100 GB of disk at once. The figures are the last day's; the trends
 * scenario reads the history of all.
 *
 * A run of several days stopped part way (30 days of a million jobs take hours) goes on where it stopped:
 * when the run's folder was made for the same corpus, the generator goes through the days its
 * publications already hold without writing them (passDays: the boards they saw, not their postings),
 * and writes the next as a whole run would.
 */
export async function benchCatalog(jobs: number, seed: number, days = 1): Promise<CatalogRun> {
  const cache = join(ROOT, 'bench', '.cache');
  const corpus = join(cache, `corpus-${jobs}-seed${seed}${days > 1 ? `-days${days}` : ''}`);
  const run = join(cache, `run-${jobs}${days > 1 ? `-days${days}` : ''}`);
  const dirs = { snapshotsDir: join(run, 'snapshots'), dataDir: join(run, 'data') };
  // What makes the run's publications: a run made otherwise is not gone on with.
  const identity = JSON.stringify({ jobs, seed, days, start: DEFAULT_START, generator: GENERATOR_REVISION, format: CATALOG_FORMAT });
  const resumed = days > 1 && (await readFile(join(run, 'run.json'), 'utf8').catch(() => null)) === identity;
  if (!resumed) {
    await rm(run, { recursive: true, force: true });
    await mkdir(run, { recursive: true });
    await writeFile(join(run, 'run.json'), identity);
  }
  const published = resumed ? await readPointer(latestPointer(dirs.snapshotsDir)) : null;
  const calendar = new Calendar(DEFAULT_START);
  // The last day is always written: merge-report reads it.
  let passDays = 0;
  while (published !== null && passDays < days - 1 && calendar.cutoff(passDays + 1) <= Date.parse(published)) passDays++;
  if (published !== null)
    process.stderr.write(`going on with ${run}: published up to ${published}; days 1-${passDays} gone through without writing them\n`);
  // A run gone on with whose days were all published already publishes nothing: no figures.
  let summary = { duration_s: NaN, peak_rss_gib: NaN, counts: { jobs: NaN, postings: NaN } };
  // The days before the last go out without serving files, which a trend never reads: the server builds
  // them into its cache as it opens those publications (the feed's), as for publications made before them.
  const publish = async (day: string, servingFiles = true) => {
    process.stderr.write(`publishing ${day}${servingFiles ? '' : ' (without serving files)'} ...\n`);
    summary = (await runCliJson([
      'publish',
      '--input',
      day,
      '--snapshots-dir',
      dirs.snapshotsDir,
      '--data-dir',
      dirs.dataDir,
      ...(servingFiles ? [] : ['--skip-serving-files']),
    ])) as typeof summary;
  };
  const dayDir = (d: number) => join(corpus, `day-${String(d).padStart(3, '0')}`);
  let generate_s: number | null = null;
  if (days > 1 || !corpusIsCurrent(corpus)) {
    process.stderr.write(`generating ${jobs.toLocaleString('en-US')} jobs over ${days} day(s) into ${corpus}, publishing each day ...\n`);
    const started = performance.now();
    let publishing = 0;
    await generateCorpus({ jobs, seed, days, start: DEFAULT_START }, corpus, {
      force: true,
      // Several days: each is published while the next is generated (the corpus of 30 days of a million
      // jobs takes hours either way); generate_s is then the whole run's.
      overlap: days > 1,
      passDays,
      afterDay: async (day, dir) => {
        const began = performance.now();
        if (published !== null && Date.parse(await cutoff(dir)) <= Date.parse(published))
          process.stderr.write(`day ${day.day} is published already\n`);
        else await publish(dir, day.day === days);
        if (days === 1) publishing += performance.now() - began;
        if (day.day < days) await rm(dir, { recursive: true, force: true });
      },
    });
    generate_s = (performance.now() - started - publishing) / 1000;
  } else await publish(dayDir(1));
  const day = dayDir(days);
  const report = (await runCliJson(['merge-report', '--input', day, '--snapshots-dir', dirs.snapshotsDir])) as {
    precision: number;
    recall: number;
  };
  return {
    corpus,
    ...dirs,
    generate_s,
    publish: {
      duration_s: summary.duration_s,
      peak_rss_gib: summary.peak_rss_gib,
      jobs: summary.counts.jobs,
      postings: summary.counts.postings,
    },
    merge: { precision: report.precision, recall: report.recall },
  };
}
