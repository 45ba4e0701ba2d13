// The company routes (spec 4.9): list, search and one company, from the registry release. A company's
// jobs are served with the job routes (handlers/jobs.ts).

import type { Request, Response } from 'express';
import type { CompaniesService, CompanyFilters } from '../../companies/service.js';
import type { AppContext } from '../../context.js';
import { sendCharged, sendJson } from '../metering.js';

type Input = Record<string, unknown>;

/**
 * The filters and paging of GET /v1/companies (query) or POST /v1/companies/search (body), as the
 * contract (openapi.yaml) has checked them: names and countries are matched case-insensitively.
 */
export function readCompanyQuery(input: Input): { filters: CompanyFilters; limit: number; cursor: string | null } {
  const filters: CompanyFilters = {};
  if (typeof input.name === 'string') filters.name = input.name.toLowerCase();
  if (typeof input.country === 'string') filters.country = input.country.toUpperCase();
  if (input.status === 'active' || input.status === 'inactive') filters.status = input.status;
  return { filters, limit: (input.limit as number | undefined) ?? 50, cursor: (input.cursor as string | undefined) ?? null };
}

export function companyHandlers(ctx: AppContext, companies: CompaniesService) {
  const page = async (input: Input, res: Response): Promise<void> => {
    const { filters, limit, cursor } = readCompanyQuery(input);
    const result = await companies.page(filters, limit, cursor);
    // Each company returned counts one record.
    await sendCharged(ctx, res, result.records, result.json);
  };

  return {
    list: (req: Request, res: Response) => page(req.query, res),

    search: (req: Request, res: Response) => page(req.body as Input, res),

    one: async (req: Request, res: Response): Promise<void> => {
      const found = await companies.resolve(String(req.params.companyId));
      if ('redirect' in found) {
        const location = `/v1/companies/${found.redirect}`;
        res.status(308).location(location);
        await sendJson(ctx, res, { location });
        return;
      }
      await sendCharged(ctx, res, 1, `{"data":${found.json}}`);
    },
  };
}
