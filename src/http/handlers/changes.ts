// GET /v1/jobs/changes (spec 4.6): a page of the change feed of the latest catalog snapshot.

import type { Request, Response } from 'express';
import { ApiError, invalidRequest } from '../../errors.js';
import { EVENT_TYPES, type EventType } from '../../feed/segment.js';
import type { ChangesRequest } from '../../feed/feed.js';
import { parseDateTime } from '../../query/dates.js';
import type { AppContext } from '../../context.js';
import { sendCharged } from '../metering.js';
import { UUID } from '../../shared/ids.js';


export function changesHandlers(ctx: AppContext) {
  return {
    list: async (req: Request, res: Response): Promise<void> => {
      const request = readChangesRequest(req.query);
      const lease = ctx.publications.leaseCatalog();
      const started = performance.now();
      try {
        const page = await ctx.feed.page(lease.value, request);
        // A publication that landed meanwhile makes this page's cursor one of an older snapshot:
        // the client retries and reads from the new one (spec 4.6 rule 4).
        if (ctx.publications.catalog !== lease.value) throw new ApiError('service_unavailable', 'A new catalog was published during this request; retry it.');
        res.set('Server-Timing', `catalog;dur=${(performance.now() - started).toFixed(3)}`);
        await sendCharged(ctx, res, page.events, page.json);
      } finally {
        lease.release();
      }
    },
  };
}

/** The parameters of spec 4.6, each checked with a message naming it. */
export function readChangesRequest(query: Record<string, unknown>): ChangesRequest {
  const one = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    // The OpenAPI validation has already turned limit into a number.
    if (typeof value === 'number') return String(value);
    if (typeof value !== 'string') throw invalidRequest(`${name} must be given once.`);
    return value;
  };
  const sinceText = one('since');
  const after = one('after');
  if ((sinceText === undefined) === (after === undefined)) {
    throw invalidRequest('Send exactly one of since (first call: an RFC 3339 date-time) and after (the resume_cursor of the previous call).');
  }
  let since: number | null = null;
  if (sinceText !== undefined) {
    const at = parseDateTime(sinceText);
    if (!at) throw invalidRequest('since must be an RFC 3339 date-time with a zone, e.g. 2026-11-20T06:00:00Z.');
    since = at.getTime();
  }
  if (after !== undefined && (after.length < 1 || after.length > 2048)) throw invalidRequest('after must be 1 to 2048 characters: the resume_cursor as received.');

  const typesText = one('types');
  const types = typesText === undefined ? [...EVENT_TYPES] : typesText.split(',').map((t) => t.trim());
  for (const type of types) if (!(EVENT_TYPES as readonly string[]).includes(type)) throw invalidRequest(`types: unknown event type "${type}"; use a comma list of created, updated, expired.`);

  const limitText = one('limit');
  const limit = limitText === undefined ? 100 : /^\d+$/.test(limitText) ? Number(limitText) : NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw invalidRequest('limit must be a whole number from 1 to 1000.');

  const companyId = one('company_id') ?? null;
  if (companyId !== null && !UUID.test(companyId)) throw invalidRequest('company_id must be a lowercase UUID.');

  const include = one('include');
  if (include !== undefined && include !== 'source_data') throw invalidRequest('include: the only value is source_data.');

  return { since, after: after ?? null, types: [...new Set(types)] as EventType[], companyId, limit, sourceData: include === 'source_data' };
}
