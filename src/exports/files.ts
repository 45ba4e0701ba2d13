// Writing one export file: the jobs rendered as gzip JSON Lines, or a Parquet file DuckDB writes, into a
// temporary file of this server, hashed as it is written. The runner (runner.ts) stores it whole and lists it.

import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { RegistryRelease } from '../catalog/publications.js';
import type { QueryEngine } from '../db/engine.js';
import { jsonLines } from '../jobs/json-bytes.js';
import type { JobsService } from '../jobs/service.js';
import type { JobsSnapshot } from '../jobs/snapshot.js';
import type { ExportRequest } from './request.js';
import { sqlString } from '../db/sql-literal.js';

/** Jobs rendered at a time: the event loop answers other requests between batches. */
const BATCH = 500;

export interface Renderer {
  jobs: JobsService;
  engine: QueryEngine;
  registry: RegistryRelease | null;
}

/** This server's temporary file of file n, in an export's working folder. */
export const temporary = (folder: string, n: number) => join(folder, `.tmp-${n}`);

/** Writes the jobs `docs` of snapshot `s` to `path` in the request's format; its size and sha256. */
export async function writeJobsFile(
  r: Renderer,
  s: JobsSnapshot,
  request: ExportRequest,
  docs: number[],
  path: string,
): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  if (request.format === 'jsonl') {
    async function* lines() {
      for (let at = 0; at < docs.length; at += BATCH) {
        const batch = await r.jobs.render(s, r.registry, docs.slice(at, at + BATCH), request, true);
        yield jsonLines(batch);
      }
    }
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    await pipeline(Readable.from(lines()), createGzip({ level: 1 }), hashing, createWriteStream(path));
  } else {
    await writeParquet(r.engine, s, request, docs, path);
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) hash.update(chunk);
  }
  return { bytes: (await stat(path)).size, sha256: hash.digest('hex') };
}

/** A Parquet file of the jobs in order, with the columns of the projection (DuckDB writes it). */
async function writeParquet(engine: QueryEngine, s: JobsSnapshot, request: ExportRequest, docs: number[], path: string): Promise<void> {
  // job_id always comes first, as in the JSON shape.
  const columns =
    request.fields === null
      ? '* EXCLUDE (pos)'
      : ['job_id', ...request.fields.filter((f) => f !== 'job_id')].map((f) => `"${f}"`).join(', ');
  // The doc numbers are this server's own integers, so they go into the statement as a literal list.
  const list = `[${docs.join(',')}]`;
  await engine.withConnection((c) =>
    c.run(`COPY (
      SELECT ${columns} FROM (
        SELECT unnest(job_document(n)), d.pos FROM ${s.prefix}numbered n
        JOIN (SELECT unnest(${list}) AS doc, generate_subscripts(${list}, 1) AS pos) d ON d.doc = n.doc
      ) ORDER BY pos
    ) TO ${sqlString(path)} (FORMAT parquet, COMPRESSION zstd)`),
  );
}

/**
 * Removes what interrupted writes left in an export's working folder (this runner's temporary files and
 * the folder store's), then the folder itself when nothing else is in it (when the objects live elsewhere).
 */
export async function tidy(folder: string): Promise<void> {
  const names = await readdir(folder).catch(() => []);
  for (const name of names) if (name.includes('.tmp-')) await rm(join(folder, name), { force: true });
  await rmdir(folder).catch(() => undefined);
}
