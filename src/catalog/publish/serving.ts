// What serving needs, built once by the publisher into the publication (rather than by every server as
// it opens it): the job documents, the postings' source_data and the title and description indexes
// under serving/, the change feed's events of this publication under feed/. They are written by the
// same statements and builders a server used to run at open (src/jobs/snapshot.ts, src/feed/segment.ts),
// and read by them in place.

import type { CatalogManifest } from '../layout.js';
import { feedFolder, servingFolder } from '../layout.js';
import { QueryEngine } from '../../jobs/engine.js';
import { writeServingFiles } from '../../jobs/snapshot.js';
import { openSegment } from '../../feed/segment.js';

/** An hour: the publisher's queries have no client waiting on them. */
const NO_LIMIT_MS = 3_600_000;

/** Builds the serving files of the publication in `dir` (its manifest already says serving_files). */
export async function buildServingFiles(dir: string, manifest: CatalogManifest, threads: number): Promise<void> {
  const engine = await QueryEngine.open({ threads, timeoutMs: NO_LIMIT_MS });
  try {
    // The feed's files are written while the text indexes build in their worker thread.
    await writeServingFiles(engine, dir, servingFolder(dir), manifest.counts.jobs, async () => {
      const segment = await openSegment(engine, dir, manifest, feedFolder(dir), () => 0);
      await segment.close();
    });
  } finally {
    engine.close();
  }
}
