// Where publications live: snapshots/catalog/<watermark>/ and snapshots/registry/<release>/, each
// named by a pointer file, and the publisher's own state under data/pipeline/<watermark>/.

import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Format 2: jobs carry their occupation and the pay their description states (docs/adr/0009-catalog-format-2.md);
 * 3: and the skills their description names and their posting reality (docs/adr/0010-skills.md, 0011-posting-reality.md).
 */
export const CATALOG_FORMAT = 'jps-catalog/3';
export const REGISTRY_FORMAT = 'jps-registry/1';

export const catalogRoot = (snapshotsDir: string) => join(snapshotsDir, 'catalog');
export const snapshotDir = (snapshotsDir: string, watermark: string) => join(catalogRoot(snapshotsDir), watermark);
export const latestPointer = (snapshotsDir: string) => join(catalogRoot(snapshotsDir), 'LATEST');

export const registryRoot = (snapshotsDir: string) => join(snapshotsDir, 'registry');
export const releaseDir = (snapshotsDir: string, releaseId: string) => join(registryRoot(snapshotsDir), releaseId);
export const activePointer = (snapshotsDir: string) => join(registryRoot(snapshotsDir), 'ACTIVE');

export const pipelineRoot = (dataDir: string) => join(dataDir, 'pipeline');
export const pipelineDir = (dataDir: string, watermark: string) => join(pipelineRoot(dataDir), watermark);

/** The name a pointer file holds, or null when it does not exist yet. */
export async function readPointer(path: string): Promise<string | null> {
  try {
    const value = (await readFile(path, 'utf8')).trim();
    return value === '' ? null : value;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Folders under `root` that are published names (not temporaries, not pointers), sorted. */
export async function publishedNames(root: string): Promise<string[]> {
  try {
    const entries = await readdir(root, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export interface CatalogManifest {
  /** CATALOG_FORMAT, or an older format of a snapshot published before. */
  format: string;
  watermark: string;
  previous_watermark: string | null;
  published_at: string;
  registry_release: string | null;
  input: { day: number; path: string; cutoff: string };
  counts: {
    jobs: number;
    postings: number;
    by_currentness: Record<string, number>;
    events: Record<'created' | 'updated' | 'expired', number>;
    redirects: number;
    withdrawn: number;
    merged: number;
  };
  /** Event sequence numbers of this publication: (first, last]; the feed continues from the previous last. */
  events: { first_seq: number; last_seq: number };
  files: Record<string, { rows: number; bytes: number }>;
  /**
   * Whether the publication carries what serving needs, built once by the publisher: the job documents
   * and text indexes under serving/, the change feed's events under feed/. Publications made before
   * these were built at publish lack it: each server builds them into its own cache.
   */
  serving_files?: boolean;
}

/** The names of a publication's folders: serving files, the change feed's files, the versions its trends read. */
export const SERVING = 'serving';
export const FEED = 'feed';
export const TRENDS = 'trends';
/** The folders of a publication holding its serving files (serving_files). */
export const servingFolder = (dir: string) => join(dir, SERVING);
export const feedFolder = (dir: string) => join(dir, FEED);
/** The folder of a publication holding the versions its trends read (docs/adr/0012-trends.md); absent before them. */
export const trendsFolder = (dir: string) => join(dir, TRENDS);

export async function readCatalogManifest(dir: string): Promise<CatalogManifest> {
  return JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as CatalogManifest;
}
