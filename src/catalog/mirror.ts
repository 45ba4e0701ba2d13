// A node's copy of the publications of the object store (src/storage/object-store.ts). The store holds
// them (catalog/<watermark>/..., registry/<release>/...) and the pointer catalog/LATEST, written last by
// the publisher: the one commit point. A node reads a publication from its local copy under the
// snapshots folder, fetched when it is first needed: files first, the manifest last, so a copy with a
// manifest is whole. The copy is a cache: deleting it costs a download. When the store is the snapshots
// folder itself (a single node), nothing is copied.

import { readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ObjectStore } from '../storage/object-store.js';
import { exists, removeDeadTemporaries } from './files.js';
import { catalogRoot, FEED, publishedNames, readCatalogManifest, registryRoot, SERVING, snapshotDir, TRENDS } from './layout.js';

const MANIFEST = 'manifest.json';
/** Publications whose serving files and versions are kept (the latest and those before it a lagging replica may still open). */
const KEEP_SERVING = 3;
/**
 * What only the newest publications keep: the serving files (an export created on an older one builds
 * them back) and the versions trends read (only the latest's are read, and the next publication carries
 * them on; ADR 0012), about 200 MB a publication at a million jobs.
 */
const PRUNED = [SERVING, TRENDS];
/** Files copied at once. */
const PARALLEL = 4;

export class PublicationMirror {
  /** Prefixes already checked whole in this process (publications never change). */
  private readonly fetched = new Set<string>();

  constructor(
    readonly store: ObjectStore,
    readonly snapshotsDir: string,
  ) {}

  /** Whether publications live elsewhere and are copied here; false when the store is this folder. */
  get remote(): boolean {
    return this.store.folder !== this.snapshotsDir;
  }

  /** The watermark catalog/LATEST names, or null before the first publication. */
  async latest(): Promise<string | null> {
    const value = (await this.store.get('catalog/LATEST'))?.toString('utf8').trim();
    return value ? value : null;
  }

  /** The local folder of the whole publication `watermark`, fetched if needed; null when the store has none. */
  async fetchCatalog(watermark: string): Promise<string | null> {
    return (await this.fetch(`catalog/${watermark}/`)) ? snapshotDir(this.snapshotsDir, watermark) : null;
  }

  /** The manifest and the change feed's files of publication `watermark` (what the feed reads of an older one). */
  async fetchFeed(watermark: string): Promise<boolean> {
    return this.fetch(`catalog/${watermark}/`, (key) => key.endsWith(`/${MANIFEST}`) || key.includes('/feed/'));
  }

  /** The local folder of registry release `releaseId`, fetched if needed; null when the store has none. */
  async fetchRelease(releaseId: string): Promise<string | null> {
    return (await this.fetch(`registry/${releaseId}/`)) ? join(registryRoot(this.snapshotsDir), releaseId) : null;
  }

  /**
   * Copies the objects under `prefix` (those `wanted`) that the local copy lacks or holds at another size,
   * the manifest last; false when the store holds no manifest there (not published, or not yet whole).
   */
  private async fetch(prefix: string, wanted: (key: string) => boolean = () => true): Promise<boolean> {
    const local = (key: string) => join(this.snapshotsDir, ...key.split('/'));
    if (!this.remote) return exists(local(`${prefix}${MANIFEST}`));
    const tag = `${prefix}|${wanted.toString()}`;
    if (this.fetched.has(tag) && (await exists(local(`${prefix}${MANIFEST}`)))) return true;
    const objects = (await this.store.list(prefix)).filter((o) => wanted(o.key));
    const manifest = objects.find((o) => o.key === `${prefix}${MANIFEST}`);
    if (!manifest) return false;
    // Fetched first under another name (it names the files to check), put in place last.
    const fetched = local(`${prefix}.${MANIFEST}.fetched`);
    await this.store.getFile(manifest.key, fetched);
    const listed = JSON.parse(await readFile(fetched, 'utf8')) as { files?: Record<string, { bytes: number }> };
    // Whole or not at all: every file the manifest names is in the store at its size (a publisher
    // racing another could have had part of it deleted), or the copy is refused.
    const sizes = new Map(objects.map((o) => [o.key, o.size]));
    // An older publication's serving files and versions may have been pruned (each folder whole): a server
    // builds the serving files again, and trends read only the latest's versions.
    const pruned = PRUNED.filter((folder) => !objects.some((o) => o.key.startsWith(`${prefix}${folder}/`)));
    for (const [name, { bytes }] of Object.entries(listed.files ?? {})) {
      const key = `${prefix}${name}`;
      if (pruned.some((folder) => name.startsWith(`${folder}/`))) continue;
      if (wanted(key) && sizes.get(key) !== bytes)
        throw new Error(
          `${this.store.location}${key} is ${sizes.has(key) ? `${sizes.get(key)} bytes where its manifest says ${bytes}` : 'missing'}: the publication is not whole`,
        );
    }
    // What a node killed mid-copy left.
    for (const folder of ['', SERVING, FEED]) await removeDeadTemporaries(join(local(prefix), folder));
    const files = objects.filter((o) => o !== manifest);
    // A few files at once: one stream rarely fills the link to an object store.
    for (let next = 0; next < files.length;) {
      await Promise.all(
        files.slice(next, (next += PARALLEL)).map(async (object) => {
          const size = await stat(local(object.key)).then(
            (s) => s.size,
            () => -1,
          );
          if (size !== object.size) await this.store.getFile(object.key, local(object.key));
        }),
      );
    }
    await rename(fetched, local(manifest.key));
    this.fetched.add(tag);
    return true;
  }

  /**
   * Uploads the local folder of publication `prefix` (catalog/<watermark>/ or registry/<release>/) to the
   * store, the manifest last, so a reader that finds the manifest finds every file. Nothing to do when the
   * store is this folder.
   */
  async push(prefix: string, files: string[]): Promise<void> {
    if (!this.remote) return;
    const local = (name: string) => join(this.snapshotsDir, ...prefix.split('/'), ...name.split('/'));
    const ordered = [...files.filter((f) => f !== MANIFEST), ...files.filter((f) => f === MANIFEST)];
    for (const name of ordered) await this.store.putFile(`${prefix}${name}`, local(name));
  }

  /**
   * Removes the serving files and versions of this node's copies of publications older than the `keep`
   * newest up to `current` (the serving files are read again only by an export created on one, which
   * builds them back).
   */
  async trim(current: string, keep = KEEP_SERVING): Promise<void> {
    if (!this.remote) return;
    const older = (await publishedNames(catalogRoot(this.snapshotsDir))).filter((name) => name <= current);
    for (const name of older.slice(0, Math.max(0, older.length - keep))) await removePruned(snapshotDir(this.snapshotsDir, name));
  }

  /**
   * The publisher's part: removes from the store the serving files and versions of publications older
   * than the `keep` newest (and from this node's copy).
   */
  async pruneServing(keep = KEEP_SERVING): Promise<void> {
    const objects = await this.store.list('catalog/');
    const names = [...new Set(objects.map((o) => o.key.split('/')[1]!).filter((n) => n !== 'LATEST' && !n.startsWith('.')))].sort();
    const old = new Set(names.slice(0, Math.max(0, names.length - keep)));
    if (this.remote)
      await this.store.delete(
        objects.filter((o) => old.has(o.key.split('/')[1]!) && PRUNED.includes(o.key.split('/')[2]!)).map((o) => o.key),
      );
    for (const name of old) await removePruned(snapshotDir(this.snapshotsDir, name));
  }

  /** The commit: catalog/LATEST names `watermark` (and so, through its manifest, its registry release). */
  async commit(watermark: string): Promise<void> {
    await this.store.put('catalog/LATEST', `${watermark}\n`);
  }

  /** For people and tools: registry/ACTIVE names the release the latest catalog uses (nothing serves from it). */
  async activate(releaseId: string): Promise<void> {
    await this.store.put('registry/ACTIVE', `${releaseId}\n`);
  }

  /** The manifest of the local copy of publication `watermark`. */
  manifest(watermark: string) {
    return readCatalogManifest(snapshotDir(this.snapshotsDir, watermark));
  }

  /** The catalog folder of the local copy. */
  get catalogFolder(): string {
    return catalogRoot(this.snapshotsDir);
  }
}

/** Removes what only the newest publications keep from the local folder of an older one. */
async function removePruned(dir: string): Promise<void> {
  for (const folder of PRUNED) await rm(join(dir, folder), { recursive: true, force: true });
}
