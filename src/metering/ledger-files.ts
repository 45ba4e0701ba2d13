// Where the ledger's Parquet segments are kept: `ledger/day=<YYYY-MM-DD>/segment-<id>.parquet` and
// `ledger/month=<YYYY-MM>/segment-<id>.parquet` in the data store (src/storage/stores.ts). Nothing else
// touches them. DuckDB reads local files, so: in a folder store (one node) a segment is written and read
// in place, under data/ledger/; in an object store it is written to this node's cache, uploaded, and a
// node that reads it copies it into its cache first. A segment's file never changes once it is durable
// (written again, it holds the same rows), so a cached copy is always right and can be deleted at any time.

import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { exists, fsyncPath } from '../catalog/files.js';
import { FolderStore, type ObjectStore } from '../storage/object-store.js';
import type { Stores } from '../storage/stores.js';

/** Segment levels: written by compaction, a day's segments merged, a month's merged (from its first day). */
export const LEVEL = { compacted: 0, day: 1, month: 2 } as const;

/** A segment as the store lists it. */
export interface SegmentRef {
  segment_id: string | number;
  /** YYYY-MM-DD: its day, or its month's first day. */
  day: string;
  level: string | number;
}

/** Where a ledger keeps its segments: the node's stores, or a ledger folder read in place (tests, bench). */
export type LedgerPlace = Pick<Stores, 'data' | 'cacheDir'> | string;

/** Segments copied from the object store at once, for one read. */
const PARALLEL_FETCHES = 8;
/** A cache temporary this old is a dead copy's: a live one finishes in seconds. */
const CACHE_TEMPORARY_MS = 10 * 60_000;

/** A segment's path under the ledger folder: day=<YYYY-MM-DD>/, or month=<YYYY-MM>/ for a month's. */
function segmentName(s: SegmentRef): string[] {
  const folder = Number(s.level) === LEVEL.month ? `month=${s.day.slice(0, 7)}` : `day=${s.day}`;
  return [folder, `segment-${s.segment_id}.parquet`];
}

/** The file of a segment in the ledger folder `dir`. */
export function segmentFile(dir: string, s: SegmentRef): string {
  return join(dir, ...segmentName(s));
}

export class SegmentFiles {
  /** Where DuckDB reads segments: the store's own ledger folder, or this node's cache of the store's. */
  readonly folder: string;
  /** Whether `folder` is a cache: a segment is uploaded when written and copied here when read. */
  readonly cached: boolean;
  /** Copies under way, by local path: two reads of one segment copy it once. */
  private readonly fetching = new Map<string, Promise<void>>();

  constructor(
    private readonly objects: ObjectStore,
    /** The segments' keys start with this: `ledger/`. */
    private readonly prefix: string,
    cacheDir: string,
  ) {
    this.cached = objects.folder === null;
    this.folder = objects.folder === null ? cacheDir : join(objects.folder, ...prefix.split('/').filter((part) => part !== ''));
  }

  static at(place: LedgerPlace): SegmentFiles {
    if (typeof place === 'string') return new SegmentFiles(new FolderStore(place), '', place);
    return new SegmentFiles(place.data, 'ledger/', join(place.cacheDir, 'ledger'));
  }

  /** Where the segments are, for logs. */
  get location(): string {
    return this.cached ? `${this.objects.location}${this.prefix}` : this.folder;
  }

  private key(s: SegmentRef): string {
    return `${this.prefix}${segmentName(s).join('/')}`;
  }

  private path(s: SegmentRef): string {
    return segmentFile(this.folder, s);
  }

  /**
   * Writes the segment whole or not at all: `fill` writes a local temporary, which is uploaded (to an
   * object store) and renamed into place. What a stopped run left for the same segment goes first.
   * `beforeCommit` lets tests stop it with the temporary written, as a kill would.
   */
  async write(s: SegmentRef, fill: (temporary: string) => Promise<void>, beforeCommit?: () => void): Promise<void> {
    const path = this.path(s);
    const folder = dirname(path);
    await mkdir(folder, { recursive: true });
    for (const name of await readdir(folder)) if (name.startsWith(`${basename(path)}.tmp-`)) await rm(join(folder, name), { force: true });
    const temporary = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await fill(temporary);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    beforeCommit?.();
    await fsyncPath(temporary);
    if (this.cached) await this.objects.putFile(this.key(s), temporary);
    await rename(temporary, path);
    await fsyncPath(folder);
  }

  /**
   * Runs `read` on the local files of `segments`, copied into the cache first where they are not. A cached
   * copy DuckDB cannot read (cut short by a full disk or a power cut, or deleted since it was looked for:
   * its error names the file) is copied again, once.
   */
  async read<T>(segments: SegmentRef[], read: (files: string[]) => Promise<T>): Promise<T> {
    const files = await this.local(segments);
    try {
      return await read(files);
    } catch (error) {
      const message = String((error as Error).message);
      const unreadable = this.cached ? segments.filter((_, i) => message.includes(files[i]!)) : [];
      if (unreadable.length === 0) throw error;
      await Promise.all(unreadable.map((s) => rm(this.path(s), { force: true })));
      return read(await this.local(segments));
    }
  }

  /** The local files of `segments`, copied from the object store into the cache where they are not. */
  private async local(segments: SegmentRef[]): Promise<string[]> {
    const files = segments.map((s) => this.path(s));
    if (!this.cached) return files;
    const present = await Promise.all(files.map((file) => exists(file)));
    const missing = segments.filter((_, i) => !present[i]);
    for (let at = 0; at < missing.length; at += PARALLEL_FETCHES)
      await Promise.all(missing.slice(at, at + PARALLEL_FETCHES).map((s) => this.fetch(s)));
    return files;
  }

  private fetch(s: SegmentRef): Promise<void> {
    const path = this.path(s);
    let copying = this.fetching.get(path);
    if (!copying) {
      copying = this.objects
        .getFile(this.key(s), path)
        .then((found) => {
          if (!found) throw new Error(`ledger segment ${this.key(s)} is missing from ${this.objects.location}`);
        })
        .finally(() => this.fetching.delete(path));
      this.fetching.set(path, copying);
    }
    return copying;
  }

  /** Deletes a segment: its object, and this node's copy; one already gone is no error (a stopped run deleted it). */
  async delete(s: SegmentRef): Promise<void> {
    if (this.cached) await this.objects.delete([this.key(s)]);
    await rm(this.path(s), { force: true });
  }

  /**
   * Removes the temporaries of runs that died, last changed more than `ageMs` ago (a live run finishes a
   * file in seconds): `segment-<id>.parquet.tmp-*` in the day and month folders, and the `.segment-*.jsonl`
   * files that compactions before 0005 wrote at the top, holding the rows of every account. Returns their
   * paths. An object store holds none (an upload is whole or absent); the cache's go with prune().
   */
  async removeDeadTemporaries(ageMs: number, now = Date.now()): Promise<string[]> {
    if (this.cached) return [];
    const { top, files } = await listFolder(this.folder);
    const candidates = [
      ...top.filter((name) => /^\.segment-.*\.jsonl$/.test(name)).map((name) => join(this.folder, name)),
      ...files.filter(isTemporary),
    ];
    return removeOlder(candidates, ageMs, now);
  }

  /**
   * Bounds this node's cache by the store's ledger: removes the copies of segments not in `known` (those
   * the state store no longer lists: deleted from the object store) and dead copies' temporaries. Nothing
   * to do when segments are read in place. Returns the removed paths.
   */
  async prune(known: Set<string>, now = Date.now()): Promise<string[]> {
    if (!this.cached) return [];
    const { files } = await listFolder(this.folder);
    const unknown = files.filter((file) => {
      const id = /^segment-(\d+)\.parquet$/.exec(basename(file))?.[1];
      return id !== undefined && !known.has(id);
    });
    for (const file of unknown) await rm(file, { force: true });
    return [...unknown, ...(await removeOlder(files.filter(isTemporary), CACHE_TEMPORARY_MS, now))];
  }
}

const isTemporary = (file: string) => basename(file).includes('.parquet.tmp-');

/** The names at the top of the ledger folder `dir`, and the files of its day= and month= folders. */
async function listFolder(dir: string): Promise<{ top: string[]; files: string[] }> {
  const top = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const files: string[] = [];
  for (const folder of top.filter((name) => name.startsWith('day=') || name.startsWith('month='))) {
    for (const name of await readdir(join(dir, folder)).catch(() => [] as string[])) files.push(join(dir, folder, name));
  }
  return { top, files };
}

/** Removes those of `paths` last changed more than `ageMs` before `now`; returns them. */
async function removeOlder(paths: string[], ageMs: number, now: number): Promise<string[]> {
  const removed: string[] = [];
  for (const path of paths) {
    const changed = await stat(path).then(
      (s) => s.mtimeMs,
      () => null,
    );
    if (changed === null || now - changed < ageMs) continue;
    await rm(path, { force: true });
    removed.push(path);
  }
  return removed;
}
