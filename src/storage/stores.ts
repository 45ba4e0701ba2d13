// The object stores a node uses, from the configuration: with --object-store, one S3-compatible bucket
// holds everything (publications under catalog/ and registry/, the rest under pipeline/, exports/,
// ledger/, mcp/), and the local folders are caches; without it, the local folders are the stores:
// publications in the snapshots folder, the rest in the data folder, as a single node keeps them.

import { join } from 'node:path';
import type { Config } from '../config.js';
import { FolderStore, parseS3Url, type ObjectStore } from './object-store.js';

export interface Stores {
  /** catalog/ and registry/: the publications. */
  publications: ObjectStore;
  /** pipeline/, exports/, ledger/, mcp/: what the publisher and the servers write. */
  data: ObjectStore;
  /** Whether the stores are shared by every node (an object store), rather than this node's folders. */
  shared: boolean;
  /** This node's deletable copies of objects it reads (ledger segments, MCP files, export parts). */
  cacheDir: string;
  close(): void;
}

export async function openStores(config: Pick<Config, 'objectStore' | 'snapshotsDir' | 'dataDir'>): Promise<Stores> {
  const cacheDir = join(config.dataDir, 'cache');
  const s3 = config.objectStore === '' ? null : parseS3Url(config.objectStore);
  if (!s3)
    return {
      publications: new FolderStore(config.snapshotsDir),
      data: new FolderStore(config.dataDir),
      shared: false,
      cacheDir,
      close: () => undefined,
    };
  const { S3Store } = await import('./s3-store.js');
  const store = new S3Store(s3.bucket, s3.prefix);
  return { publications: store, data: store, shared: true, cacheDir, close: () => store.destroy() };
}
