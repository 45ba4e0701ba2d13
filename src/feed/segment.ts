// One publication's change events, as the feed serves them: the events as JSON Lines (each with its
// job), the postings' source_data apart, and per event its type and company for filtering. Derived
// from the publication's snapshot once, by the publisher (the publication's feed/ folder), or for a
// publication made before that, by each server under data/feed/<watermark>/ (a cache: removing it only
// costs a rebuild); kept open for the life of the process: a publication never changes.

import { open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CatalogManifest } from '../catalog/layout.js';
import { namedQueries, namedScripts } from '../db/sql-files.js';
import type { QueryEngine } from '../db/engine.js';
import { exists, removeDeadTemporaries } from '../catalog/files.js';
import { lineFile, readLineBytes, readLines, writeOnce, type LineFile } from '../jobs/line-file.js';
import { sqlString as quote } from '../db/sql-literal.js';

const SQL = namedQueries('serve/events.sql', ['lines', 'heads', 'source_data', 'index']);
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
  /** The events as the feed returns them (JSON, UTF-8 bytes), without source_data. */
  readEvents(events: readonly number[]): Buffer[];
  /** Per event, the source_data of its job's postings, in posting order. */
  readSourceData(events: readonly number[]): Record<string, unknown>[][];
  /** Closes its files. */
  close(): Promise<void>;
}

/**
 * The segment of the publication in `dir`, its files in `folder` (built there unless they are).
 * `companyCode` gives each company id its code (the same for all segments). With `documents`, the
 * publication's documents.jsonl, the events' jobs are copied from it rather than serialised again.
 */
export async function openSegment(
  engine: QueryEngine,
  dir: string,
  manifest: CatalogManifest,
  folder: string,
  companyCode: (id: string) => number,
  documents?: string,
): Promise<FeedSegment> {
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

  const eventsPath = join(folder, 'events.jsonl');
  if (documents && !(await exists(eventsPath))) await writeEventsFromDocuments(engine, fill(SQL.heads), documents, eventsPath);
  const events: LineFile = await lineFile(engine, eventsPath, fill(SQL.lines), count);
  const sourceData: LineFile = await lineFile(engine, join(folder, 'source-data.jsonl'), fill(SQL.source_data), count);
  return {
    watermark,
    occurredAt: Date.parse(manifest.published_at),
    firstSeq: manifest.events.first_seq,
    count,
    types,
    companies,
    readEvents: (at) => readLineBytes(events, at),
    readSourceData: (at) => readLines(sourceData, at).map((line) => (JSON.parse(line) as { s: Record<string, unknown>[] }).s),
    close: async () => {
      await events.handle.close();
      await sourceData.handle.close();
    },
  };
}

/** A document line starts with `{"job_id":"` and the id. */
const DOCUMENT_HEAD = Buffer.from('{"job_id":"');
/** How a head of the `heads` statement ends when the publication has its job: `"job_id":"<id>","job":null}`. */
const NO_JOB = Buffer.from('","job":null}');
const ID_LENGTH = 36;
/** Bytes read at once: whole lines are kept in memory in pieces of about this size. */
const PIECE_BYTES = 2 ** 28;
/** Lines handed to one write. */
const LINES_PER_WRITE = 4096;

/**
 * Writes the events file at `path` as the `lines` statement would, from the `heads` statement (`copy`)
 * and the publication's job documents at `documents`: each head ending in "job":null takes its job's
 * document line in place of the null. The documents are held in memory meanwhile (about 3 GB at a
 * million jobs: read once, sliced without copying); the file is written under a temporary name and
 * renamed into place once complete.
 */
async function writeEventsFromDocuments(engine: QueryEngine, copy: string, documents: string, path: string): Promise<void> {
  const heads = `${path}.heads.tmp-${process.pid}`;
  const tmp = `${path}.tmp-${process.pid}`;
  const out = await open(tmp, 'w');
  try {
    await engine.withConnection((c) => c.run(copy.replace('{out}', quote(heads))));
    const jobs = new Map<string, Buffer>();
    for await (const piece of wholeLines(documents)) {
      forEachLine(piece, (line) => {
        if (!line.subarray(0, DOCUMENT_HEAD.length).equals(DOCUMENT_HEAD))
          throw new Error(`a line of ${documents} does not start with its job_id`);
        jobs.set(line.toString('latin1', DOCUMENT_HEAD.length, DOCUMENT_HEAD.length + ID_LENGTH), line);
      });
    }
    const pending: Buffer[] = [];
    for await (const piece of wholeLines(heads)) {
      const lines: Buffer[] = [];
      forEachLine(piece, (line) => lines.push(line));
      for (const head of lines) {
        if (head.length > NO_JOB.length + ID_LENGTH && head.subarray(head.length - NO_JOB.length).equals(NO_JOB)) {
          const idAt = head.length - NO_JOB.length - ID_LENGTH;
          const jobId = head.toString('latin1', idAt, idAt + ID_LENGTH);
          const job = jobs.get(jobId);
          if (!job) throw new Error(`job ${jobId} of an event is not in ${documents}`);
          pending.push(head.subarray(0, head.length - 'null}'.length), job, CLOSE_LINE);
        } else pending.push(head, NEWLINE);
        if (pending.length >= LINES_PER_WRITE) await out.writev(pending.splice(0));
      }
    }
    await out.writev(pending);
    await out.close();
    await rename(tmp, path);
  } finally {
    await out.close().catch(() => undefined);
    await rm(heads, { force: true });
    await rm(tmp, { force: true });
  }
}

const NEWLINE = Buffer.from('\n');
const CLOSE_LINE = Buffer.from('}\n');

/** The file at `path` in pieces of whole lines (each ending in a newline). */
async function* wholeLines(path: string): AsyncGenerator<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    for (let at = 0; at < size;) {
      const piece = Buffer.allocUnsafe(Math.min(PIECE_BYTES, size - at));
      for (let filled = 0; filled < piece.length;) {
        const { bytesRead } = await handle.read(piece, filled, piece.length - filled, at + filled);
        if (bytesRead === 0) throw new Error(`${path} ended while being read`);
        filled += bytesRead;
      }
      const end = piece.lastIndexOf(10) + 1;
      if (end === 0) throw new Error(`${path} has a line of over ${PIECE_BYTES} bytes, or does not end in a newline`);
      yield piece.subarray(0, end);
      at += end;
    }
  } finally {
    await handle.close();
  }
}

/** Calls `each` with every line of `piece` (whole lines), without its newline. */
function forEachLine(piece: Buffer, each: (line: Buffer) => void): void {
  for (let from = 0, end = piece.indexOf(10); end !== -1; from = end + 1, end = piece.indexOf(10, from)) each(piece.subarray(from, end));
}
