// Company registry releases opened for serving (spec 4.9, DESIGN.md 3): the active one, which the
// watcher switches to, and the retained older ones a company cursor may still be reading. A release
// is loaded into the server's DuckDB (companies in route order, and the merged-id redirects) and
// dropped when nobody reads it any more.

import type { Lease, Publications, RegistryRelease } from '../catalog/publications.js';
import { Pinned } from '../catalog/publications.js';
import type { PublicationMirror } from '../catalog/mirror.js';
import type { ReleaseOpener } from '../catalog/watcher.js';
import { namedQueries } from '../db/sql-files.js';
import { invalidRequest } from '../errors.js';
import type { QueryEngine } from '../db/engine.js';
import { fill } from '../jobs/snapshot.js';
import { sqlString as quote } from '../db/sql-literal.js';
import { KEEP_RELEASES } from '../catalog/publish/registry.js';

const SQL = namedQueries('serve/companies.sql', ['companies', 'redirects', 'page', 'one']);

export interface CompanyRelease extends RegistryRelease {
  /** Table name prefix of this release in the engine's database, e.g. "r2_". */
  prefix: string;
  /** The release's statements, with its tables filled in. */
  sql: { page: string; one: string };
}

let opened = 0;

/** Opens registry releases into `engine`. */
export function companyReleaseOpener(engine: QueryEngine): ReleaseOpener {
  return async (dir, releaseId): Promise<CompanyRelease> => {
    const prefix = `r${++opened}_`;
    const holes = { p: prefix, dir: quote(dir) };
    await engine.withConnection(async (c) => {
      await c.run(fill(SQL.companies, holes));
      await c.run(fill(SQL.redirects, holes));
    });
    return {
      releaseId,
      dir,
      prefix,
      sql: { page: fill(SQL.page, holes), one: fill(SQL.one, holes) },
      close: async () => {
        await engine.withConnection(async (c) => {
          await c.run(`DROP TABLE IF EXISTS ${prefix}companies`);
          await c.run(`DROP TABLE IF EXISTS ${prefix}redirects`);
        });
      },
    };
  };
}

/**
 * The release a request reads: the active one, or (for a cursor) the release the cursor started on
 * while it is retained on disk. Older releases are opened on demand and kept open for the next
 * page, at most KEEP_RELEASES of them.
 */
export class CompanyReleases {
  private readonly older = new Map<string, Promise<Pinned<CompanyRelease>>>();

  constructor(
    private readonly publications: Publications,
    private readonly mirror: PublicationMirror,
    private readonly open: ReleaseOpener,
  ) {}

  /** The active release, pinned until release(); 503 registry_unavailable while none is active. */
  active(): Lease<CompanyRelease> {
    return this.publications.leaseRegistry() as Lease<CompanyRelease>;
  }

  /** The release `releaseId`, pinned until release(); 400 when it is no longer retained. */
  async retained(releaseId: string): Promise<Lease<CompanyRelease>> {
    const active = this.active();
    if (active.value.releaseId === releaseId) return active;
    active.release();
    // A published release folder holds its manifest (written last): copied to this node if needed.
    const dir = await this.mirror.fetchRelease(releaseId);
    if (!dir) {
      this.forget(releaseId);
      throw invalidRequest('cursor was made on a company registry release that is no longer retained; start again without cursor.');
    }
    let slot = this.older.get(releaseId);
    if (!slot) {
      slot = this.open(dir, releaseId).then((release) => new Pinned(release as CompanyRelease));
      slot.catch(() => this.older.delete(releaseId));
      this.older.set(releaseId, slot);
      this.trim();
    }
    const pinned = await slot;
    return { value: pinned.value, release: pinned.lease() };
  }

  /** Keeps the most recently opened older releases; the others close once their pages are read. */
  private trim(): void {
    for (const releaseId of [...this.older.keys()].slice(0, Math.max(0, this.older.size - KEEP_RELEASES))) this.forget(releaseId);
  }

  private forget(releaseId: string): void {
    const slot = this.older.get(releaseId);
    if (!slot) return;
    this.older.delete(releaseId);
    void slot.then(
      (pinned) => pinned.retire(),
      () => undefined,
    );
  }

  /** Shutdown, after the requests have drained: closes the older releases now. */
  async closeNow(): Promise<void> {
    const slots = [...this.older.values()];
    this.older.clear();
    for (const slot of slots)
      await slot.then(
        (pinned) => pinned.value.close(),
        () => undefined,
      );
  }
}
