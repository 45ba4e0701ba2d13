// The jobs read routes (spec 4.2, 4.3, 4.5, 4.7): list, search, count and one job, each over the
// catalog snapshot pinned for the whole request.

import type { Request, Response } from 'express';
import { ApiError } from '../../errors.js';
import { filterInput, readFilters, readListOptions, type JobFilters } from '../../jobs/filters.js';
import { GROUP_BY, type GroupBy } from '../../jobs/groups.js';
import type { JobsService } from '../../jobs/service.js';
import type { JobsSnapshot } from '../../jobs/snapshot.js';
import { translateEsDsl } from '../../jobs/es-dsl.js';
import { readTrendRequest, type TrendsService } from '../../jobs/trends.js';
import type { CompaniesService } from '../../companies/service.js';
import type { AppContext } from '../../context.js';
import { sendCharged, sendJson } from '../metering.js';

/** The request's query string as sent, with its "?" (empty without one): a redirect keeps it. */
const queryString = (req: Request) => (req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '');

/** The group_by of a count or a trend: one of GROUP_BY, or none. */
function readGroupBy(groupBy: unknown): GroupBy | undefined {
  if (groupBy !== undefined && !(GROUP_BY as readonly unknown[]).includes(groupBy))
    throw new ApiError('invalid_request', `group_by must be one of ${GROUP_BY.join(', ')}.`);
  return groupBy as GroupBy | undefined;
}

export function jobHandlers(ctx: AppContext, jobs: JobsService, companies: CompaniesService, trends: TrendsService) {
  /**
   * Runs `work` on the latest snapshot (503 catalog_unavailable while none), pinned until it ends. Its
   * duration goes out in a Server-Timing header (`catalog;dur=<ms>`): the time spent answering from the
   * catalog, without the HTTP, key and validation work around it.
   */
  async function pinned<T>(res: Response, work: (s: JobsSnapshot) => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await ctx.publications.onCatalog((s) => work(s as JobsSnapshot));
    } finally {
      res.set('Server-Timing', `catalog;dur=${(performance.now() - started).toFixed(3)}`);
    }
  }

  const registry = () => ctx.publications.registry;

  async function list(route: string, input: Record<string, unknown>, from: 'query' | 'body', res: Response): Promise<void> {
    const filters = readFilters(filterInput(input), from);
    const options = readListOptions(input, filters, from);
    const page = await pinned(res, (s) => jobs.list(s, registry(), route, filters, options));
    await sendCharged(ctx, res, page.records, page.json);
  }

  return {
    list: (req: Request, res: Response) => list('GET /v1/jobs', req.query, 'query', res),

    search: (req: Request, res: Response) => list('POST /v1/jobs/search', req.body as Record<string, unknown>, 'body', res),

    /** The Elasticsearch-style query, translated into the filters of POST /v1/jobs/search (spec 4.4). */
    esDsl: (req: Request, res: Response) => list('POST /v1/jobs/search/es_dsl', translateEsDsl(req.body), 'body', res),

    count: async (req: Request, res: Response): Promise<void> => {
      const { group_by: groupBy, ...rest } = req.query as Record<string, unknown>;
      const group = readGroupBy(groupBy);
      const filters: JobFilters = readFilters(rest, 'query');
      const result = await pinned(res, async (s) => ({
        ...(await jobs.count(s, filters, group)),
        snapshot_watermark: s.watermark,
      }));
      await sendJson(ctx, res, {
        count: result.count,
        snapshot_watermark: result.snapshot_watermark,
        ...(result.groups ? { groups: result.groups } : {}),
      });
    },

    /** The count at each day or week of a range (docs/adr/0012-trends.md): the filters and groups of count. */
    trends: async (req: Request, res: Response): Promise<void> => {
      const { group_by: groupBy, interval, start, end, ...rest } = req.query as Record<string, unknown>;
      const request = readTrendRequest({ interval, start, end }, readGroupBy(groupBy));
      const filters: JobFilters = readFilters(rest, 'query');
      const result = await pinned(res, async (s) => ({ snapshot_watermark: s.watermark, ...(await trends.trend(s, filters, request)) }));
      await sendJson(ctx, res, result);
    },

    one: async (req: Request, res: Response): Promise<void> => {
      const input = req.query as Record<string, unknown>;
      const options = readListOptions(
        { fields: input.fields, include: input.include, description_format: input.description_format },
        { currentness: [] },
        'query',
      );
      const outcome = await pinned(res, (s) => jobs.one(s, registry(), String(req.params.jobId), options));
      if ('redirect' in outcome) {
        // The surviving job, with the same query string (spec 3.5).
        const location = `/v1/jobs/${outcome.redirect}${queryString(req)}`;
        res.status(308).location(location);
        await sendJson(ctx, res, { location });
        return;
      }
      await sendCharged(ctx, res, outcome.records, outcome.json);
    },

    /** A company's jobs (spec 4.9): GET /v1/jobs with company_id set by the path, resolved in the registry. */
    companyJobs: async (req: Request, res: Response): Promise<void> => {
      const input = req.query as Record<string, unknown>;
      if (input.company_id !== undefined)
        throw new ApiError('invalid_request', 'company_id is set by the path of this route; leave it out of the query.');
      const found = await companies.resolve(String(req.params.companyId));
      if ('redirect' in found) {
        // The current company's jobs, with the same query string.
        const location = `/v1/companies/${found.redirect}/jobs${queryString(req)}`;
        res.status(308).location(location);
        await sendJson(ctx, res, { location });
        return;
      }
      await list('GET /v1/companies/{companyId}/jobs', { ...input, company_id: found.companyId }, 'query', res);
    },
  };
}
