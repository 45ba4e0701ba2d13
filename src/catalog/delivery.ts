// The collectors' delivery of one day (docs/corpus.md): reads, postings by source, withdrawals,
// and sometimes a company registry release. This module reads and checks its manifest.

import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { OperatorError } from '../shared/operator-error.js';

export const DELIVERY_FORMAT = 'jps-delivery/1';

interface FileRef {
  path: string;
  rows: number;
}

export interface DayManifest {
  format: string;
  day: number;
  cutoff: string;
  reads: FileRef;
  postings: (FileRef & { source: string })[];
  withdrawals: FileRef | null;
  registry: { path: string; release_id: string; companies: number } | null;
}

export interface Delivery {
  dir: string;
  manifest: DayManifest;
  readsPath: string;
  postingPaths: string[];
  withdrawalsPath: string | null;
  registry: { releaseId: string; companiesPath: string; releasedAt: string } | null;
}

export class DeliveryError extends OperatorError {}

function isIsoInstant(text: unknown): text is string {
  return typeof text === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(text) && !Number.isNaN(Date.parse(text));
}

async function mustExist(path: string): Promise<string> {
  try {
    await stat(path);
    return path;
  } catch {
    throw new DeliveryError(`the delivery names ${path}, which does not exist`);
  }
}

/** Reads `dir/manifest.json` and checks that everything it names is there. */
export async function readDelivery(dir: string): Promise<Delivery> {
  const root = resolve(dir);
  let manifest: DayManifest;
  try {
    manifest = JSON.parse(await readFile(join(root, 'manifest.json'), 'utf8')) as DayManifest;
  } catch (error) {
    throw new DeliveryError(`${join(root, 'manifest.json')} is missing or not JSON: ${(error as Error).message}`);
  }
  if (manifest.format !== DELIVERY_FORMAT)
    throw new DeliveryError(`unknown delivery format "${manifest.format}" (expected ${DELIVERY_FORMAT})`);
  if (!isIsoInstant(manifest.cutoff)) throw new DeliveryError(`manifest cutoff "${String(manifest.cutoff)}" is not a UTC RFC 3339 instant`);
  if (!Array.isArray(manifest.postings) || manifest.postings.length === 0) throw new DeliveryError('the delivery lists no postings files');
  const registry = manifest.registry
    ? await (async () => {
        const folder = join(root, manifest.registry!.path);
        const release = JSON.parse(await readFile(join(folder, 'release.json'), 'utf8')) as { release_id: string; released_at: string };
        if (!/^[A-Za-z0-9._-]+$/.test(release.release_id))
          throw new DeliveryError(`registry release id "${release.release_id}" is not a safe folder name`);
        return {
          releaseId: release.release_id,
          releasedAt: release.released_at,
          companiesPath: await mustExist(join(folder, 'companies.jsonl')),
        };
      })()
    : null;
  return {
    dir: root,
    manifest,
    readsPath: await mustExist(join(root, manifest.reads.path)),
    postingPaths: await Promise.all(manifest.postings.map((p) => mustExist(join(root, p.path)))),
    withdrawalsPath: manifest.withdrawals ? await mustExist(join(root, manifest.withdrawals.path)) : null,
    registry,
  };
}
