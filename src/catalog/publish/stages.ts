// The stages of one publication, each a few named SQL scripts over the work database (sql/publish/).

import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import type { Duck } from '../../db/duckdb.js';
import { runScript } from '../../db/duckdb.js';
import { namedQueries, namedScripts } from '../../db/sql-files.js';
import type { Delivery } from '../delivery.js';
import { DeliveryError } from '../delivery.js';
import { parseLocation } from '../normalise/location.js';
import { placeNames } from '../normalise/place-names.js';
import { clusterFiles } from './cluster.js';
import type { Progress } from './progress.js';

const MACROS = namedScripts('publish/macros.sql', ['macros']);
const LOAD = namedScripts('publish/load.sql', ['reads', 'incoming', 'withdrawals', 'no_withdrawals']);
const LOAD_Q = namedQueries('publish/load.sql', ['incoming_counts', 'raw_locations']);
const NORMALISE = namedScripts('publish/normalise.sql', ['location_map', 'place_names', 'dictionaries', 'texts_today', 'observed', 'observed_locations', 'drop_incoming']);
const STATE = namedScripts('publish/state.sql', ['previous_state', 'first_state', 'boards', 'withdrawn_postings', 'postings', 'texts']);
const MERGE = namedScripts('publish/merge.sql', ['numbered', 'fingerprints', 'pairs', 'export_pairs', 'export_nodes', 'load_clusters']);
const IDENTITY = namedScripts('publish/identity.sql', ['first_publication', 'previous_publication', 'clustered', 'claims', 'job_ids', 'redirects', 'withdrawn_jobs']);
const JOBS = namedScripts('publish/jobs.sql', ['job_postings', 'jobs']);
const EVENTS = namedScripts('publish/events.sql', ['published_jobs', 'prev_jobs_first', 'prev_jobs', 'events']);
const WRITE = namedScripts('publish/write.sql', ['write_snapshot', 'write_state']);

export async function defineMacros(duck: Duck): Promise<void> {
  await runScript(duck, MACROS.macros);
}

/** Reads the delivery and checks that every postings file has the rows its manifest announces. */
export async function load(duck: Duck, delivery: Delivery, progress: Progress): Promise<void> {
  await runScript(duck, LOAD.reads, { path: delivery.readsPath });
  await runScript(duck, LOAD.incoming, { paths: delivery.postingPaths.join('\n') });
  if (delivery.withdrawalsPath) await runScript(duck, LOAD.withdrawals, { path: delivery.withdrawalsPath });
  else await runScript(duck, LOAD.no_withdrawals);
  const counts = new Map((await duck.all<{ filename: string; rows: number }>(LOAD_Q.incoming_counts)).map((r) => [r.filename, Number(r.rows)]));
  let total = 0;
  delivery.manifest.postings.forEach((file, i) => {
    const rows = counts.get(delivery.postingPaths[i]!) ?? 0;
    if (rows !== file.rows) throw new DeliveryError(`${file.path} holds ${rows} postings but the manifest announces ${file.rows}: the delivery is incomplete`);
    total += rows;
  });
  progress.note(`${total.toLocaleString('en-US')} postings from ${delivery.postingPaths.length} sources`);
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
  for (const name of ['dictionaries', 'texts_today', 'observed', 'observed_locations', 'drop_incoming'] as const) await runScript(duck, NORMALISE[name]);
}

/** Today's observations folded into the carried posting state; `stateDir` is the previous state or null. */
export async function foldState(duck: Duck, stateDir: string | null): Promise<void> {
  if (stateDir) await runScript(duck, STATE.previous_state, { dir: stateDir });
  else await runScript(duck, STATE.first_state);
  for (const name of ['boards', 'withdrawn_postings', 'postings', 'texts'] as const) await runScript(duck, STATE[name]);
}

/** Candidate pairs in SQL, clustering in JS (it needs union-find with constraints), clusters back in SQL. */
export async function merge(duck: Duck, workDir: string, progress: Progress): Promise<void> {
  for (const name of ['numbered', 'fingerprints', 'pairs'] as const) await runScript(duck, MERGE[name]);
  const nodes = join(workDir, 'nodes.jsonl');
  const pairs = join(workDir, 'pairs.jsonl');
  const clusters = join(workDir, 'clusters.jsonl');
  await runScript(duck, MERGE.export_nodes, { file: nodes });
  await runScript(duck, MERGE.export_pairs, { file: pairs });
  const result = await clusterFiles(nodes, pairs, clusters);
  progress.note(`${result.pairs.toLocaleString('en-US')} candidate pairs, ${result.merged.toLocaleString('en-US')} postings joined another`);
  await runScript(duck, MERGE.load_clusters, { file: clusters });
}

/** Job ids: kept, merged (redirects), new; withdrawn jobs remembered. `previousDir` is the last snapshot. */
export async function identify(duck: Duck, previousDir: string | null, watermark: string): Promise<void> {
  if (previousDir) await runScript(duck, IDENTITY.previous_publication, { dir: previousDir });
  else await runScript(duck, IDENTITY.first_publication);
  for (const name of ['clustered', 'claims', 'job_ids', 'redirects', 'withdrawn_jobs'] as const) await runScript(duck, IDENTITY[name], { watermark });
}

export async function buildJobs(duck: Duck, watermark: string): Promise<void> {
  await runScript(duck, JOBS.job_postings);
  await runScript(duck, JOBS.jobs, { watermark });
}

export async function diff(duck: Duck, previousDir: string | null, publishedAt: string, lastSeq: number): Promise<void> {
  await runScript(duck, EVENTS.published_jobs);
  if (previousDir) await runScript(duck, EVENTS.prev_jobs, { dir: previousDir });
  else await runScript(duck, EVENTS.prev_jobs_first);
  await runScript(duck, EVENTS.events, { published_at: publishedAt, last_seq: lastSeq });
}

export async function writeFiles(duck: Duck, snapshotTmp: string, stateTmp: string): Promise<void> {
  await mkdir(snapshotTmp, { recursive: true });
  await mkdir(stateTmp, { recursive: true });
  await runScript(duck, WRITE.write_snapshot, { dir: snapshotTmp });
  await runScript(duck, WRITE.write_state, { dir: stateTmp });
}
