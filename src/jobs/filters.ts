// The job filters of spec 4.2, read from a query string (GET) or a JSON body (POST search) through the
// filter table (filter-table.ts), checked beyond what the OpenAPI schema can say, and normalised:
// aliases resolved, lists sorted and de-duplicated, dates as instants. The normalised form is what
// cursors are bound to and what the SQL of filter-sql.ts is built from.

import { invalidRequest } from '../errors.js';
import { FILTER_NAMES, FILTERS, list, sortedUnique, text, type Filter, type From, type JobFilters } from './filter-table.js';

export { DATE_OR_DATE_TIME, type JobFilters } from './filter-table.js';

export const JOB_FIELDS = [
  'job_id',
  'currentness',
  'stale',
  'company_id',
  'employer_name',
  'title',
  'description',
  'work_arrangement',
  'locations',
  'annual_pay',
  'occupation',
  'skills',
  'reposts',
  'days_open',
  'last_verified_at',
  'listed_by_employer',
  'job_first_seen_at',
  'curated_at',
  'job_updated_at',
  'postings',
  'company',
] as const;
export type JobField = (typeof JOB_FIELDS)[number];

export interface ListOptions {
  fields: JobField[] | null;
  include: ('company' | 'source_data')[];
  limit: number;
  cursor: string | null;
  sort: 'relevance' | 'updated';
  descriptionFormat: 'text' | 'html';
}

/** The parameters each route takes besides the filters. */
export const LIST_OPTIONS = ['fields', 'include', 'description_format', 'limit', 'cursor', 'sort'] as const;

type Input = Record<string, unknown>;

/**
 * Reads the filters. `from` says whether values are query strings or JSON; the caller has already
 * refused unknown names (OpenAPI validation). Throws 400 invalid_request naming the parameter.
 */
export function readFilters(input: Input, from: From): JobFilters {
  const filters: Record<string, unknown> = {};
  for (const name of FILTER_NAMES) {
    const filter = FILTERS[name] as Filter<unknown>;
    const alias = filter.aliases?.find((a) => input[a.name] !== undefined);
    if (alias && input[name] !== undefined) {
      throw invalidRequest(
        `Send ${name} or ${alias.name}, not both: ${alias.name} is ${alias.is} ${alias.is === 'an alias' ? 'of' : 'for'} ${name}.`,
      );
    }
    const value = alias
      ? (alias.read ?? filter.read)(input[alias.name], alias.name, from)
      : input[name] !== undefined
        ? filter.read(input[name], name, from)
        : filter.absent;
    if (value !== undefined) filters[name] = value;
  }
  const f = filters as JobFilters;
  if (f.pay_min !== undefined && f.pay_max !== undefined && f.pay_max < f.pay_min) {
    throw invalidRequest(`pay_max (${f.pay_max}) must not be below pay_min (${f.pay_min}).`);
  }
  return f;
}

/** True when the listing is ranked by relevance by default (q, title or description sent). */
export const hasRankedText = (f: JobFilters) => f.q !== undefined || f.title !== undefined || f.description !== undefined;
/** A keyword search (route class jobs_search, spec 8.4): a full-text filter of any kind. */
export const isKeywordSearch = (f: JobFilters) =>
  hasRankedText(f) || f.title_advanced !== undefined || f.description_advanced !== undefined;

/** A list request's input (its query or body) without the list options: its filters. */
export const filterInput = (input: Input): Input =>
  Object.fromEntries(Object.entries(input).filter(([k]) => !(LIST_OPTIONS as readonly string[]).includes(k)));

/** Whether a list request's input (its query or body) asks for a keyword search; throws as readFilters when its filters do not read. */
export const isKeywordInput = (input: Input, from: 'query' | 'body'): boolean => isKeywordSearch(readFilters(filterInput(input), from));

export function readListOptions(input: Input, filters: JobFilters, from: 'query' | 'body'): ListOptions {
  let fields: JobField[] | null = null;
  if (input.fields !== undefined) {
    const names = (Array.isArray(input.fields) ? (input.fields as unknown[]) : [input.fields]).flatMap((v) => {
      if (typeof v !== 'string') throw invalidRequest('fields must be a string or an array of strings.');
      return v.split(',').map((s) => s.trim());
    });
    for (const name of names) {
      if (!(JOB_FIELDS as readonly string[]).includes(name))
        throw invalidRequest(`fields: unknown field "${name}"; known fields: ${JOB_FIELDS.join(', ')}.`);
    }
    fields = [...new Set(names as JobField[])];
  }
  const include =
    input.include === undefined
      ? []
      : sortedUnique(list(input.include, 'include', from === 'body' ? 'required' : 'no').map((s) => s.trim()));
  for (const name of include)
    if (name !== 'company' && name !== 'source_data')
      throw invalidRequest(`include: unknown value "${name}"; use company and/or source_data.`);
  const format = input.description_format === undefined ? 'text' : text(input.description_format, 'description_format');
  if (format !== 'text' && format !== 'html') throw invalidRequest('description_format must be text or html.');

  let limit = 50;
  if (input.limit !== undefined) {
    limit =
      typeof input.limit === 'number'
        ? input.limit
        : from === 'query' && typeof input.limit === 'string' && /^\d+$/.test(input.limit)
          ? Number(input.limit)
          : NaN;
    if (!Number.isInteger(limit)) throw invalidRequest('limit must be a whole number.');
  }
  const onlyIds = fields !== null && fields.length === 1 && fields[0] === 'job_id';
  if (limit < 1 || limit > (onlyIds ? 1000 : 250)) {
    throw invalidRequest(
      onlyIds ? 'limit must be from 1 to 1000.' : 'limit must be from 1 to 250 (up to 1000 when fields is exactly job_id).',
    );
  }
  const sort = input.sort === undefined ? (hasRankedText(filters) ? 'relevance' : 'updated') : text(input.sort, 'sort');
  if (sort !== 'relevance' && sort !== 'updated') throw invalidRequest('sort must be relevance or updated.');
  if (sort === 'relevance' && !hasRankedText(filters)) throw invalidRequest('sort=relevance needs q, title or description.');
  const cursor = input.cursor === undefined ? null : text(input.cursor, 'cursor');
  if (cursor !== null && (cursor.length < 1 || cursor.length > 2048)) throw invalidRequest('cursor must be 1 to 2048 characters.');
  return { fields, include: include as ListOptions['include'], limit, cursor, sort, descriptionFormat: format };
}

/** A stable text of the filters (keys sorted), for cursors and caches. */
export function filtersKey(filters: JobFilters): string {
  return JSON.stringify(Object.fromEntries(Object.entries(filters).sort(([a], [b]) => (a < b ? -1 : 1))));
}
