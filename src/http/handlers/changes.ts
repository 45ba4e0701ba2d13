// GET /v1/jobs/changes (spec 4.6): a page of the change feed of the latest catalog snapshot.

import type { Request, Response } from 'express';
import { ApiError, invalidRequest } from '../../errors.js';
import { EVENT_TYPES, type EventType } from '../../feed/segment.js';
import type { ChangesRequest } from '../../feed/feed.js';
import { parseDateTime } from '../../query/dates.js';
import type { AppContext } from '../../context.js';
import { sendCharged } from '../metering.js';

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
        if (ctx.publications.catalog !== lease.value)
          throw new ApiError('service_unavailable', 'A new catalog was published during this request; retry it.');
        res.set('Server-Timing', `catalog;dur=${(performance.now() - started).toFixed(3)}`);
        await sendCharged(ctx, res, page.events, page.json);
      } finally {
        lease.release();
      }
    },
  };
}

/**
 * The parameters of spec 4.6. The contract (openapi.yaml) has checked each one (formats, lengths, the
 * types list, limit's range, company_id, include); what spans several is checked here.
 */
export function readChangesRequest(query: Record<string, unknown>): ChangesRequest {
  const text = (name: string) => query[name] as string | undefined;
  const sinceText = text('since');
  const after = text('after');
  if ((sinceText === undefined) === (after === undefined)) {
    throw invalidRequest(
      'Send exactly one of since (first call: an RFC 3339 date-time) and after (the resume_cursor of the previous call).',
    );
  }
  let since: number | null = null;
  if (sinceText !== undefined) {
    const at = parseDateTime(sinceText);
    if (!at) throw invalidRequest('since must be an RFC 3339 date-time with a zone, e.g. 2026-11-20T06:00:00Z.');
    since = at.getTime();
  }
  const types = (text('types')?.split(',') ?? [...EVENT_TYPES]) as EventType[];
  return {
    since,
    after: after ?? null,
    types: [...new Set(types)],
    companyId: text('company_id') ?? null,
    limit: (query.limit as number | undefined) ?? 100,
    sourceData: text('include') === 'source_data',
  };
}
