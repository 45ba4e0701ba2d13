// The change feed (spec 4.6, 6): the events of every publication since the first, in sequence order,
// read from one segment per publication (src/feed/segment.ts). A catalog snapshot's feed is the chain
// of segments from the first publication to it, following each manifest's previous_watermark.
//
// A resume cursor holds the sequence number of the last event the client has seen (or the end of the
// log), signed and bound to the snapshot it was made on and to the filters (types, company_id).

import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { feedFolder, readCatalogManifest, type CatalogManifest } from '../catalog/layout.js';
import type { CatalogSnapshot } from '../catalog/publications.js';
import type { SnapshotOpener } from '../catalog/watcher.js';
import { ApiError, invalidRequest } from '../errors.js';
import type { CursorSigner } from '../shared/cursor.js';
import type { QueryEngine } from '../db/engine.js';
import { jsonList, withoutUnstatedArrangement } from '../jobs/json-bytes.js';
import { withProgress, type ProgressOptions } from '../jobs/open-progress.js';
import { EVENT_TYPES, NO_COMPANY, openSegment, type EventType, type FeedSegment } from './segment.js';

export const CHANGES_ROUTE = 'GET /v1/jobs/changes';

export interface ChangesRequest {
  /** Exactly one of since (ms since the epoch) and after (a resume cursor). */
  since: number | null;
  after: string | null;
  types: EventType[];
  companyId: string | null;
  limit: number;
  sourceData: boolean;
}

export interface ChangesPage {
  /** The page's JSON as UTF-8 bytes: the events spliced into it as the feed's files hold them. */
  json: Buffer;
  /** Events in the page: each counts one record. */
  events: number;
}

export class ChangeFeed {
  private readonly segments = new Map<string, Promise<FeedSegment>>();
  private readonly chains = new Map<string, Promise<FeedSegment[]>>();
  private readonly companyCodes = new Map<string, number>();

  constructor(
    private readonly engine: QueryEngine,
    private readonly cacheDir: string,
    private readonly cursors: CursorSigner,
    private readonly logger: Logger,
    private readonly progress: ProgressOptions = { intervalMs: 0 },
  ) {}

  /** Closes the files of every segment opened; at shutdown, after the last request. */
  async close(): Promise<void> {
    const segments = [...this.segments.values()];
    this.segments.clear();
    this.chains.clear();
    await Promise.all(segments.map((s) => s.then((segment) => segment.close()).catch(() => undefined)));
  }

  /** Opens snapshots with `inner`, then readies their feed before they are served. */
  opener(inner: SnapshotOpener): SnapshotOpener {
    return async (dir, watermark) => {
      const snapshot = await inner(dir, watermark);
      try {
        await this.chain(snapshot);
      } catch (error) {
        this.chains.delete(watermark);
        await snapshot.close();
        throw error;
      }
      return snapshot;
    };
  }

  /** The segments of every publication up to `snapshot`'s, oldest first (as far back as snapshots are kept). */
  private chain(snapshot: CatalogSnapshot): Promise<FeedSegment[]> {
    let chain = this.chains.get(snapshot.watermark);
    if (!chain) {
      chain = withProgress(`opening the change feed up to ${snapshot.watermark}`, this.logger, this.progress, (progress) =>
        this.buildChain(snapshot, (done, total) =>
          progress.set('feed', { step: "writing or reading each publication's events", done, total, unit: 'publications' }),
        ),
      );
      this.chains.set(snapshot.watermark, chain);
    }
    return chain;
  }

  /** `onSegment` is told before each segment is opened, for progress. */
  private async buildChain(snapshot: CatalogSnapshot, onSegment: (done: number, total: number) => void): Promise<FeedSegment[]> {
    const started = performance.now();
    const manifests: { dir: string; manifest: CatalogManifest }[] = [{ dir: snapshot.dir, manifest: snapshot.manifest }];
    for (let previous = snapshot.manifest.previous_watermark; previous !== null;) {
      const dir = join(dirname(snapshot.dir), previous);
      let manifest: CatalogManifest;
      try {
        manifest = await readCatalogManifest(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        break; // no longer kept: the feed starts after it
      }
      manifests.push({ dir, manifest });
      previous = manifest.previous_watermark;
    }
    manifests.reverse();
    const chain: FeedSegment[] = [];
    let built = 0;
    for (const { dir, manifest } of manifests) {
      onSegment(chain.length, manifests.length);
      let segment = this.segments.get(manifest.watermark);
      if (!segment) {
        built++;
        segment = openSegment(
          this.engine,
          dir,
          manifest,
          manifest.serving_files ? feedFolder(dir) : join(this.cacheDir, manifest.watermark),
          (id) => this.companyCode(id),
        );
        this.segments.set(manifest.watermark, segment);
        segment.catch(() => this.segments.delete(manifest.watermark));
      }
      chain.push(await segment);
    }
    const events = chain.reduce((n, s) => n + s.count, 0);
    this.logger.info(
      {
        watermark: snapshot.watermark,
        publications: chain.length,
        opened: built,
        events,
        open_ms: Math.round(performance.now() - started),
      },
      'change feed ready',
    );
    return chain;
  }

  private companyCode(id: string): number {
    let code = this.companyCodes.get(id);
    if (code === undefined) this.companyCodes.set(id, (code = this.companyCodes.size));
    return code;
  }

  /** A page of events of `snapshot`'s feed: `{"data": [...], "resume_cursor", "has_more", "snapshot_watermark"}`. */
  async page(snapshot: CatalogSnapshot, request: ChangesRequest): Promise<ChangesPage> {
    const chain = await this.chain(snapshot);
    const types = [...EVENT_TYPES].filter((t) => request.types.includes(t));
    const scope = { route: CHANGES_ROUTE, watermark: snapshot.watermark, binding: JSON.stringify([types, request.companyId]) };
    const end = chain.length > 0 ? chain.at(-1)!.firstSeq + chain.at(-1)!.count : snapshot.manifest.events.last_seq;

    let position: number; // the seq of the last event already seen
    if (request.after !== null) {
      position = this.cursors.verify(request.after, scope, (watermark, at) => {
        throw watermark < snapshot.watermark
          ? olderCursor(chain, watermark, snapshot.watermark, at)
          : newerCursor(watermark, snapshot.watermark);
      });
    } else {
      position = startAfter(chain, request.since!);
    }

    const wanted = new Uint8Array(EVENT_TYPES.length);
    for (const t of types) wanted[EVENT_TYPES.indexOf(t)] = 1;
    const company = request.companyId === null ? null : (this.companyCodes.get(request.companyId) ?? NO_COMPANY - 1);
    // Up to limit + 1 matching events after `position`: the extra one only says there are more.
    const picked: { segment: FeedSegment; index: number }[] = [];
    for (let k = segmentAfter(chain, position); k < chain.length && picked.length <= request.limit; k++) {
      const segment = chain[k]!;
      for (let i = Math.max(0, position - segment.firstSeq); i < segment.count && picked.length <= request.limit; i++) {
        if (wanted[segment.types[i]!] === 1 && (company === null || segment.companies[i] === company)) picked.push({ segment, index: i });
      }
    }
    const more = picked.length > request.limit;
    const page = picked.slice(0, request.limit);
    const last = page.at(-1);
    const resumeAt = more ? last!.segment.firstSeq + last!.index + 1 : Math.max(position, end);

    const lines: Buffer[] = [];
    for (let from = 0; from < page.length;) {
      let to = from;
      while (to + 1 < page.length && page[to + 1]!.segment === page[from]!.segment) to++;
      const segment = page[from]!.segment;
      const at = page.slice(from, to + 1).map((p) => p.index);
      lines.push(...(request.sourceData ? withSourceData(segment, at) : segment.readEvents(at).map(withoutUnstatedArrangement)));
      from = to + 1;
    }
    const tail = JSON.stringify({
      resume_cursor: this.cursors.sign(scope, resumeAt),
      has_more: more,
      snapshot_watermark: snapshot.watermark,
    });
    return { json: jsonList(lines, tail), events: page.length };
  }
}

/** The events with their postings' source_data. */
function withSourceData(segment: FeedSegment, at: number[]): Buffer[] {
  const sourceData = segment.readSourceData(at);
  return segment.readEvents(at).map((line, i) => {
    const event = JSON.parse(line.toString('utf8')) as { job: { work_arrangement?: unknown; postings: Record<string, unknown>[] } };
    if (event.job.work_arrangement === null) delete event.job.work_arrangement;
    event.job.postings.forEach((p, k) => (p.source_data = sourceData[i]![k]));
    return Buffer.from(JSON.stringify(event));
  });
}

/** The seq after which the events strictly after `since` begin: every event of a publication shares its occurred_at. */
function startAfter(chain: FeedSegment[], since: number): number {
  const first = chain[0];
  if (first && since < first.occurredAt && first.firstSeq > 0) {
    throw invalidRequest(
      `since is before the oldest change this server keeps (${new Date(first.occurredAt).toISOString()}): load the jobs in full with GET /v1/jobs, then follow the feed from the time that load began.`,
    );
  }
  const segment = chain.find((s) => s.occurredAt > since);
  return segment ? segment.firstSeq : chain.length > 0 ? chain.at(-1)!.firstSeq + chain.at(-1)!.count : 0;
}

/** The first segment holding an event after `position` (chain.length when none does). */
function segmentAfter(chain: FeedSegment[], position: number): number {
  let lo = 0;
  let hi = chain.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (chain[mid]!.firstSeq + chain[mid]!.count <= position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A cursor of an older snapshot is refused (spec 4.6 rule 3), with the `since` that resumes without a
 * gap: just before the publication holding the next event the client has not seen. Events of that
 * publication it has already seen come again; applying them again changes nothing.
 */
function olderCursor(chain: FeedSegment[], watermark: string, latest: string, position: number): ApiError {
  const next = chain[segmentAfter(chain, position)];
  const since = new Date(next ? next.occurredAt - 1 : (chain.at(-1)?.occurredAt ?? 0)).toISOString();
  return new ApiError(
    'invalid_request',
    `after is a resume_cursor of catalog snapshot ${watermark}, and ${latest} is published now: resume with since=${since} (also in resume_since); events you already applied may come again.`,
    { extra: { resume_since: since } },
  );
}

/** A cursor made by a replica that already serves a newer snapshot than this one: retry shortly. */
function newerCursor(watermark: string, current: string): ApiError {
  return new ApiError(
    'service_unavailable',
    `after is a resume_cursor of catalog snapshot ${watermark}, newer than ${current} that this server still answers from; retry shortly.`,
  );
}
