// What serving needs, built once by the publisher into the publication (rather than by every server as
// it opens it): the job documents, the postings' source_data and the title and description indexes
// under serving/, the change feed's events of this publication under feed/. They are written by the
// same statements and builders a server used to run at open (src/jobs/snapshot.ts, src/feed/segment.ts),
// and read by them in place.

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CatalogManifest } from '../layout.js';
import { FEED, feedFolder, SERVING, servingFolder } from '../layout.js';
import { QueryEngine } from '../../db/engine.js';
import { writeServingFiles } from '../../jobs/snapshot.js';
import { openSegment } from '../../feed/segment.js';

/** An hour: the publisher's queries have no client waiting on them. */
const NO_LIMIT_MS = 3_600_000;

/**
 * Builds the serving files of the publication in `dir` (its manifest already says serving_files), saying
 * each one's path (relative to `dir`) through `written` as soon as it is complete.
 */
export async function buildServingFiles(
  dir: string,
  manifest: CatalogManifest,
  threads: number,
  written: (path: string) => void = () => undefined,
): Promise<void> {
  const said = new Set<string>();
  const sayNew = async (folder: typeof SERVING | typeof FEED) => {
    for (const name of (await readdir(join(dir, folder))).sort()) {
      const path = `${folder}/${name}`;
      if (name.includes('.tmp-') || said.has(path)) continue;
      said.add(path);
      written(path);
    }
  };
  const engine = await QueryEngine.open({ threads, timeoutMs: NO_LIMIT_MS });
  try {
    // The feed's files are written while the text indexes build in their worker threads.
    await writeServingFiles(engine, dir, servingFolder(dir), { workers: threads, jobs: manifest.counts.jobs }, async () => {
      await sayNew(SERVING);
      const segment = await openSegment(engine, dir, manifest, feedFolder(dir), () => 0, join(servingFolder(dir), 'documents.jsonl'));
      await segment.close();
      await sayNew(FEED);
    });
    await sayNew(SERVING);
  } finally {
    engine.close();
  }
}
