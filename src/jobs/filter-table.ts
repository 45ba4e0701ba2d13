// The job filters of spec 4.2, one entry each: how its value is read and normalised, what it tests
// (on the job, on one of its postings, on one of its locations, or through the text indexes) and the
// SQL of that test with its values bound. readFilters (filters.ts), the SQL of a listing
// (filter-sql.ts), the es_dsl fields (es-dsl-fields.ts, which name filters of this table), MCP's
// list_fields and the contract test read this table; the filter's wording for people is its query
// parameter's description in openapi.yaml, which list_fields and the docs show.
//
// A filter added here and to openapi.yaml (GET /v1/jobs and JobFilters) works everywhere with no other
// edit. Rules that span several filters (aliases sent twice, pay_max below pay_min, state read in the
// countries sent) are said once, in readFilters and in the entries' `f` argument.

import type { DuckDBValue } from '@duckdb/node-api';
import { hasAtMostTwoDecimals } from '../metering/money.js';
import { canonicalSkill } from '../catalog/reference/skills.js';
import { invalidRequest } from '../errors.js';
import { parseDateBound } from '../query/dates.js';
import { hasPositiveTerm, parseAdvanced, QuerySyntaxError } from '../search/query.js';

export type From = 'query' | 'body';

/** What a date filter accepts, as every message about one says it. */
export const DATE_OR_DATE_TIME = 'a date (2026-11-20) or a date-time with a zone (2026-11-20T06:00:00Z)';

/** What a test's SQL is written with: bound values, the snapshot's tables, the other filters sent. */
export interface SqlContext {
  /** Binds `value`, giving its placeholder. */
  bind(value: DuckDBValue): string;
  /** `column IN (...)` of bound values. */
  inList(column: string, values: string[]): string;
  /** A bound instant as a TIMESTAMPTZ. */
  ts(iso: string): string;
  /**
   * The test of a job's bit mask of the coded values of `kind` (those its postings or locations have):
   * true when it has one of `values`; undefined when a value has no bit (the SQL test is used instead).
   */
  mask(column: string, kind: string, values: string[], blocks?: number): string | undefined;
  /** The test of a job's two-bit mask of a yes/no property of its postings (bit 1: one has it, bit 2: one has not). */
  hasMask(column: string, has: boolean): string;
  /** The snapshot's table prefix. */
  prefix: string;
  /** Every filter sent, for the rules spanning several (typed loosely: the table's types come from the table). */
  f: Readonly<Record<string, unknown>> & { country?: string[] };
}

/**
 * What a filter tests. `job`: a condition on the job row `j`. `posting`: a condition on one posting
 * row `p` (all posting conditions on one and the same posting), with the job mask test that means the
 * same when it is the only one. `location`: likewise on one location row `l`; `impliedBy` names a filter
 * whose test already says this one's. `text`: answered by the text indexes, not by SQL.
 */
export type Test<V> =
  | { on: 'text' }
  | { on: 'job'; sql: (value: V, c: SqlContext) => string }
  | {
      on: 'posting' | 'location';
      sql: (value: V, c: SqlContext) => string;
      mask?: (value: V, c: SqlContext) => string | undefined;
      impliedBy?: string;
    };

export interface Alias<V> {
  name: string;
  /** How the message about sending both calls it. */
  is: 'an alias' | 'a shorthand';
  /** Its reading, when it differs from the filter's. */
  read?: (value: unknown, name: string, from: From) => V;
}

export interface Filter<V> {
  /** The value as sent (a query string, or JSON from a body) read and normalised; undefined: as if not sent. */
  read: (value: unknown, name: string, from: From) => V | undefined;
  test: Test<V>;
  /** Other names it may be sent under (never both). */
  aliases?: Alias<V>[];
  /** Its value when not sent. */
  absent?: V;
}

// ---- Readers (the listing options of filters.ts use them too): each throws 400 invalid_request naming
// the parameter.

export function text(value: unknown, name: string): string {
  if (typeof value !== 'string') throw invalidRequest(`${name} must be a string.`);
  return value;
}

/** A list given as a comma string (query) or, where the body allows it, an array of strings. */
export function list(value: unknown, name: string, arrays: 'allowed' | 'required' | 'no'): string[] {
  if (Array.isArray(value)) {
    if (arrays === 'no') throw invalidRequest(`${name} must be a string.`);
    if (!value.every((v) => typeof v === 'string')) throw invalidRequest(`${name} must hold strings only.`);
    return value.flatMap((v: string) => v.split(','));
  }
  if (arrays === 'required') throw invalidRequest(`${name} must be an array of strings.`);
  return text(value, name).split(',');
}

export function bool(value: unknown, name: string, from: From): boolean {
  // The validator may already have coerced a query value to a boolean.
  if (typeof value === 'boolean') return value;
  if (from === 'query' && (value === 'true' || value === 'false')) return value === 'true';
  throw invalidRequest(`${name} must be ${from === 'body' ? 'a JSON boolean' : 'true or false'}.`);
}

function amount(value: unknown, name: string, from: From): number {
  const n =
    from === 'body' || typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d+(\.\d{1,2})?$/.test(value)
        ? Number(value)
        : NaN;
  if (typeof n !== 'number' || !hasAtMostTwoDecimals(n) || n < 0 || n > 1e9) {
    throw invalidRequest(`${name} must be a number from 0 to 1000000000 with at most two decimals.`);
  }
  return n;
}

/** A whole number of days or times, 0 to 100,000. */
function whole(value: unknown, name: string, from: From): number {
  const n =
    from === 'body' || typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : NaN;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 100_000)
    throw invalidRequest(`${name} must be a whole number from 0 to 100000.`);
  return n;
}

const date = (edge: 'start' | 'end') => (value: unknown, name: string) => {
  const bound = parseDateBound(text(value, name), edge);
  if (!bound) throw invalidRequest(`${name} must be ${DATE_OR_DATE_TIME}.`);
  return bound.toISOString();
};

export const sortedUnique = (values: string[]) => [...new Set(values)].sort();
const upper = (value: unknown, name: string) => text(value, name).toUpperCase();

/** A list of at most 10 values, read by `normalise`, refused with `rule` when a value is not `ok`. */
const shortList =
  (normalise: (v: string) => string, ok: (v: string) => boolean, rule: string) => (value: unknown, name: string, from: From) => {
    const values = sortedUnique(list(value, name, from === 'body' ? 'allowed' : 'no').map(normalise));
    if (values.length > 10 || !values.every(ok)) throw invalidRequest(rule);
    return values;
  };

/** A Boolean search (spec 4.3) that matches only jobs holding at least one of its terms. */
function advanced(value: unknown, name: string): string {
  const query = text(value, name);
  try {
    if (!hasPositiveTerm(parseAdvanced(query))) {
      throw invalidRequest(
        `${name} needs a positive search term: this query would also match jobs containing none of its words ` +
          '(only negations, a negation on one side of OR, or only stop words like "the").',
      );
    }
  } catch (error) {
    if (error instanceof QuerySyntaxError) throw invalidRequest(`${name}: ${error.message}`);
    throw error;
  }
  return query;
}

const CURRENTNESS: Record<string, number> = { current: 0, uncertain: 1, not_current: 2 };
/** A job's pay_source column: where its yearly pay comes from (0: it has none). */
const PAY_SOURCE: Record<string, number> = { posted: 1, description: 2 };
/** Whether the pay filters also read the pay descriptions state. */
const described = (c: SqlContext) => (c.f.pay_source as string[] | undefined)?.includes('description') === true;
/** A posting's yearly floor or ceiling, or its job description's where it states none and pay_source says so. */
const yearly = (c: SqlContext, edge: 'floor' | 'ceiling') =>
  described(c) ? `coalesce(p.pay_${edge}_year, p.described_${edge}_year)` : `p.pay_${edge}_year`;
const WORK_ARRANGEMENT: Record<string, number> = { remote: 1, hybrid: 2, in_person: 3 };

// ---- The tests.

const textIndex: Test<string> = { on: 'text' };
const onJob = <V>(sql: (value: V, c: SqlContext) => string): Test<V> => ({ on: 'job', sql });
/** A job column compared with the bound value. */
const jobColumn = (column: string, op = '='): Test<string | boolean> => onJob((v, c) => `j.${column} ${op} ${c.bind(v)}`);
const jobTime = (column: string, op: '>=' | '<='): Test<string> => onJob((v, c) => `j.${column} ${op} ${c.ts(v)}`);
const postingTime = (column: string, op: '>=' | '<='): Test<string> => ({ on: 'posting', sql: (v, c) => `p.${column} ${op} ${c.ts(v)}` });
/** A coded posting value (lower-cased as the serving tables hold it when `lower`), with its job mask. */
const coded = (column: string, kind: string, maskColumn: string, lower = false): Test<string> => {
  const held = (v: string) => (lower ? v.toLowerCase() : v);
  return { on: 'posting', sql: (v, c) => `p.${column} = ${c.bind(held(v))}`, mask: (v, c) => c.mask(maskColumn, kind, [held(v)]) };
};
/** A yes/no posting property, with its two-bit job mask. */
const postingFlag = (column: string, maskColumn: string): Test<boolean> => ({
  on: 'posting',
  sql: (v) => `p.${column} = ${v}`,
  mask: (v, c) => c.hasMask(maskColumn, v),
});

const filter = <V>(f: Filter<V>): Filter<V> => f;
const textFilter = (test: Test<string>, read: (value: unknown, name: string) => string = text) => filter<string>({ read, test });
const flag = (test: Test<boolean>) => filter<boolean>({ read: bool, test });
const since = (test: Test<string>) => filter<string>({ read: date('start'), test });
const until = (test: Test<string>) => filter<string>({ read: date('end'), test });

/** The filters, in the order their conditions are written. */
export const FILTERS = {
  currentness: filter<string[]>({
    read: (value, name, from) => {
      const values = sortedUnique(list(value, name, from === 'body' ? 'required' : 'no'));
      for (const c of values) if (!(c in CURRENTNESS)) throw invalidRequest(`currentness: unknown value "${c}".`);
      return values;
    },
    aliases: [{ name: 'active', is: 'a shorthand', read: (value, name, from) => [bool(value, name, from) ? 'current' : 'not_current'] }],
    absent: ['current'],
    test: onJob((v) => `j.currentness IN (${v.map((c) => CURRENTNESS[c]!).join(', ')})`),
  }),
  // A term of one or two characters would match inside nearly every name: it means the whole name or
  // its first word instead.
  company: textFilter(
    onJob((v, c) => {
      const term = v.toLowerCase();
      if ([...term].length <= 2) return `(j.employer_lc = ${c.bind(term)} OR split_part(j.employer_lc, ' ', 1) = ${c.bind(term)})`;
      return `contains(j.employer_lc, ${c.bind(term)})`;
    }),
  ),
  title: textFilter(textIndex),
  title_advanced: textFilter(textIndex, advanced),
  description: textFilter(textIndex),
  description_advanced: textFilter(textIndex, advanced),
  q: textFilter(textIndex),
  company_id: textFilter(jobColumn('company_id')),
  job_id: textFilter(jobColumn('job_id')),
  // An occupation code or prefix: the zeros that close a group's code ("15-0000", "15-1200") are its prefix.
  soc_code: filter<string[]>({
    read: shortList(
      (code) => code.trim().replace(/0+$/, ''),
      (code) => /^\d{2}-\d{0,4}$/.test(code),
      'soc_code must be up to 10 comma-separated SOC codes or prefixes, e.g. 15-1252, 15-12 or 15-.',
    ),
    test: onJob((v, c) => `(${v.map((code) => `starts_with(j.soc_code, ${c.bind(code)})`).join(' OR ')})`),
  }),
  // Skills of the vocabulary (src/catalog/reference/skills.ts) in any case: a job must name every one.
  skills: filter<string[]>({
    read: shortList(
      (skill) => canonicalSkill(skill.trim()) ?? skill.trim(),
      (skill) => canonicalSkill(skill) === skill,
      'skills must be up to 10 comma-separated skills of the vocabulary, e.g. Python,SQL (group_by=skills lists those in the catalog).',
    ),
    test: onJob((v, c) => `list_has_all(j.skills, [${v.map((skill) => c.bind(skill)).join(', ')}])`),
  }),
  work_arrangement: filter<string>({
    read: text,
    aliases: [{ name: 'remote_type', is: 'an alias' }],
    test: onJob((v) => `j.work_arrangement = ${WORK_ARRANGEMENT[v] ?? -1}`),
  }),
  stale: flag(jobColumn('stale')),
  company_linked: flag(onJob((v) => (v ? 'j.company_id IS NOT NULL' : 'j.company_id IS NULL'))),
  has_description: flag(jobColumn('has_description')),
  has_location: flag(jobColumn('has_location')),
  // Posting reality (docs/filters.md): a job whose employer never posted it on its own ATS or careers page
  // matches neither listed_by_employer=true nor false.
  listed_by_employer: flag(jobColumn('listed_by_employer')),
  reposts_min: filter<number>({ read: whole, test: onJob((v, c) => `j.reposts >= ${c.bind(v)}`) }),
  days_open_min: filter<number>({ read: whole, test: onJob((v, c) => `j.days_open >= ${c.bind(v)}`) }),
  days_open_max: filter<number>({ read: whole, test: onJob((v, c) => `j.days_open <= ${c.bind(v)}`) }),
  verified_since: since(jobTime('last_verified_at', '>=')),
  verified_until: until(jobTime('last_verified_at', '<=')),
  first_seen_since: since(jobTime('job_first_seen_at', '>=')),
  first_seen_until: until(jobTime('job_first_seen_at', '<=')),
  updated_since: since(jobTime('job_updated_at', '>=')),
  updated_until: until(jobTime('job_updated_at', '<=')),
  curated_since: since(jobTime('curated_at', '>=')),
  curated_until: until(jobTime('curated_at', '<=')),

  // Locations: every condition holds on one location. Alone, a state is a U.S. state; with country,
  // that country's subdivision.
  location: textFilter({ on: 'location', sql: (v, c) => `contains(l.text, ${c.bind(v.toLowerCase())})` }),
  city: textFilter({ on: 'location', sql: (v, c) => `contains(l.city, ${c.bind(v.toLowerCase())})` }),
  msa: textFilter({ on: 'location', sql: (v, c) => `l.cbsa_code = ${c.bind(v)}`, mask: (v, c) => c.mask('msa_mask', 'msa', [v], 3) }),
  state: textFilter(
    {
      on: 'location',
      sql: (v, c) => `l.state = ${c.bind(v)} AND ${c.inList('l.country', c.f.country ?? ['US'])}`,
      mask: (v, c) =>
        c.mask(
          'subdivision_mask',
          'subdivision',
          (c.f.country ?? ['US']).map((country) => `${country}-${v}`),
          3,
        ),
    },
    upper,
  ),
  country: filter<string[]>({
    read: shortList(
      (c) => c.toUpperCase(),
      (c) => /^[A-Z]{2}$/.test(c),
      'country must be up to 10 two-letter ISO country codes, comma-separated.',
    ),
    test: {
      on: 'location',
      sql: (v, c) => c.inList('l.country', v),
      mask: (v, c) => c.mask('country_mask', 'country', v),
      impliedBy: 'state',
    },
  }),

  // Postings: every condition holds on one and the same posting. A single condition on a coded value
  // is answered by the job's bit mask of the values its postings have, which means the same and needs
  // no join; two or more, or ranges (pay, dates), join the postings.
  source: textFilter(coded('source', 'source', 'source_mask', true)),
  source_type: textFilter(coded('source_type', 'source_type', 'type_mask', true)),
  source_class: textFilter(coded('source_class', 'source_class', 'class_mask')),
  posting_status: textFilter(coded('status', 'status', 'status_mask')),
  employment_type: filter<string[]>({
    read: shortList(
      (e) => e.trim().toLowerCase(),
      (e) => e !== '',
      'employment_type must be up to 10 comma-separated values.',
    ),
    test: {
      on: 'posting',
      sql: (v, c) => (v.length === 1 ? `p.employment_type = ${c.bind(v[0]!)}` : c.inList('p.employment_type', v)),
      mask: (v, c) => c.mask('employment_mask', 'employment_type', v),
    },
  }),
  // With pay_source=description, the pay filters also read the pay a job's description states, on the
  // postings of a job whose postings state no yearly pay (described_*; no job mask says it).
  pay_currency: textFilter(
    {
      on: 'posting',
      sql: (v, c) => `${described(c) ? 'coalesce(p.pay_currency, p.described_currency)' : 'p.pay_currency'} = ${c.bind(v)}`,
      mask: (v, c) => (described(c) ? undefined : c.mask('currency_mask', 'pay_currency', [v])),
    },
    upper,
  ),
  application_check: textFilter(coded('check_result', 'check_result', 'check_mask')),
  has_pay: flag({
    on: 'posting',
    sql: (v, c) => (described(c) ? `(p.has_pay OR p.described_currency IS NOT NULL) = ${v}` : `p.has_pay = ${v}`),
    mask: (v, c) => (described(c) ? undefined : c.hasMask('pay_mask', v)),
  }),
  pay_source: filter<string[]>({
    read: shortList(
      (s) => s.trim().toLowerCase(),
      (s) => s in PAY_SOURCE,
      'pay_source must be posted, description or both, comma-separated.',
    ),
    test: onJob((v) => `j.pay_source IN (${v.map((s) => PAY_SOURCE[s]!).join(', ')})`),
  }),
  has_posting_url: flag(postingFlag('has_posting_url', 'posting_url_mask')),
  has_application_url: flag(postingFlag('has_application_url', 'application_url_mask')),
  posting_id: textFilter({ on: 'posting', sql: (v, c) => `p.posting_id = ${c.bind(v)}` }),
  source_posting_id: textFilter({ on: 'posting', sql: (v, c) => `p.source_posting_id = ${c.bind(v)}` }),
  // Pay per year; an unknown interval has no yearly amount and never matches.
  pay_min: filter<number>({ read: amount, test: { on: 'posting', sql: (v, c) => `${yearly(c, 'floor')} >= ${c.bind(v)}` } }),
  pay_max: filter<number>({ read: amount, test: { on: 'posting', sql: (v, c) => `${yearly(c, 'ceiling')} <= ${c.bind(v)}` } }),
  posted_since: filter<string>({
    read: date('start'),
    aliases: [{ name: 'published_since', is: 'an alias' }],
    test: postingTime('posted_at', '>='),
  }),
  posted_until: until(postingTime('posted_at', '<=')),
  last_fetch_since: since(postingTime('last_fetch_at', '>=')),
  last_fetch_until: until(postingTime('last_fetch_at', '<=')),
  application_check_since: since(postingTime('checked_at', '>=')),
  // A posting from a source and a source type both not listed (an empty list: as if not sent).
  exclude_source: filter<string[]>({
    read: (value, name) => {
      const raw = text(value, name);
      const values = raw === '' ? [] : raw.split(',').map((s) => s.trim().toLowerCase());
      if (values.length > 10 || values.some((v) => v === ''))
        throw invalidRequest('exclude_source must be a comma list of up to 10 sources or source types.');
      return values.length > 0 ? sortedUnique(values) : undefined;
    },
    test: onJob(
      (v, c) =>
        `j.doc IN (SELECT p.doc FROM ${c.prefix}postings p WHERE NOT (${c.inList('p.source', v)} OR ${c.inList("coalesce(p.source_type, '')", v)}))`,
    ),
  }),
};

export type FilterName = keyof typeof FILTERS;
export const FILTER_NAMES = Object.keys(FILTERS) as FilterName[];
type ValueOf<F> = F extends Filter<infer V> ? V : never;

/** Normalised filters: only what was sent, in one canonical form (currentness always). */
export type JobFilters = { [K in FilterName]?: ValueOf<(typeof FILTERS)[K]> } & { currentness: string[] };

/** Every name a filter is sent under: the filters and their aliases. */
export const FILTER_INPUTS: readonly string[] = FILTER_NAMES.flatMap((name) => [
  name,
  ...((FILTERS[name] as Filter<unknown>).aliases ?? []).map((a) => a.name),
]);
