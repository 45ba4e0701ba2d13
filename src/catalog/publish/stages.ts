// The stages of one publication, each a few named SQL scripts over the work database (sql/publish/).

import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { Duck } from '../../db/duckdb.js';
import { runScript } from '../../db/duckdb.js';
import { namedQueries, namedScripts } from '../../db/sql-files.js';
import type { Delivery } from '../delivery.js';
import { DeliveryError } from '../delivery.js';
import { parseLocation } from '../normalise/location.js';
import { placeNames } from '../normalise/place-names.js';
import { SKILLS } from '../reference/skills.js';
import { SOC_TITLES, socLexicon } from '../reference/soc.js';
import { clusterFiles } from './cluster.js';
import type { Progress } from './progress.js';

const MACROS = namedScripts('publish/macros.sql', ['macros']);
const LOAD = namedScripts('publish/load.sql', ['reads', 'incoming', 'texts_today', 'withdrawals', 'no_withdrawals']);
const LOAD_Q = namedQueries('publish/load.sql', ['incoming_counts', 'duplicates', 'raw_locations']);
const NORMALISE = namedScripts('publish/normalise.sql', [
  'location_map',
  'place_names',
  'dictionaries',
  'observed',
  'observed_locations',
  'drop_incoming',
]);
const STATE = namedScripts('publish/state.sql', [
  'previous_state',
  'first_state',
  'today_texts',
  'boards',
  'withdrawn_postings',
  'postings',
  'texts',
]);
const MERGE = namedScripts('publish/merge.sql', ['numbered', 'fingerprints', 'pairs', 'export_pairs', 'load_clusters']);
const IDENTITY = namedScripts('publish/identity.sql', [
  'first_publication',
  'previous_publication',
  'clustered',
  'claims',
  'job_ids',
  'redirects',
  'withdrawn_jobs',
]);
const JOBS = namedScripts('publish/jobs.sql', [
  'job_postings',
  'soc_lexicon',
  'soc_phrases',
  'state_titles',
  'title_tokens',
  'lexicon_hits',
  'title_occupations',
  'job_texts',
  'empty_texts',
  'untitled_texts',
  'text_tokens',
  'text_occupations',
  'skill_vocabulary',
  'skill_reader',
  'job_part',
  'write_part',
]);
const EVENTS = namedScripts('publish/events.sql', ['prev_jobs_first', 'prev_jobs', 'prev_jobs_format1', 'prev_jobs_format2', 'events']);
const WRITE = namedScripts('publish/write.sql', ['write_snapshot', 'write_state', 'empty_part', 'drop_postings']);

export async function defineMacros(duck: Duck): Promise<void> {
  await runScript(duck, MACROS.macros);
}

/** Where a publication's work folder keeps today's descriptions (moved into the state at commit). */
export const textsFile = (workDir: string) => join(workDir, 'texts.parquet');

/**
 * Reads the delivery: every postings file must have the rows its manifest announces, and no posting
 * may appear twice. The descriptions go straight to a Parquet file in the work folder.
 */
export async function load(duck: Duck, delivery: Delivery, workDir: string, progress: Progress): Promise<void> {
  const paths = delivery.postingPaths.join('\n');
  await runScript(duck, LOAD.reads, { path: delivery.readsPath });
  await runScript(duck, LOAD.incoming, { paths });
  if (delivery.withdrawalsPath) await runScript(duck, LOAD.withdrawals, { path: delivery.withdrawalsPath });
  else await runScript(duck, LOAD.no_withdrawals);
  const counts = new Map(
    (await duck.all<{ filename: string; rows: number }>(LOAD_Q.incoming_counts)).map((r) => [r.filename, Number(r.rows)]),
  );
  let total = 0;
  delivery.manifest.postings.forEach((file, i) => {
    const rows = counts.get(delivery.postingPaths[i]!) ?? 0;
    if (rows !== file.rows)
      throw new DeliveryError(`${file.path} holds ${rows} postings but the manifest announces ${file.rows}: the delivery is incomplete`);
    total += rows;
  });
  const twice = await duck.all<{ source: string; board: string; source_posting_id: string; times: number }>(LOAD_Q.duplicates);
  if (twice.length > 0) {
    const named = twice.map((d) => `${d.source}/${d.board}/${d.source_posting_id} (${d.times} times)`).join(', ');
    throw new DeliveryError(`the delivery lists postings more than once: ${named}; each posting may appear once a day`);
  }
  progress.note(`${total.toLocaleString('en-US')} postings from ${delivery.postingPaths.length} sources`);
  await runScript(duck, LOAD.texts_today, { paths, file: textsFile(workDir) });
}

/** Canonical postings: locations are parsed once per distinct text, the rest is SQL. */
export async function normalise(duck: Duck, progress: Progress): Promise<void> {
  await runScript(duck, NORMALISE.location_map);
  const raws = await duck.all<{ raw: string }>(LOAD_Q.raw_locations);
  const appender = await duck.connection.createAppender('location_map');
  let unread = 0;
  for (const { raw } of raws) {
    const place = parseLocation(raw);
    if (!place) unread++;
    appender.appendVarchar(raw);
    for (const value of [place?.city, place?.state, place?.country, place?.msa?.cbsa_code, place?.msa?.name]) {
      if (value) appender.appendVarchar(value);
      else appender.appendNull();
    }
    appender.appendBoolean(place?.remote ?? false);
    appender.endRow();
  }
  appender.closeSync();
  progress.note(`${raws.length.toLocaleString('en-US')} distinct location texts, ${unread} unreadable`);
  await runScript(duck, NORMALISE.place_names);
  const names = await duck.connection.createAppender('place_names');
  for (const name of placeNames()) {
    names.appendVarchar(name);
    names.endRow();
  }
  names.closeSync();
  await duck.run('CREATE OR REPLACE TABLE place_names AS SELECT DISTINCT plain_words(name) AS name FROM place_names');
  for (const name of ['dictionaries', 'observed', 'observed_locations', 'drop_incoming'] as const) await runScript(duck, NORMALISE[name]);
}

/** Today's observations folded into the carried posting state; `stateDir` is the previous state or null. */
export async function foldState(duck: Duck, stateDir: string | null, workDir: string): Promise<void> {
  const file = textsFile(workDir);
  if (stateDir) await runScript(duck, STATE.previous_state, { dir: stateDir });
  else await runScript(duck, STATE.first_state, { file });
  await runScript(duck, STATE.today_texts, { file });
  for (const name of ['boards', 'withdrawn_postings', 'postings', 'texts'] as const) await runScript(duck, STATE[name]);
}

/** Candidate pairs and their strength in SQL, clustering in JS (union-find with a constraint), clusters back in SQL. */
export async function merge(duck: Duck, workDir: string, progress: Progress): Promise<void> {
  for (const name of ['numbered', 'fingerprints', 'pairs'] as const) await runScript(duck, MERGE[name]);
  const nodes = join(workDir, 'nodes.csv');
  const edges = join(workDir, 'edges.csv');
  const clusters = join(workDir, 'clusters.csv');
  await runScript(duck, MERGE.export_pairs, { pairs: edges, nodes });
  const result = await clusterFiles(nodes, edges, clusters);
  progress.note(
    `${result.edges.toLocaleString('en-US')} pairs of copies, ${result.merged.toLocaleString('en-US')} postings joined another`,
  );
  await runScript(duck, MERGE.load_clusters, { file: clusters });
}

/** Job ids: kept, merged (redirects), new; withdrawn jobs remembered. `previousDir` is the last snapshot. */
export async function identify(duck: Duck, previousDir: string | null, watermark: string): Promise<void> {
  if (previousDir) await runScript(duck, IDENTITY.previous_publication, { dir: previousDir });
  else await runScript(duck, IDENTITY.first_publication);
  for (const name of ['clustered', 'claims', 'job_ids', 'redirects', 'withdrawn_jobs'] as const)
    await runScript(duck, IDENTITY[name], { watermark });
}

/**
 * Live postings a part of the jobs may hold per GB of DuckDB's memory. A part's jobs are aggregated in
 * memory (their postings' lists do not spill): at 4 GB, parts of about 445,000 postings failed on day 6
 * of the 30-day million-job corpus (its jobs gather more copies day by day); 75,000 per GB (300,000 at
 * the default 4 GB) leaves room for the tables the publisher holds meanwhile.
 */
const POSTINGS_PER_PART_PER_GB = 75_000;

/** How many parts the jobs of `postings` live postings are built in, under DuckDB's `memoryLimit` (e.g. '4GB'). */
export function jobParts(postings: number, memoryLimit: string): number {
  const size = /^\s*(\d+(?:\.\d+)?)\s*([KMGT])i?B\s*$/i.exec(memoryLimit);
  const gb = size ? Number(size[1]) * 1024 ** ('KMGT'.indexOf(size[2]!.toUpperCase()) - 2) : 4;
  return Math.max(1, Math.ceil(postings / (POSTINGS_PER_PART_PER_GB * gb)));
}

/** The jobs file of part k (1-based) of a snapshot. */
export const jobsFile = (snapshotDir: string, part: number, parts: number) =>
  join(snapshotDir, parts === 1 ? 'jobs.parquet' : `jobs-${String(part).padStart(2, '0')}-of-${String(parts).padStart(2, '0')}.parquet`);

/**
 * Gives each part of `folder` (written with PARTITION_BY part) that got no rows an empty file written by
 * `script` (with $file), so that every part reads the same way.
 */
async function fillEmptyParts(duck: Duck, folder: string, parts: number, script: readonly string[]): Promise<void> {
  for (let part = 0; part < parts; part++) {
    const dir = join(folder, `part=${part}`);
    if (existsSync(dir)) continue;
    await mkdir(dir, { recursive: true });
    await runScript(duck, script, { file: join(dir, 'empty.parquet') });
  }
}

/** Ranks postings within jobs, then writes the publisher's state in the parts the jobs are built from. */
export async function writeState(duck: Duck, stateTmp: string, parts: number): Promise<void> {
  await mkdir(stateTmp, { recursive: true });
  await runScript(duck, JOBS.job_postings, { parts });
  await runScript(duck, WRITE.write_state, { dir: stateTmp });
  await fillEmptyParts(duck, join(stateTmp, 'postings'), parts, WRITE.empty_part);
  await runScript(duck, WRITE.drop_postings);
}

/** The occupation classifier's lexicon of soc.ts as table `soc_lexicon`, keyed as titles are. */
export async function loadSocLexicon(duck: Duck): Promise<void> {
  await runScript(duck, JOBS.soc_lexicon);
  const lexicon = await duck.connection.createAppender('soc_lexicon');
  for (const [phrase, code] of socLexicon()) {
    lexicon.appendVarchar(phrase);
    lexicon.appendVarchar(code);
    lexicon.appendVarchar(SOC_TITLES[code]!);
    lexicon.endRow();
  }
  lexicon.closeSync();
  await runScript(duck, JOBS.soc_phrases);
}

/** The occupation of every title in table `titles_to_classify` (into `title_occupations`), by the lexicon of soc.ts. */
export async function classifyTitles(duck: Duck): Promise<void> {
  await loadSocLexicon(duck);
  await runScript(duck, JOBS.title_tokens);
  await runScript(duck, JOBS.lexicon_hits);
  await runScript(duck, JOBS.title_occupations);
}

/** The occupation each text of table `texts_to_classify` (key, text) names (into `text_occupations`), once the lexicon is loaded. */
export async function classifyTexts(duck: Duck): Promise<void> {
  await runScript(duck, JOBS.text_tokens);
  await runScript(duck, JOBS.lexicon_hits);
  await runScript(duck, JOBS.text_occupations);
}

/** The skill reader `skills_in` over the vocabulary of skills.ts. */
export async function readSkills(duck: Duck): Promise<void> {
  await runScript(duck, JOBS.skill_vocabulary);
  const vocabulary = await duck.connection.createAppender('skill_vocabulary');
  for (const skill of SKILLS) {
    vocabulary.appendVarchar(skill);
    vocabulary.endRow();
  }
  vocabulary.closeSync();
  await runScript(duck, JOBS.skill_reader);
}

/**
 * Builds the jobs part by part, writing each part's file into the snapshot being written. The text each
 * job shows is written first in the same parts (`workDir`/job-texts), so a part reads only its own.
 */
export async function buildJobs(
  duck: Duck,
  watermark: string,
  dirs: { state: string; snapshot: string; work: string },
  parts: number,
): Promise<void> {
  await mkdir(dirs.snapshot, { recursive: true });
  const texts = join(dirs.work, 'job-texts');
  await runScript(duck, JOBS.job_texts, { out: texts });
  await fillEmptyParts(duck, texts, parts, JOBS.empty_texts);
  await runScript(duck, JOBS.state_titles, { dir: dirs.state });
  await classifyTitles(duck);
  // A job whose title names no occupation the lexicon knows takes the one its description names.
  await runScript(duck, JOBS.untitled_texts, { dir: dirs.state, texts });
  await classifyTexts(duck);
  await readSkills(duck);
  for (let part = 0; part < parts; part++) {
    await runScript(duck, JOBS.job_part, { dir: dirs.state, texts, part, watermark });
    await runScript(duck, JOBS.write_part, { out: jobsFile(dirs.snapshot, part + 1, parts) });
  }
}

export async function diff(
  duck: Duck,
  previous: { dir: string; format: string } | null,
  snapshotTmp: string,
  publishedAt: string,
  lastSeq: number,
): Promise<void> {
  if (previous?.format === 'jps-catalog/1') await runScript(duck, EVENTS.prev_jobs_format1, { dir: previous.dir });
  else if (previous?.format === 'jps-catalog/2') await runScript(duck, EVENTS.prev_jobs_format2, { dir: previous.dir });
  else if (previous) await runScript(duck, EVENTS.prev_jobs, { dir: previous.dir });
  else await runScript(duck, EVENTS.prev_jobs_first, { file: jobsFile(snapshotTmp, 1, 1).replace(/jobs\.parquet$/, 'jobs*.parquet') });
  await runScript(duck, EVENTS.events, { published_at: publishedAt, last_seq: lastSeq });
}

export async function writeSnapshot(duck: Duck, snapshotTmp: string): Promise<void> {
  await runScript(duck, WRITE.write_snapshot, { dir: snapshotTmp });
}
