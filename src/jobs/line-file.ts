// JSON Lines files of the serving cache (the job documents, the change feed's events): written once by
// DuckDB under a temporary name, renamed into place, then read line by line by offset.

import { createReadStream, readSync } from 'node:fs';
import { mkdir, open, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LRUCache } from 'lru-cache';
import { exists } from '../catalog/files.js';
import type { QueryEngine } from '../db/engine.js';
import { sqlString } from '../db/sql-literal.js';

export interface LineFile {
  handle: FileHandle;
  /** Where each line starts and, at [lines], where the file ends. */
  offsets: Float64Array;
  /** The lines read most recently, by line number, within a budget of bytes (see readLineBytes); none when absent. */
  recent?: LRUCache<number, Buffer>;
  /** What each line read becomes before it is given (and kept); as the file holds it when absent. */
  prepare?: (line: Buffer) => Buffer;
}

export interface LineFileOptions {
  /** Bytes of the lines read last kept in memory (0: none). */
  recentBytes?: number;
  prepare?: (line: Buffer) => Buffer;
}

/**
 * A JSON Lines file of `lines` lines at `path`, written by `copy` (a DuckDB COPY with an {out} hole) when
 * it does not exist yet. A file whose line count is wrong (cut short) is removed: the next open writes it again.
 */
export async function lineFile(
  engine: QueryEngine,
  path: string,
  copy: string,
  lines: number,
  { recentBytes = 0, prepare }: LineFileOptions = {},
): Promise<LineFile> {
  await writeOnce(engine, path, copy);
  const offsets = await lineOffsets(path, lines);
  const recent = recentBytes > 0 ? new LRUCache<number, Buffer>({ maxSize: recentBytes, sizeCalculation: (l) => l.length + 1 }) : undefined;
  return { handle: await open(path, 'r'), offsets, recent, prepare };
}

/**
 * Writes the file at `path` by `copy` (a DuckDB COPY with an {out} hole) unless it exists: under a
 * temporary name, renamed into place once complete, so a crash never leaves a partial file at `path`.
 */
export async function writeOnce(engine: QueryEngine, path: string, copy: string): Promise<void> {
  if (await exists(path)) return;
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  await engine.withConnection((c) => c.run(copy.replace('{out}', sqlString(tmp))));
  await rename(tmp, path);
}

async function lineOffsets(path: string, expected: number): Promise<Float64Array> {
  const offsets = new Float64Array(expected + 1);
  let line = 0;
  let base = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 24 }) as AsyncIterable<Buffer>) {
    let at = chunk.indexOf(10);
    while (at !== -1) {
      if (line < expected) offsets[++line] = base + at + 1;
      else line++;
      at = chunk.indexOf(10, at + 1);
    }
    base += chunk.length;
  }
  if (line !== expected) {
    await writeFile(`${path}.broken`, '');
    await rm(path, { force: true });
    throw new Error(`${path} has ${line} lines for ${expected} records; it was removed and will be rebuilt`);
  }
  return offsets;
}

/**
 * The lines of `docs`, by positioned reads, one per run of consecutive lines. They are synchronous: the
 * serving cache is meant to live in the page cache (ADR 0003), where reading a line takes microseconds,
 * less than a round trip through libuv's thread pool (50 lines: about 0.3 ms read in place, 1-2 ms as
 * 50 asynchronous reads). A page in the default order is a few runs (one per jobs file).
 */
export function readLines(file: LineFile, docs: readonly number[]): string[] {
  return readLineBytes(file, docs).map((line) => line.toString('utf8'));
}

/**
 * Lines `docs` as their bytes, without their line ends, in the order asked (each a view of one read of its
 * run of neighbouring lines, or what the file's `prepare` made of it): for answers spliced as the file
 * holds them, never decoded into strings.
 *
 * Lines the file's recent lines hold are not read again: a read is a system call, 4.5-5 µs for a line of a
 * search's page on a virtual machine where a system call costs 2.4 µs (ADR 0013), so a page of 50 lines
 * scattered through the file cost 0.22-0.26 ms in reads alone. The lines read are kept there unless
 * `remember` is false (bulk reads: exports, MCP files), so that one export does not push out what pages
 * and searches read again. A kept line is a view of its run's read, which stays in memory while any line
 * of it is kept: a run holds only lines asked for, so that is at most the lines of one call.
 */
export function readLineBytes({ handle, offsets, recent, prepare }: LineFile, docs: readonly number[], remember = true): Buffer[] {
  const lines = new Array<Buffer>(docs.length);
  const missing: number[] = [];
  for (let i = 0; i < docs.length; i++) {
    const kept = recent?.get(docs[i]!);
    if (kept) lines[i] = kept;
    else missing.push(i);
  }
  const order = missing.sort((a, b) => docs[a]! - docs[b]!);
  for (let first = 0; first < order.length;) {
    let last = first;
    while (last + 1 < order.length && docs[order[last + 1]!]! - docs[order[last]!]! <= 1) last++;
    const from = offsets[docs[order[first]!]!]!;
    const buffer = readRange(handle.fd, from, offsets[docs[order[last]!]! + 1]! - from);
    for (let k = first; k <= last; k++) {
      const doc = docs[order[k]!]!;
      const view = buffer.subarray(offsets[doc]! - from, offsets[doc + 1]! - from - 1);
      const line = prepare ? prepare(view) : view;
      lines[order[k]!] = line;
      if (remember) recent?.set(doc, line);
    }
    first = last + 1;
  }
  return lines;
}

function readRange(fd: number, start: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  for (let at = 0; at < length;) {
    const n = readSync(fd, buffer, at, length - at, start + at);
    if (n === 0) throw new Error(`the serving cache file ends before byte ${start + length}`);
    at += n;
  }
  return buffer;
}
