// Where the ledger's Parquet segments are kept: a path per segment, a file written whole or not at all,
// deleted, and the temporaries of dead runs found and removed. Nothing else touches the files, so that
// the segments can move to an S3-compatible object store by changing this module alone.

import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fsyncPath } from '../catalog/files.js';

/** Segment levels: written by compaction, a day's segments merged, a month's merged (from its first day). */
export const LEVEL = { compacted: 0, day: 1, month: 2 } as const;

/** A segment as the store lists it. */
export interface SegmentRef {
  segment_id: string | number;
  /** YYYY-MM-DD: its day, or its month's first day. */
  day: string;
  level: string | number;
}

/** The file of a segment in the ledger folder `dir`: day=<YYYY-MM-DD>/, or month=<YYYY-MM>/ for a month's. */
export function segmentFile(dir: string, s: SegmentRef): string {
  const folder = Number(s.level) === LEVEL.month ? `month=${s.day.slice(0, 7)}` : `day=${s.day}`;
  return join(dir, folder, `segment-${s.segment_id}.parquet`);
}

/**
 * Writes the segment file `path` whole or not at all: `write` fills a temporary beside it, which is synced
 * and renamed into place. What a stopped run left for the same path goes first. `beforeRename` lets
 * tests stop it with the temporary written, as a kill would.
 */
export async function writeSegmentFile(path: string, write: (temporary: string) => Promise<void>, beforeRename?: () => void): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true });
  for (const name of await readdir(folder)) if (name.startsWith(`${basename(path)}.tmp-`)) await rm(join(folder, name), { force: true });
  const temporary = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await write(temporary);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  beforeRename?.();
  await fsyncPath(temporary);
  await rename(temporary, path);
  await fsyncPath(folder);
}

/** Deletes a segment's file; one already gone is no error (a stopped run deleted it). */
export async function deleteSegmentFile(path: string): Promise<void> {
  await rm(path, { force: true });
}

/**
 * Removes the temporaries of runs that died, last changed more than `ageMs` ago (a live run finishes a
 * file in seconds): `segment-<id>.parquet.tmp-*` in the day and month folders, and the `.segment-*.jsonl` files
 * that compactions before 0005 wrote at the top, holding the rows of every account. Returns their paths.
 */
export async function removeDeadTemporaries(dir: string, ageMs: number, now = Date.now()): Promise<string[]> {
  const top = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const candidates = top.filter((name) => /^\.segment-.*\.jsonl$/.test(name)).map((name) => join(dir, name));
  for (const folder of top.filter((name) => name.startsWith('day=') || name.startsWith('month='))) {
    for (const name of await readdir(join(dir, folder))) if (name.includes('.parquet.tmp-')) candidates.push(join(dir, folder, name));
  }
  const removed: string[] = [];
  for (const path of candidates) {
    const changed = await stat(path).then((s) => s.mtimeMs, () => null);
    if (changed === null || now - changed < ageMs) continue;
    await rm(path, { force: true });
    removed.push(path);
  }
  return removed;
}
