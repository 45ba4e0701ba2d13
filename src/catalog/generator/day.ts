// Writes one day of a delivery: the postings each source's reads returned, the reads, withdrawals, registry and manifest.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SOURCES } from '../reference/sources.js';
import type { BatchResult } from './batch.js';
import { HOUR_MS, iso, isReleaseDay, type Calendar } from './calendar.js';
import { jsonDocument, JsonlFile, type FileSummary } from './jsonl-file.js';
import type { Boards } from './reads.js';
import type { Runner } from './workers.js';

export interface DayProgress {
  day: number;
  postings: number;
  bytes: number;
}

export interface DaySummary {
  day: number;
  path: string;
  postings: number;
  bytes: number;
  reads: number;
  partialReads: number;
  withdrawals: number;
  registryCompanies: number | null;
}

export interface DayInput {
  runner: Runner;
  boards: Boards;
  calendar: Calendar;
  /** Openings that exist by the end of the day: indexes 0 .. end-1. */
  end: number;
  batchSize: number;
  /** Batches kept in flight, so every worker stays busy while results are written in order. */
  inFlight: number;
}

class PostingFiles {
  private readonly files = new Map<number, JsonlFile>();
  postings = 0;
  bytes = 0;

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  add(result: BatchResult, boards: Boards, day: number): void {
    seeBoards(result, boards, day);
    for (const chunk of result.chunks) {
      let file = this.files.get(chunk.source);
      if (!file) {
        file = new JsonlFile(join(this.dir, `${SOURCES[chunk.source]!.name}.jsonl`));
        this.files.set(chunk.source, file);
      }
      file.writeEncoded(chunk.data, chunk.rows);
      this.bytes += chunk.data.length;
    }
    this.postings += result.postings;
  }

  close(): { source: string; summary: FileSummary }[] {
    return [...this.files.entries()]
      .sort(([a], [b]) => a - b)
      .map(([source, file]) => ({ source: SOURCES[source]!.name, summary: file.close() }));
  }
}

/** The boards a batch saw, and how many of its postings each listed, counted on `day`. */
function seeBoards(result: BatchResult, boards: Boards, day: number): void {
  if (result.boardKeys.length > 0)
    result.boardKeys.split('\n').forEach((key, i) => (boards.byKey(key, day).listed += result.boardCounts[i]!));
}

/** Runs the day's batches, `inFlight` at a time, handing each result to `take` in order. */
async function runBatches(input: DayInput, day: number, boardsOnly: boolean, take: (result: BatchResult) => void): Promise<void> {
  const queue: Promise<BatchResult>[] = [];
  let from = 0;
  const refill = () => {
    while (queue.length < input.inFlight && from < input.end) {
      const to = Math.min(input.end, from + input.batchSize);
      queue.push(input.runner.run({ kind: 'batch', day, from, to, ...(boardsOnly ? { boardsOnly } : {}) }) as Promise<BatchResult>);
      from = to;
    }
  };
  refill();
  while (queue.length > 0) {
    const result = await queue.shift()!;
    refill();
    take(result);
  }
}

async function writePostings(input: DayInput, day: number, files: PostingFiles, tick: (p: DayProgress) => void): Promise<void> {
  await runBatches(input, day, false, (result) => {
    files.add(result, input.boards, day);
    tick({ day, postings: files.postings, bytes: files.bytes });
  });
}

/**
 * Goes through a day without writing it: what later days take from it (the boards its reads saw, which
 * every later day's reads list) is gathered, no posting is built. Every other part of a day is made from
 * the options and the day alone, so the days after come out byte for byte as in a whole generation.
 */
export async function passDay(input: DayInput, day: number): Promise<void> {
  await runBatches(input, day, true, (result) => seeBoards(result, input.boards, day));
}

function writeLines(path: string, lines: string[]): FileSummary {
  const file = new JsonlFile(path);
  for (const line of lines) file.write(line);
  return file.close();
}

async function writeRegistry(input: DayInput, day: number, dir: string): Promise<number> {
  mkdirSync(join(dir, 'registry'), { recursive: true });
  const releaseId = input.calendar.releaseId(day);
  writeFileSync(
    join(dir, 'registry', 'release.json'),
    jsonDocument({ release_id: releaseId, released_at: iso(input.calendar.cutoff(day) - HOUR_MS) }),
  );
  return writeLines(join(dir, 'registry', 'companies.jsonl'), (await input.runner.run({ kind: 'registry', day })) as string[]).rows;
}

export async function writeDay(input: DayInput, day: number, root: string, tick: (p: DayProgress) => void): Promise<DaySummary> {
  const path = `day-${String(day).padStart(3, '0')}`;
  const dir = join(root, path);
  const files = new PostingFiles(join(dir, 'postings'));
  const withdrawals = input.runner.run({ kind: 'withdrawals', day }) as Promise<string[]>;
  await writePostings(input, day, files, tick);
  const postings = files.close();
  const readLines = input.boards.lines(day, input.calendar);
  const reads = writeLines(join(dir, 'reads.jsonl'), readLines);
  const withdrawalList = await withdrawals;
  const withdrawn = withdrawalList.length > 0 ? writeLines(join(dir, 'withdrawals.jsonl'), withdrawalList) : null;
  const companies = isReleaseDay(day) ? await writeRegistry(input, day, dir) : null;
  const manifest = {
    format: 'jps-delivery/1',
    day,
    cutoff: iso(input.calendar.cutoff(day)),
    reads: { path: 'reads.jsonl', rows: reads.rows, sha256: reads.sha256 },
    postings: postings.map(({ source, summary }) => ({
      path: `postings/${source}.jsonl`,
      source,
      rows: summary.rows,
      bytes: summary.bytes,
      sha256: summary.sha256,
    })),
    withdrawals: withdrawn ? { path: 'withdrawals.jsonl', rows: withdrawn.rows, sha256: withdrawn.sha256 } : null,
    registry: companies === null ? null : { path: 'registry', release_id: input.calendar.releaseId(day), companies },
  };
  writeFileSync(join(dir, 'manifest.json'), jsonDocument(manifest));
  return {
    day,
    path,
    postings: files.postings,
    bytes: files.bytes,
    reads: reads.rows,
    partialReads: readLines.filter((line) => line.includes('"complete":false')).length,
    withdrawals: withdrawalList.length,
    registryCompanies: companies,
  };
}
