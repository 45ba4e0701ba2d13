// One publication's change events, as the feed serves them: the events as JSON Lines (each with its
// job), the postings' source_data apart, and per event its type and company for filtering. Derived
// from the publication's snapshot once, by the publisher (the publication's feed/ folder), or for a
// publication made before that, by each server under data/feed/<watermark>/ (a cache: removing it only
// costs a rebuild); kept open for the life of the process: a publication never changes.

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CatalogManifest } from '../catalog/layout.js';
import { namedQueries, namedScripts } from '../db/sql-files.js';
import type { QueryEngine } from '../db/engine.js';
import { removeDeadTemporaries } from '../catalog/files.js';
import { lineFile, readLines, writeOnce, type LineFile } from '../jobs/line-file.js';
import { sqlString as quote } from '../db/sql-literal.js';

const SQL = namedQueries('serve/events.sql', ['lines', 'source_data', 'index']);
const { macros: MACROS } = namedScripts('serve/catalog.sql', ['macros']);

export const EVENT_TYPES = ['created', 'updated', 'expired'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** No company: the job is not linked to one. */
export const NO_COMPANY = -1;

export interface FeedSegment {
  watermark: string;
  /** occurred_at of every event of the publication (its published_at), in ms since the epoch. */
  occurredAt: number;
  /** The events are seq firstSeq + 1 to firstSeq + count. */
  firstSeq: number;
  count: number;
  /** Per event, its index in EVENT_TYPES. */
  types: Uint8Array;
  /** Per event, its job's company as a code of the feed's company table (NO_COMPANY for none). */
  companies: Int32Array;
  /** The events as the feed returns them, without source_data. */
  readEvents(events: readonly number[]): string[];
  /** Per event, the source_data of its job's postings, in posting order. */
  readSourceData(events: readonly number[]): Record<string, unknown>[][];
  /** Closes its files. */
  close(): Promise<void>;
}


/**
 * The segment of the publication in `dir`, its files in `folder` (built there unless they are).
 * `companyCode` gives each company id its code (the same for all segments).
 */
export async function openSegment(engine: QueryEngine, dir: string, manifest: CatalogManifest, folder: string, companyCode: (id: string) => number): Promise<FeedSegment> {
  const { watermark } = manifest;
  const count = manifest.events.last_seq - manifest.events.first_seq;
  const files = (await readdir(dir)).filter((f) => /^jobs(-\d+-of-\d+)?\.parquet$/.test(f)).map((f) => quote(join(dir, f)));
  const fill = (sql: string) => sql.replace('{dir}', quote(dir)).replace('{files}', `[${files.join(', ')}]`);
  await engine.withConnection(async (c) => {
    for (const statement of MACROS) await c.run(statement);
  });

  const indexPath = join(folder, 'index.parquet');
  await removeDeadTemporaries(folder);
  await writeOnce(engine, indexPath, fill(SQL.index));
  const rows = await engine.rows(`SELECT type, company_id FROM read_parquet($path) ORDER BY seq`, { path: indexPath });
  if (rows.length !== count) throw new Error(`the feed index of ${watermark} has ${rows.length} events for ${count}`);
  const types = new Uint8Array(count);
  const companies = new Int32Array(count);
  rows.forEach(([type, company], i) => {
    types[i] = EVENT_TYPES.indexOf(type as EventType);
    companies[i] = company === null ? NO_COMPANY : companyCode(company as string);
  });

  const events: LineFile = await lineFile(engine, join(folder, 'events.jsonl'), fill(SQL.lines), count);
  const sourceData: LineFile = await lineFile(engine, join(folder, 'source-data.jsonl'), fill(SQL.source_data), count);
  return {
    watermark,
    occurredAt: Date.parse(manifest.published_at),
    firstSeq: manifest.events.first_seq,
    count,
    types,
    companies,
    readEvents: (at) => readLines(events, at),
    readSourceData: (at) => readLines(sourceData, at).map((line) => (JSON.parse(line) as { s: Record<string, unknown>[] }).s),
    close: async () => {
      await events.handle.close();
      await sourceData.handle.close();
    },
  };
}
