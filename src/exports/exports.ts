// Bulk exports (spec 4.8, DESIGN.md 5): created here, written by the runner (src/exports/runner.ts),
// downloaded file by file from any server. An export reads the catalog snapshot that was latest when it
// was created, to its end; its matching count is reserved from the records allowance at creation and
// charged once, at completion. Its files are objects exports/<export_id>/<file name> of the data store
// (src/storage/stores.ts): the shared object store, or, on a single node, the data folder itself.

import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Lease, Publications, CatalogSnapshot } from '../catalog/publications.js';
import { earlierAnswer, once, type IdempotencyKey } from '../db/idempotency.js';
import { namedQueries } from '../db/sql-files.js';
import type { Queryable, StateStore } from '../db/state-store.js';
import { ApiError, retryAfter } from '../errors.js';
import type { JobsService } from '../jobs/service.js';
import type { JobsSnapshot } from '../jobs/snapshot.js';
import { monthKey, monthOf } from '../metering/months.js';
import type { Caller } from '../metering/keys.js';
import { reserveRecords } from '../metering/meter.js';
import type { ObjectStore } from '../storage/object-store.js';
import { normalised, readExportRequest, type ExportRequest } from './request.js';
import { UUID } from '../shared/ids.js';

export const SQL = namedQueries('state/exports.sql', [
  'insert',
  'active',
  'get',
  'list',
  'claim',
  'renew',
  'file_done',
  'queued',
  'for_update',
  'complete',
  'fail',
  'due_to_expire',
  'expire',
  'release_leases',
]);

/** Jobs per export file. */
export const FILE_RECORDS = 10_000;
export const EXPIRY_MS = 7 * 24 * 3600 * 1000;

export interface ExportFile {
  n: number;
  records: number;
  bytes: number;
  sha256: string;
}

export interface ExportRow {
  export_id: string;
  account_id: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'expired';
  format: 'jsonl' | 'parquet';
  request: Record<string, unknown>;
  snapshot_watermark: string;
  max_records: number;
  reserved_records: string | number;
  reserved_month: Date | string;
  record_count: string | number | null;
  files: ExportFile[];
  error: string | null;
  runner: string | null;
  request_id: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  expires_at: Date | null;
}

/** What creation hands to the runner: the snapshot pinned and the jobs already selected. */
export interface Prepared {
  lease: Lease<CatalogSnapshot>;
  docs: number[];
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

/** The export record of the API (DESIGN.md 5). Files are listed once the export is complete. */
export function exportRecord(row: ExportRow): Record<string, unknown> {
  const completed = row.status === 'completed';
  return {
    export_id: row.export_id,
    status: row.status,
    format: row.format,
    created_at: iso(row.created_at),
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    expires_at: iso(row.expires_at),
    snapshot_watermark: row.snapshot_watermark,
    request: row.request,
    max_records: row.max_records,
    record_count: row.record_count === null ? null : Number(row.record_count),
    files: completed ? row.files : [],
    error: row.error,
  };
}

export const fileName = (exportId: string, n: number, format: ExportRow['format']) =>
  `jobs-${exportId}-${n}.${format === 'jsonl' ? 'jsonl.gz' : 'parquet'}`;

/** The object of file n of an export. */
export const fileKey = (exportId: string, n: number, format: ExportRow['format']) => `exports/${exportId}/${fileName(exportId, n, format)}`;

export class Exports {
  /** Exports created by this process and not yet started: their snapshot stays pinned until they run. */
  readonly prepared = new Map<string, Prepared>();
  /** Where this server writes files before they are stored: beside the objects when the store is a folder, else in its cache. */
  readonly dir: string;

  constructor(
    private readonly store: StateStore,
    private readonly jobs: JobsService,
    private readonly publications: Publications,
    /** Where the files are kept (stores.data). */
    readonly files: ObjectStore,
    cacheDir: string,
    private readonly clock: () => Date,
    private readonly onCreated: () => void = () => undefined,
  ) {
    this.dir = join(files.folder ?? cacheDir, 'exports');
  }

  /** This server's working folder of an export. */
  folder(exportId: string): string {
    return join(this.dir, exportId);
  }

  /** Deletes an export's files (failed or expired): the stored objects and what this server has of them. */
  async remove(exportId: string): Promise<void> {
    await this.files.delete((await this.files.list(`exports/${exportId}/`)).map((o) => o.key));
    await rm(this.folder(exportId), { recursive: true, force: true });
  }

  /**
   * Creates an export (queued), its records reserved. Under an Idempotency-Key, once: the same request
   * again within 24 hours gets the first answer (`replayed`) and creates nothing.
   */
  async create(
    caller: Caller,
    body: unknown,
    requestId: string,
    idempotency?: IdempotencyKey,
  ): Promise<{ record: Record<string, unknown>; replayed: boolean }> {
    const { account } = caller;
    const request = readExportRequest(body);
    const now = this.clock();
    // A request answered already does no work (the authoritative check is in the transaction below).
    const earlier = idempotency ? await earlierAnswer(this.store, account.account_id, idempotency, now) : undefined;
    if (earlier) return { record: earlier.body as Record<string, unknown>, replayed: true };
    await this.writable();
    const lease = this.publications.leaseCatalog();
    try {
      const docs = await selectJobs(this.jobs, lease.value as JobsSnapshot, request);
      const exportId = randomUUID();
      const { answer, replayed } = await this.store.transaction((tx) =>
        once(tx, account.account_id, idempotency, now, async () => ({
          status: 202,
          body: exportRecord(await this.insert(tx, caller, request, exportId, docs.length, lease.value.watermark, now, requestId)),
        })),
      );
      if (replayed) lease.release();
      else {
        this.prepared.set(exportId, { lease, docs });
        this.onCreated();
      }
      return { record: answer.body as Record<string, unknown>, replayed };
    } catch (error) {
      lease.release();
      throw error;
    }
  }

  /** The export's row, its records reserved in the month, in the caller's transaction. */
  private async insert(
    tx: Queryable,
    caller: Caller,
    request: ExportRequest,
    exportId: string,
    records: number,
    watermark: string,
    now: Date,
    requestId: string,
  ): Promise<ExportRow> {
    const { account } = caller;
    const month = monthKey(now);
    if (await activeExport(tx, account.account_id)) throw inProgress();
    // The reservation locks the account's month row: concurrent creations of one account queue here,
    // and the unique index on active exports refuses the second.
    if (!(await reserveRecords(tx, caller, month, records, now))) {
      throw new ApiError(
        'data_limit_exceeded',
        account.billing_model === 'records'
          ? `This export matches ${records} jobs (capped at max_records), more than the records allowance${account.overage_enabled ? ' and the overage limit' : ''} leave this month; narrow the filters or lower max_records.`
          : `This export matches ${records} jobs (capped at max_records): its request units past the free units of the day cost more than the prepaid balance and overage (within its limit) can pay; narrow the filters or lower max_records.`,
        { headers: retryAfter(monthOf(now).end.getTime() - now.getTime()) },
      );
    }
    const [inserted] = await tx
      .query<ExportRow>(SQL.insert, [
        exportId,
        account.account_id,
        request.format,
        JSON.stringify(normalised(request)),
        watermark,
        request.maxRecords,
        records,
        month,
        now,
        requestId,
      ])
      .catch((error: unknown) => {
        throw (error as { code?: string }).code === '23505' ? inProgress() : error;
      });
    return inserted!;
  }

  /** 503 export_unavailable when this server cannot write export files (before storing them): no export is queued that could not run. */
  private async writable(): Promise<void> {
    try {
      await mkdir(this.dir, { recursive: true });
      await access(this.dir, constants.W_OK);
    } catch (error) {
      throw new ApiError(
        'export_unavailable',
        `Exports cannot be written on this server (${(error as NodeJS.ErrnoException).code ?? 'error'}); retry shortly.`,
      );
    }
  }

  async list(accountId: string): Promise<Record<string, unknown>[]> {
    return (await this.store.query<ExportRow>(SQL.list, [accountId])).map(exportRecord);
  }

  async get(accountId: string, exportId: string): Promise<ExportRow> {
    const [row] = UUID.test(exportId) ? await this.store.query<ExportRow>(SQL.get, [exportId, accountId]) : [];
    if (!row) throw new ApiError('export_not_found');
    return row;
  }

  /** File n of a completed, unexpired export of the account; 404 file_not_found otherwise. */
  async file(accountId: string, exportId: string, n: number): Promise<{ key: string; name: string; type: string; file: ExportFile }> {
    const row = await this.get(accountId, exportId).catch((error: unknown) => {
      throw error instanceof ApiError ? new ApiError('file_not_found') : error;
    });
    const file = row.files.find((f) => f.n === n);
    const expired = row.expires_at !== null && new Date(row.expires_at).getTime() <= this.clock().getTime();
    if (row.status !== 'completed' || expired || !file) throw new ApiError('file_not_found');
    return {
      key: fileKey(exportId, n, row.format),
      name: fileName(exportId, n, row.format),
      type: row.format === 'jsonl' ? 'application/gzip' : 'application/vnd.apache.parquet',
      file,
    };
  }
}

async function activeExport(tx: Queryable, accountId: string): Promise<boolean> {
  return (await tx.query(SQL.active, [accountId])).length > 0;
}

const inProgress = () =>
  new ApiError('export_in_progress', 'The account already has a queued or running export; wait for it to finish (GET /v1/jobs/exports).');

/** The jobs an export writes: those paging through POST /v1/jobs/search with the same body returns, in that order. */
export async function selectJobs(jobs: JobsService, s: JobsSnapshot, r: ExportRequest): Promise<number[]> {
  return (await jobs.select(s, r.filters, r.sort, null, r.maxRecords)).docs;
}
