// The company registry read API (spec 4.9, 4.12 rule 3): pages of companies from one release, in
// normalised-name order, with a cursor bound to the filters, the page size and the release; one
// company; and a company id resolved for its jobs.

import { ApiError } from '../errors.js';
import { digest, type CursorSigner } from '../shared/cursor.js';
import type { QueryEngine } from '../db/engine.js';
import type { CompanyReleases } from './releases.js';

export interface CompanyFilters {
  /** Lower case: a case-insensitive substring of the canonical name. */
  name?: string;
  /** Upper case ISO 3166-1 alpha-2. */
  country?: string;
  status?: 'active' | 'inactive';
}

interface CompanyCursor {
  k: 'companies';
  /** the release, the digest of filters and page size, the pos of the last company returned */
  r: string;
  b: string;
  at: number;
}

/** Release ids are safe folder names (as the publisher checks them). */
const RELEASE_ID = /^(?!\.+$)[A-Za-z0-9._-]+$/;

/** Where a company id leads in the active release. */
export type Resolved = { companyId: string; json: string } | { redirect: string };

export class CompaniesService {
  constructor(
    private readonly engine: QueryEngine,
    private readonly releases: CompanyReleases,
    private readonly cursors: CursorSigner,
  ) {}

  /** A page of companies as the JSON body of the list routes, and how many it holds. */
  async page(filters: CompanyFilters, limit: number, cursorText: string | null): Promise<{ records: number; json: string }> {
    const binding = digest(JSON.stringify([filters.name ?? null, filters.country ?? null, filters.status ?? null, limit]));
    let after = 0;
    let lease;
    if (cursorText === null) {
      lease = this.releases.active();
    } else {
      const cursor = this.cursors.opened<CompanyCursor>(cursorText, {
        kind: 'companies',
        noun: 'company',
        binding,
        resend:
          'cursor was made for other filters or another page size; send the same name, country, status and limit as for the first page.',
        valid: (c) => typeof c.r === 'string' && RELEASE_ID.test(c.r) && Number.isInteger(c.at),
      });
      lease = await this.releases.retained(cursor.r);
      after = cursor.at;
    }
    try {
      const release = lease.value;
      const rows = (await this.engine.rows(release.sql.page, {
        after,
        name: filters.name ?? null,
        country: filters.country ?? null,
        status: filters.status ?? null,
        limit: limit + 1,
      })) as [number, string][];
      const page = rows.slice(0, limit);
      const next =
        rows.length > limit
          ? this.cursors.seal({ k: 'companies', r: release.releaseId, b: binding, at: page[page.length - 1]![0] } satisfies CompanyCursor)
          : null;
      return {
        records: page.length,
        json: `{"data":[${page.map(([, doc]) => doc).join(',')}],"next_cursor":${JSON.stringify(next)},"release_id":${JSON.stringify(release.releaseId)}}`,
      };
    } finally {
      lease.release();
    }
  }

  /** The company `companyId` of the active release, or the company it was merged into; 404 company_not_found. */
  async resolve(companyId: string): Promise<Resolved> {
    const lease = this.releases.active();
    try {
      const rows = (await this.engine.rows(lease.value.sql.one, { id: companyId })) as ['company' | 'redirect', string][];
      const company = rows.find(([kind]) => kind === 'company');
      if (company) return { companyId, json: company[1] };
      const redirect = rows.find(([kind]) => kind === 'redirect');
      if (redirect) return { redirect: redirect[1] };
      throw new ApiError('company_not_found');
    } finally {
      lease.release();
    }
  }
}
