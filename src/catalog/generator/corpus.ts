// Generates a whole delivery folder: every day in turn, then the top manifest; reports progress and returns a summary.

import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Calendar } from './calendar.js';
import { passDay, writeDay, type DayProgress, type DaySummary } from './day.js';
import { jsonDocument } from './jsonl-file.js';
import { firstIndexes } from './openings.js';
import type { GenerateOptions } from './options.js';
import { Boards } from './reads.js';
import { createRunner } from './workers.js';

/**
 * Which generator wrote a corpus: raised whenever the same arguments give other bytes (2: postings carry
 * truth_soc_code; 3: truth_description_pay; 4: truth_skills, and filler words that name no skill;
 * 5: truth_listed_by_employer and truth_reposts), so that a corpus kept from an earlier revision
 * (bench/.cache) is generated again.
 */
export const GENERATOR_REVISION = 5;

export interface CorpusSummary {
  out: string;
  seed: number;
  jobs: number;
  days: number;
  start: string;
  companies: number;
  registered_companies: number;
  openings: number;
  postings: number;
  bytes: number;
  workers: number;
  elapsed_s: number;
  peak_rss_mb: number;
  per_day: DaySummary[];
}

export class OutputExistsError extends Error {}

export interface Progress extends DayProgress {
  elapsedMs: number;
}

export interface CorpusRun {
  force?: boolean;
  /** Worker threads; 0 generates on the calling thread. Defaults to one per core (at most 4). */
  workers?: number;
  onProgress?: (p: Progress) => void;
  progressEveryMs?: number;
  /**
   * Called with each day once it is written, before the next is (meanwhile, with overlap): a caller may
   * publish the day and remove its folder, so a long corpus needs the disk of one day (two with overlap;
   * bench/catalog.ts).
   */
  afterDay?: (day: DaySummary, dir: string) => Promise<void>;
  /**
   * afterDay runs while the next day is generated (one at a time, in day order), rather than before it,
   * the two sharing the cores. Same bytes either way.
   */
  overlap?: boolean;
  /**
   * The first `passDays` days are gone through without being written (passDay) and afterDay is not called
   * for them: a run that goes on after days already delivered (the bench's, published day by day) writes
   * the later days as a whole generation would. The summary and the top manifest count the days written.
   */
  passDays?: number;
}

/** Refuses a non-empty folder unless `force`, which empties it first. */
function prepare(out: string, force: boolean): void {
  if (existsSync(out) && readdirSync(out).length > 0) {
    if (!force) throw new OutputExistsError(`${out} exists and is not empty; pass --force to replace it`);
    rmSync(out, { recursive: true, force: true });
  }
  mkdirSync(out, { recursive: true });
}

/** Peak resident memory of this process (worker threads included), in bytes. */
function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

export async function generateCorpus(options: GenerateOptions, outDir: string, run: CorpusRun = {}): Promise<CorpusSummary> {
  const began = performance.now();
  const out = resolve(outDir);
  const calendar = new Calendar(options.start);
  prepare(out, run.force === true);
  const runner = createRunner(options, run.workers);
  const workers = run.workers ?? -1;
  try {
    const boards = new Boards(options.seed);
    const firstIndex = firstIndexes(options);
    let last = began;
    let done = { postings: 0, bytes: 0 };
    const tick = (p: DayProgress) => {
      const now = performance.now();
      if (now - last < (run.progressEveryMs ?? 2000)) return;
      last = now;
      run.onProgress?.({ day: p.day, postings: done.postings + p.postings, bytes: done.bytes + p.bytes, elapsedMs: now - began });
    };
    const perDay: DaySummary[] = [];
    let after: Promise<void> = Promise.resolve();
    for (let day = 1; day <= options.days; day += 1) {
      const input = { runner, boards, calendar, end: firstIndex[day + 1]!, batchSize: 1500, inFlight: 6 };
      if (day <= (run.passDays ?? 0)) {
        await passDay(input, day);
        continue;
      }
      const summary = await writeDay(input, day, out, tick);
      perDay.push(summary);
      await after;
      after = run.afterDay?.(summary, join(out, summary.path)) ?? Promise.resolve();
      // A failure is thrown where it is awaited: before the next day's afterDay, or after the last day.
      after.catch(() => undefined);
      if (!run.overlap) await after;
      done = { postings: done.postings + summary.postings, bytes: done.bytes + summary.bytes };
    }
    await after;
    const [companies, registered] = ((await runner.run({ kind: 'stats' })) as string[]).map(Number) as [number, number];
    const manifest = {
      format: 'jps-delivery/1',
      generator: GENERATOR_REVISION,
      seed: options.seed,
      jobs: options.jobs,
      days: options.days,
      start: options.start,
      days_list: perDay.map((d) => ({ day: d.day, path: d.path })),
    };
    writeFileSync(join(out, 'manifest.json'), jsonDocument(manifest));
    return {
      out,
      seed: options.seed,
      jobs: options.jobs,
      days: options.days,
      start: options.start,
      companies,
      registered_companies: registered,
      openings: firstIndex[options.days + 1]!,
      postings: done.postings,
      bytes: done.bytes,
      workers,
      elapsed_s: Math.round((performance.now() - began) / 100) / 10,
      peak_rss_mb: Math.round(peakRss() / 1048576),
      per_day: perDay,
    };
  } finally {
    await runner.close();
  }
}
