// The job filters as an agent sends them to search_jobs and count_jobs (issue 22: small listings). The
// common filters are inputs of their own, described in an agent's words with an example; every other
// filter of the filter table goes by name in `more_filters`, which list_fields describes in full. One name
// per filter: the aliases of the HTTP API (active, remote_type, published_since) are not taken here.

import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { invalidRequest } from '../../errors.js';
import { FILTER_NAMES, FILTERS, type Filter } from '../../jobs/filter-table.js';
import { filterProperties, inputValidator, object, type JsonSchema } from '../schemas.js';

/** Each filter of the table with its schema from openapi.yaml (its HTTP wording: list_fields shows it). */
export const ALL_FILTERS: Record<string, JsonSchema> = filterProperties(FILTER_NAMES);

/** The filters an agent reaches for first, in its words, each with an example. */
const COMMON: Record<string, string> = {
  q: 'In title or description, e.g. "data engineer".',
  title: 'In the title, e.g. "registered nurse".',
  company: 'Employer name has, e.g. "Acme".',
  country: 'e.g. ["US"].',
  state: 'e.g. "TX" (a U.S. state unless country says otherwise).',
  city: 'e.g. "Austin".',
  work_arrangement: 'e.g. "remote".',
  employment_type: 'e.g. ["part-time"].',
  pay_min: 'Yearly pay at least (in pay_currency), e.g. 120000.',
  pay_max: 'Yearly pay at most, e.g. 90000.',
  pay_currency: 'e.g. "USD".',
  posted_since: 'On or after, e.g. "2026-11-11".',
  currentness: 'Default ["current"], e.g. ["current", "uncertain"].',
};

/**
 * What a listing shows of a filter's schema: the type, its values and form. The bounds are checked all the
 * same (filtersOfArgs checks every filter against its whole schema) and list_fields shows them.
 */
function bare(schema: JsonSchema): JsonSchema {
  // A list filter takes a list or one comma-separated string: both are listed as such.
  if (Array.isArray(schema.anyOf)) {
    const list = bare((schema.anyOf as JsonSchema[]).find((s) => s.type === 'array')!);
    return { ...list, type: ['array', 'string'] };
  }
  const kept = Object.entries(schema).filter(([k]) => ['type', 'enum', 'items'].includes(k));
  return Object.fromEntries(kept.map(([k, v]) => [k, k === 'items' ? bare(v as JsonSchema) : v]));
}

/** The filter inputs of search_jobs and count_jobs. */
export const FILTER_INPUTS: Record<string, JsonSchema> = {
  ...Object.fromEntries(Object.entries(COMMON).map(([name, description]) => [name, { ...bare(ALL_FILTERS[name]!), description }])),
  more_filters: {
    type: 'object',
    description: 'Other filters by name (list_fields lists them), e.g. {"has_pay": true}.',
  },
};

/**
 * Every filter checked against its whole schema (the listing shows less of it); compiled at the first call
 * (about 0.1 s of CPU), not when a server that may never serve MCP starts.
 */
let checkFilters: ValidateFunction | undefined;

/** In plain words, naming the filter, never a pattern. */
function sayWhy(error: ErrorObject, common: Record<string, unknown>): string {
  if (error.keyword === 'additionalProperties')
    return `more_filters has no filter named ${JSON.stringify(error.params.additionalProperty)}; list_fields lists the filters.`;
  const name = error.instancePath.split('/')[1] ?? '';
  const where = name in common ? name : `more_filters.${name}`;
  return `${where} is not a value this filter takes${COMMON[name] ? `: ${COMMON[name]}` : '; list_fields shows its rules'}`;
}

/** The filters of a call: its common filter inputs and its more_filters, each filter sent once. */
export function filtersOfArgs(args: Record<string, unknown>): Record<string, unknown> {
  const more = (args.more_filters ?? {}) as Record<string, unknown>;
  const common = Object.fromEntries(Object.keys(COMMON).flatMap((name) => (args[name] === undefined ? [] : [[name, args[name]]])));
  for (const name of Object.keys(more))
    if (name in common) throw invalidRequest(`${name} was sent both as an input and in more_filters: send it once.`);
  const filters = { ...common, ...more };
  checkFilters ??= inputValidator(object(ALL_FILTERS));
  if (!checkFilters(filters)) throw invalidRequest(sayWhy(checkFilters.errors![0]!, common));
  return filters;
}

/** The HTTP API's other names of filters (active, remote_type, published_since), and the filter each stands for. */
const ALIASES = new Map(
  FILTER_NAMES.flatMap((name) => ((FILTERS[name] as Filter<unknown>).aliases ?? []).map((alias) => [alias.name, name] as const)),
);

/**
 * What to do about an argument a filter tool does not take, when it names a filter: an alias has one name
 * here, a filter without an input of its own goes in more_filters. Undefined for any other name.
 */
export function filterHint(name: string): string | undefined {
  const filter = ALIASES.get(name);
  if (filter) return `${name} is not taken here: send ${filter} instead${COMMON[filter] ? `, ${COMMON[filter].replace(/\.$/, '')}` : ''}.`;
  if (name in ALL_FILTERS) return `${name} goes in more_filters, e.g. {"more_filters": {"${name}": ...}}; list_fields shows its rules.`;
  return undefined;
}
