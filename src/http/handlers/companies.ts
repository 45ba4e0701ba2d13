// The company routes (spec 4.9): list, search and one company, from the registry release. A company's
// jobs are served with the job routes (handlers/jobs.ts).

import type { Request, Response } from 'express';
import { invalidRequest } from '../../errors.js';
import type { CompaniesService, CompanyFilters } from '../../companies/service.js';
import type { AppContext } from '../../context.js';
import { sendCharged, sendJson } from '../metering.js';

type Input = Record<string, unknown>;

const NAMES = { query: ['name', 'limit', 'cursor'], body: ['name', 'country', 'status', 'limit', 'cursor'] };

/** The filters and paging of GET /v1/companies (query) or POST /v1/companies/search (body). */
export function readCompanyQuery(input: Input, from: 'query' | 'body'): { filters: CompanyFilters; limit: number; cursor: string | null } {
  const unknown = Object.keys(input).filter((name) => !NAMES[from].includes(name));
  if (unknown.length > 0) throw invalidRequest(`Unknown ${from === 'query' ? 'parameter' : 'property'} ${unknown.join(', ')}; accepted: ${NAMES[from].join(', ')}.`);
  const text = (name: string, max: number): string | undefined => {
    const value = input[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length < 1 || value.length > max) throw invalidRequest(`${name} must be a string of 1 to ${max} characters${from === 'query' ? ', given once' : ''}.`);
    return value;
  };
  const filters: CompanyFilters = {};
  const name = text('name', 200);
  if (name !== undefined) filters.name = name.toLowerCase();
  const country = text('country', 2);
  if (country !== undefined) {
    if (!/^[A-Za-z]{2}$/.test(country)) throw invalidRequest('country must be an ISO 3166-1 alpha-2 code, e.g. DE.');
    filters.country = country.toUpperCase();
  }
  const status = text('status', 8);
  if (status !== undefined) {
    if (status !== 'active' && status !== 'inactive') throw invalidRequest('status must be active or inactive.');
    filters.status = status;
  }
  let limit = 50;
  if (input.limit !== undefined) {
    const value = from === 'query' && typeof input.limit === 'string' && /^\d{1,4}$/.test(input.limit) ? Number(input.limit) : input.limit;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 100) throw invalidRequest(`limit must be ${from === 'body' ? 'a JSON integer' : 'an integer'} from 1 to 100.`);
    limit = value;
  }
  const cursor = text('cursor', 2048) ?? null;
  return { filters, limit, cursor };
}

export function companyHandlers(ctx: AppContext, companies: CompaniesService) {
  const page = async (input: Input, from: 'query' | 'body', res: Response): Promise<void> => {
    const { filters, limit, cursor } = readCompanyQuery(input, from);
    const result = await companies.page(filters, limit, cursor);
    // Each company returned counts one record.
    await sendCharged(ctx, res, result.records, result.json);
  };

  return {
    list: (req: Request, res: Response) => page(req.query, 'query', res),

    search: (req: Request, res: Response) => {
      if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) throw invalidRequest('The body must be a JSON object.');
      return page(req.body as Input, 'body', res);
    },

    one: async (req: Request, res: Response): Promise<void> => {
      const names = Object.keys(req.query);
      if (names.length > 0) throw invalidRequest(`This route takes no query parameters; got ${names.join(', ')}.`);
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
