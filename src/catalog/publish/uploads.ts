// The publisher's traffic with the object store besides the commit: the files uploaded as they are
// complete, what a publisher that died before its commit left removed, and old publisher states pruned.

import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import pLimit from 'p-limit';
import type { PublicationMirror } from '../mirror.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { KEEP_STATES } from './commit.js';
import type { Progress } from './progress.js';

/** Files uploaded at once (each object of over 16 MiB itself in a few parts at once). */
const UPLOADS_AT_ONCE = 2;

/**
 * Removes from the object store what a publisher that died before its commit uploaded: publications and
 * publisher states newer than catalog/LATEST (nothing reads them: LATEST has never named them).
 */
export async function removeUncommitted(
  mirror: PublicationMirror,
  data: ObjectStore,
  latest: string | null,
  progress: Progress,
): Promise<void> {
  const newer = (key: string, root: string) => {
    const name = key.slice(root.length).split('/')[0]!;
    return name !== 'LATEST' && (latest === null || name > latest);
  };
  const catalog = (await mirror.store.list('catalog/')).filter((o) => newer(o.key, 'catalog/'));
  const states = (await data.list('pipeline/')).filter((o) => newer(o.key, 'pipeline/'));
  if (catalog.length + states.length === 0) return;
  progress.note(`removing ${catalog.length + states.length} objects a stopped publication uploaded but never committed`);
  await mirror.store.delete(catalog.map((o) => o.key));
  await data.delete(states.map((o) => o.key));
}

/** The publisher's states kept in the object store: the latest few, as in the local folder. */
export async function prunePipelineStates(data: ObjectStore, latest: string): Promise<void> {
  const objects = await data.list('pipeline/');
  const names = [...new Set(objects.map((o) => o.key.split('/')[1]!))].filter((n) => n <= latest).sort();
  const gone = new Set(names.slice(0, Math.max(0, names.length - KEEP_STATES)));
  await data.delete(objects.filter((o) => gone.has(o.key.split('/')[1]!)).map((o) => o.key));
}

export async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'));
}

/** Uploads of local files to object stores, a few at once, started as the files are complete. */
export class Uploads {
  private readonly limit = pLimit(UPLOADS_AT_ONCE);
  private readonly started: Promise<void>[] = [];
  private readonly keys = new Set<string>();

  get size(): number {
    return this.started.length;
  }

  /** Starts the upload of the file at `path` as `key` in `store`, unless it is on its way already. */
  add(store: ObjectStore, key: string, path: string): void {
    if (this.keys.has(`${store.location}${key}`)) return;
    this.keys.add(`${store.location}${key}`);
    const upload = this.limit(() => store.putFile(key, path));
    upload.catch(() => undefined); // reported by done()
    this.started.push(upload);
  }

  /** When every upload has succeeded; the first failure otherwise. */
  async done(): Promise<void> {
    await Promise.all(this.started);
  }

  /** When none is running any more (successful or not). */
  async settled(): Promise<void> {
    await Promise.allSettled(this.started);
  }
}
