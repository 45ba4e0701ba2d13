// Runs queued exports in the background, one at a time: files of at most 10,000 jobs, each written
// to a temporary file of this server, then stored whole in the object store before the export row lists
// it, so a crash never leaves a half-written file that could be served. A runner holds an export under a
// lease in the state store that it renews with every file; when its server stops or dies, any server
// takes the export up after the lease where its listed files end, on the snapshot it was created on
// (opened through the snapshot library even after newer publications; failed, its reservation released,
// only when that publication is no longer kept). Records are charged in the same transaction that marks
// the export completed: once.

import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { SnapshotLibrary } from '../catalog/library.js';
import type { CatalogSnapshot, Lease, Publications } from '../catalog/publications.js';
import { namedQueries } from '../db/sql-files.js';
import type { StateStore } from '../db/state-store.js';
import type { QueryEngine } from '../db/engine.js';
import type { JobsService } from '../jobs/service.js';
import type { JobsSnapshot } from '../jobs/snapshot.js';
import type { AccountRow } from '../metering/accounts.js';
import type { Meter } from '../metering/meter.js';
import { EXPIRY_MS, FILE_RECORDS, fileKey, selectJobs, SQL, type ExportFile, type ExportRow, type Exports } from './exports.js';
import { fromNormalised, type ExportRequest } from './request.js';
import { temporary, tidy, writeJobsFile } from './files.js';

const ACCOUNTS = namedQueries('state/accounts.sql', ['get_account']);

export interface RunnerOptions {
  /** How long a runner holds an export without renewing its lease before another may take it over. */
  leaseMs: number;
  /** How often to look for queued exports and expired files. */
  pollMs: number;
  /** Jobs per file (FILE_RECORDS; tests lower it to get many files from a small catalog). */
  fileRecords?: number;
  /** Called when a file is listed: tests stop the server there, as a crash would. */
  onFileWritten?: (exportId: string, n: number) => void;
}

export class ExportRunner {
  private readonly id = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private paused = false;

  constructor(
    private readonly exports: Exports,
    private readonly store: StateStore,
    private readonly jobs: JobsService,
    private readonly engine: QueryEngine,
    private readonly publications: Publications,
    private readonly library: SnapshotLibrary,
    private readonly clock: () => Date,
    private readonly logger: Logger,
    private readonly meter: Meter,
    private readonly options: RunnerOptions,
  ) {}

  /**
   * Starts looking for work. `resumeRunning`: every export left running is this process's own from
   * before a restart (the embedded store has one server), so it is taken up at once, not after its lease.
   */
  async start(options: { resumeRunning: boolean }): Promise<void> {
    if (options.resumeRunning) await this.store.query(SQL.release_leases, [this.clock()]);
    this.timer = setInterval(() => this.kick(), this.options.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Holds queued exports until resume() (an operator draining a server; tests of the queued state). */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.kick();
  }

  /** Looks for work now (after the current pass when one is running). */
  kick(): void {
    if (this.stopped || this.paused) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass()
      .catch((error: unknown) => this.logger.error({ err: error }, 'export runner pass failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Resolves when no pass is running (tests wait for the queue to drain with it). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    for (const { lease } of this.exports.prepared.values()) lease.release();
    this.exports.prepared.clear();
  }

  private async pass(): Promise<void> {
    await this.expireDue();
    await this.releaseTakenOver();
    for (;;) {
      if (this.stopped || this.paused) return;
      const now = this.clock();
      const [row] = await this.store.query<ExportRow>(SQL.claim, [now, this.leaseEnd(), this.id]);
      if (!row) return;
      await this.run(row);
    }
  }

  private leaseEnd(): Date {
    return new Date(this.clock().getTime() + this.options.leaseMs);
  }

  /** Renews the lease on the export; false when another runner has taken it over (this one then stops writing it). */
  private async renew(row: ExportRow): Promise<boolean> {
    return (await this.store.query(SQL.renew, [row.export_id, this.id, this.leaseEnd()])).length > 0;
  }

  private async run(row: ExportRow): Promise<void> {
    const started = performance.now();
    const request = fromNormalised(row.request);
    // Fetching and opening an older publication can outlast the lease: it is renewed meanwhile.
    const holding = setInterval(() => void this.renew(row).catch(() => undefined), Math.max(1000, this.options.leaseMs / 3));
    let pinned: Awaited<ReturnType<ExportRunner['pin']>>;
    try {
      pinned = await this.pin(row, request);
    } finally {
      clearInterval(holding);
    }
    if (!pinned) {
      await this.fail(row, `The catalog snapshot ${row.snapshot_watermark} this export reads is no longer kept; create the export again.`);
      return;
    }
    const { lease, docs } = pinned;
    const folder = this.exports.folder(row.export_id);
    try {
      // Still held after the open (another runner may have taken it over in a stall).
      if (!(await this.renew(row))) return;
      const snapshot = lease.value as JobsSnapshot;
      await mkdir(folder, { recursive: true });
      const per = this.options.fileRecords ?? FILE_RECORDS;
      const count = Math.ceil(docs.length / per);
      const write = (n: number) => this.writeFile(snapshot, row, request, n, docs.slice((n - 1) * per, n * per));
      // Two files in flight: while one is compressed on libuv's threads the next is read and rendered.
      // Files are still listed in order, each once it is complete.
      let next: Promise<ExportFile> | null = row.files.length < count ? write(row.files.length + 1) : null;
      try {
        for (let n = row.files.length + 1; n <= count; n++) {
          const current = next!;
          next = n < count && !this.stopped ? write(n + 1) : null;
          next?.catch(() => undefined); // awaited in its turn, or below when abandoned
          const file = await current;
          if (this.stopped) return; // left under its lease: the next runner resumes it
          // Stored only while held: a runner that lost its lease never replaces a file its successor listed.
          if (!(await this.renew(row))) return;
          await this.keep(row, n);
          const [held] = await this.store.query(SQL.file_done, [row.export_id, this.id, JSON.stringify([file]), this.leaseEnd()]);
          if (!held) return; // another runner took it over
          this.logger.debug({ export_id: row.export_id, file: n, records: file.records, bytes: file.bytes }, 'export file written');
          this.options.onFileWritten?.(row.export_id, n);
        }
      } finally {
        // A file still being written when the loop ends early is unlisted: finish with the snapshot before releasing it.
        await next?.catch(() => undefined);
      }
      await this.complete(row, docs.length);
      const seconds = (performance.now() - started) / 1000;
      this.logger.info({ export_id: row.export_id, records: docs.length, seconds: Number(seconds.toFixed(2)) }, 'export completed');
    } catch (error) {
      this.logger.error({ err: error, export_id: row.export_id }, 'export failed');
      await this.fail(row, 'The export could not be written; create it again (quote the export_id to support if it fails again).');
    } finally {
      lease.release();
      await tidy(folder);
    }
  }

  /**
   * The snapshot the export reads and its jobs: handed over by creation on this server, or the
   * export's own publication (the served one or an older one) with its jobs selected again; null when
   * that publication is no longer kept.
   */
  private async pin(row: ExportRow, request: ExportRequest): Promise<{ lease: Lease<CatalogSnapshot>; docs: number[] } | null> {
    const prepared = this.exports.prepared.get(row.export_id);
    if (prepared) {
      this.exports.prepared.delete(row.export_id);
      return prepared;
    }
    const lease = await this.library.lease(row.snapshot_watermark);
    if (!lease) return null;
    try {
      return { lease, docs: await selectJobs(this.jobs, lease.value as JobsSnapshot, request) };
    } catch (error) {
      lease.release();
      throw error;
    }
  }

  /** Writes file n to this server's temporary file of it (stored by keep()). */
  private async writeFile(s: JobsSnapshot, row: ExportRow, request: ExportRequest, n: number, docs: number[]): Promise<ExportFile> {
    const written = await writeJobsFile(
      { jobs: this.jobs, engine: this.engine, registry: this.publications.registry },
      s,
      request,
      docs,
      temporary(this.exports.folder(row.export_id), n),
    );
    return { n, records: docs.length, ...written };
  }

  /** Stores the written file n whole as its object (the store syncs it), then removes the temporary file. */
  private async keep(row: ExportRow, n: number): Promise<void> {
    const tmp = temporary(this.exports.folder(row.export_id), n);
    await this.exports.files.putFile(fileKey(row.export_id, n, row.format), tmp);
    await rm(tmp, { force: true });
  }

  /** Marks the export completed and charges its records, in one transaction. */
  private async complete(row: ExportRow, records: number): Promise<void> {
    const now = this.clock();
    await this.store.transaction(async (tx) => {
      const [current] = await tx.query<ExportRow>(SQL.for_update, [row.export_id]);
      if (!current || current.status !== 'running' || current.runner !== this.id) return;
      const [account] = await tx.query<AccountRow>(ACCOUNTS.get_account, [row.account_id]);
      // Charged once, to the month whose allowance was reserved at creation, with the export's request.
      await this.meter.settleDeferred(tx, current, account!, {
        status: 202,
        records,
        release: Number(current.reserved_records),
        force: true,
      });
      await tx.query(SQL.complete, [row.export_id, records, now, new Date(now.getTime() + EXPIRY_MS)]);
    });
  }

  /** Marks the export failed, releases its reservation and removes its files. */
  private async fail(row: ExportRow, message: string): Promise<void> {
    const failed = await this.store.transaction(async (tx) => {
      const [current] = await tx.query<ExportRow>(SQL.for_update, [row.export_id]);
      if (!current || (current.status !== 'running' && current.status !== 'queued')) return false;
      // A runner whose lease lapsed (a stall) never fails what another runner took over and is finishing.
      if (current.status === 'running' && current.runner !== this.id) return false;
      const [account] = await tx.query<AccountRow>(ACCOUNTS.get_account, [row.account_id]);
      await this.meter.settleDeferred(tx, current, account!, {
        status: 202,
        records: 0,
        release: Number(current.reserved_records),
        void: true,
      });
      await tx.query(SQL.fail, [row.export_id, message, this.clock()]);
      return true;
    });
    if (failed) await this.exports.remove(row.export_id);
  }

  /** Completed exports past their expiry: files deleted, status expired. */
  private async expireDue(): Promise<void> {
    for (const { export_id: id } of await this.store.query<{ export_id: string }>(SQL.due_to_expire, [this.clock()])) {
      await this.exports.remove(id);
      await this.store.query(SQL.expire, [id]);
    }
  }

  /** Releases the snapshots pinned for exports created here that another server's runner has taken. */
  private async releaseTakenOver(): Promise<void> {
    const ids = [...this.exports.prepared.keys()];
    if (ids.length === 0) return;
    const queued = new Set((await this.store.query<{ export_id: string }>(SQL.queued, [ids])).map((r) => r.export_id));
    for (const id of ids.filter((i) => !queued.has(i))) {
      this.exports.prepared.get(id)?.lease.release();
      this.exports.prepared.delete(id);
    }
  }
}
