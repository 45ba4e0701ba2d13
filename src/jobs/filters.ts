// The job filters of spec 4.2, read from a query string (GET) or a JSON body (POST search), checked
// beyond what the OpenAPI schema can say, and normalised: aliases resolved, lists sorted and
// de-duplicated, dates as instants. The normalised form is what cursors are bound to and what the
// SQL of filter-sql.ts is built from.

import { hasAtMostTwoDecimals } from '../metering/money.js';
import { invalidRequest } from '../errors.js';
import { parseDateBound } from '../query/dates.js';
import { hasPositiveTerm, parseAdvanced, QuerySyntaxError } from '../search/query.js';

export const JOB_FIELDS = [
  'job_id', 'currentness', 'stale', 'company_id', 'employer_name', 'title', 'description', 'work_arrangement',
  'locations', 'job_first_seen_at', 'curated_at', 'job_updated_at', 'postings', 'company',
] as const;
export type JobField = (typeof JOB_FIELDS)[number];

const TEXT = ['company', 'title', 'title_advanced', 'description', 'description_advanced', 'q', 'location', 'city', 'source', 'source_type', 'posting_id', 'source_posting_id'] as const;
const EXACT = ['company_id', 'msa', 'work_arrangement', 'source_class', 'posting_status', 'application_check', 'job_id'] as const;
const BOOLEANS = ['stale', 'company_linked', 'has_description', 'has_location', 'has_pay', 'has_posting_url', 'has_application_url'] as const;
const DATES = {
  posted_since: 'start', posted_until: 'end', first_seen_since: 'start', first_seen_until: 'end', updated_since: 'start', updated_until: 'end',
  curated_since: 'start', curated_until: 'end', last_fetch_since: 'start', last_fetch_until: 'end', application_check_since: 'start',
} as const;

/** What a date filter accepts, as every message about one says it. */
export const DATE_OR_DATE_TIME = 'a date (2026-11-20) or a date-time with a zone (2026-11-20T06:00:00Z)';

type TextName = (typeof TEXT)[number];
type ExactName = (typeof EXACT)[number];
type BooleanName = (typeof BOOLEANS)[number];
type DateName = keyof typeof DATES;

/** Normalised filters: only what was sent, in one canonical form. */
export type JobFilters = Partial<Record<TextName | ExactName, string>> &
  Partial<Record<BooleanName, boolean>> &
  Partial<Record<DateName, string>> & {
    currentness: string[];
    state?: string;
    country?: string[];
    employment_type?: string[];
    exclude_source?: string[];
    pay_currency?: string;
    pay_min?: number;
    pay_max?: number;
  };

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

function text(value: unknown, name: string): string {
  if (typeof value !== 'string') throw invalidRequest(`${name} must be a string.`);
  return value;
}

/** A list given as a comma string (query) or, where the body allows it, an array of strings. */
function list(value: unknown, name: string, arrays: 'allowed' | 'required' | 'no'): string[] {
  if (Array.isArray(value)) {
    if (arrays === 'no') throw invalidRequest(`${name} must be a string.`);
    if (!value.every((v) => typeof v === 'string')) throw invalidRequest(`${name} must hold strings only.`);
    return (value).flatMap((v) => v.split(','));
  }
  if (arrays === 'required') throw invalidRequest(`${name} must be an array of strings.`);
  return text(value, name).split(',');
}

function bool(value: unknown, name: string, from: 'query' | 'body'): boolean {
  // The validator may already have coerced a query value to a boolean.
  if (typeof value === 'boolean') return value;
  if (from === 'query' && (value === 'true' || value === 'false')) return value === 'true';
  throw invalidRequest(`${name} must be ${from === 'body' ? 'a JSON boolean' : 'true or false'}.`);
}

function amount(value: unknown, name: string, from: 'query' | 'body'): number {
  const n = from === 'body' || typeof value === 'number' ? value : typeof value === 'string' && /^\d+(\.\d{1,2})?$/.test(value) ? Number(value) : NaN;
  if (typeof n !== 'number' || !hasAtMostTwoDecimals(n) || n < 0 || n > 1e9) {
    throw invalidRequest(`${name} must be a number from 0 to 1000000000 with at most two decimals.`);
  }
  return n;
}

const sortedUnique = (values: string[]) => [...new Set(values)].sort();

/**
 * Reads the filters. `from` says whether values are query strings or JSON; the caller has already
 * refused unknown names (OpenAPI validation). Throws 400 invalid_request naming the parameter.
 */
export function readFilters(input: Input, from: 'query' | 'body'): JobFilters {
  const has = (name: string) => input[name] !== undefined;
  for (const [a, b] of [['remote_type', 'work_arrangement'], ['published_since', 'posted_since'], ['active', 'currentness']] as const) {
    if (has(a) && has(b)) throw invalidRequest(`Send ${b} or ${a}, not both: ${a} is an alias of ${b}.`.replace('an alias of currentness', 'a shorthand for currentness'));
  }
  const filters: JobFilters = { currentness: ['current'] };
  for (const name of TEXT) if (has(name)) filters[name] = text(input[name], name);
  for (const name of EXACT) if (has(name)) filters[name] = text(input[name], name);
  if (has('remote_type')) filters.work_arrangement = text(input.remote_type, 'remote_type');
  for (const name of BOOLEANS) if (has(name)) filters[name] = bool(input[name], name, from);
  for (const [name, edge] of Object.entries(DATES) as [DateName, 'start' | 'end'][]) {
    const source = name === 'posted_since' && has('published_since') ? 'published_since' : name;
    if (!has(source)) continue;
    const bound = parseDateBound(text(input[source], source), edge);
    if (!bound) throw invalidRequest(`${source} must be ${DATE_OR_DATE_TIME}.`);
    filters[name] = bound.toISOString();
  }
  if (has('currentness')) filters.currentness = sortedUnique(list(input.currentness, 'currentness', from === 'body' ? 'required' : 'no'));
  if (has('active')) filters.currentness = [bool(input.active, 'active', from) ? 'current' : 'not_current'];
  for (const c of filters.currentness) if (!['current', 'uncertain', 'not_current'].includes(c)) throw invalidRequest(`currentness: unknown value "${c}".`);
  if (has('state')) filters.state = text(input.state, 'state').toUpperCase();
  if (has('country')) filters.country = sortedUnique(list(input.country, 'country', from === 'body' ? 'allowed' : 'no').map((c) => c.toUpperCase()));
  if (filters.country && (filters.country.length > 10 || filters.country.some((c) => !/^[A-Z]{2}$/.test(c)))) {
    throw invalidRequest('country must be up to 10 two-letter ISO country codes, comma-separated.');
  }
  if (has('employment_type')) filters.employment_type = sortedUnique(list(input.employment_type, 'employment_type', from === 'body' ? 'allowed' : 'no').map((e) => e.trim().toLowerCase()));
  if (filters.employment_type && (filters.employment_type.length > 10 || filters.employment_type.some((e) => e === ''))) {
    throw invalidRequest('employment_type must be up to 10 comma-separated values.');
  }
  if (has('exclude_source')) {
    const raw = text(input.exclude_source, 'exclude_source');
    const values = raw === '' ? [] : raw.split(',').map((s) => s.trim().toLowerCase());
    if (values.length > 10 || values.some((v) => v === '')) throw invalidRequest('exclude_source must be a comma list of up to 10 sources or source types.');
    if (values.length > 0) filters.exclude_source = sortedUnique(values);
  }
  if (has('pay_currency')) filters.pay_currency = text(input.pay_currency, 'pay_currency').toUpperCase();
  if (has('pay_min')) filters.pay_min = amount(input.pay_min, 'pay_min', from);
  if (has('pay_max')) filters.pay_max = amount(input.pay_max, 'pay_max', from);
  if (filters.pay_min !== undefined && filters.pay_max !== undefined && filters.pay_max < filters.pay_min) {
    throw invalidRequest(`pay_max (${filters.pay_max}) must not be below pay_min (${filters.pay_min}).`);
  }
  for (const name of ['title_advanced', 'description_advanced'] as const) {
    const value = filters[name];
    if (value === undefined) continue;
    try {
      if (!hasPositiveTerm(parseAdvanced(value))) {
        throw invalidRequest(
          `${name} needs a positive search term: this query would also match jobs containing none of its words ` +
            '(only negations, a negation on one side of OR, or only stop words like "the").',
        );
      }
    } catch (error) {
      if (error instanceof QuerySyntaxError) throw invalidRequest(`${name}: ${error.message}`);
      throw error;
    }
  }
  return filters;
}

/** True when the listing is ranked by relevance by default (q, title or description sent). */
export const hasRankedText = (f: JobFilters) => f.q !== undefined || f.title !== undefined || f.description !== undefined;
/** A keyword search (route class jobs_search, spec 8.4): a full-text filter of any kind. */
export const isKeywordSearch = (f: JobFilters) => hasRankedText(f) || f.title_advanced !== undefined || f.description_advanced !== undefined;

/** A list request's input (its query or body) without the list options: its filters. */
export const filterInput = (input: Input): Input => Object.fromEntries(Object.entries(input).filter(([k]) => !(LIST_OPTIONS as readonly string[]).includes(k)));

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
      if (!(JOB_FIELDS as readonly string[]).includes(name)) throw invalidRequest(`fields: unknown field "${name}"; known fields: ${JOB_FIELDS.join(', ')}.`);
    }
    fields = [...new Set(names as JobField[])];
  }
  const include = input.include === undefined ? [] : sortedUnique(list(input.include, 'include', from === 'body' ? 'required' : 'no').map((s) => s.trim()));
  for (const name of include) if (name !== 'company' && name !== 'source_data') throw invalidRequest(`include: unknown value "${name}"; use company and/or source_data.`);
  const format = input.description_format === undefined ? 'text' : text(input.description_format, 'description_format');
  if (format !== 'text' && format !== 'html') throw invalidRequest('description_format must be text or html.');

  let limit = 50;
  if (input.limit !== undefined) {
    limit = typeof input.limit === 'number' ? input.limit : from === 'query' && typeof input.limit === 'string' && /^\d+$/.test(input.limit) ? Number(input.limit) : NaN;
    if (!Number.isInteger(limit)) throw invalidRequest('limit must be a whole number.');
  }
  const onlyIds = fields !== null && fields.length === 1 && fields[0] === 'job_id';
  if (limit < 1 || limit > (onlyIds ? 1000 : 250)) {
    throw invalidRequest(onlyIds ? 'limit must be from 1 to 1000.' : 'limit must be from 1 to 250 (up to 1000 when fields is exactly job_id).');
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
