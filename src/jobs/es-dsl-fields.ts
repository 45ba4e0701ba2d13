// The es_dsl query fields (spec 4.4): each field, the clauses it accepts and the filter of the filter
// table (filter-table.ts) it becomes. The translator (es-dsl.ts) reads this one; a contract test checks
// the field table of openapi.yaml's es_dsl docs against it.

import { canonicalSkill } from '../catalog/reference/skills.js';
import { UUID } from '../shared/ids.js';
import type { FilterName } from './filter-table.js';

export type Kind = 'text' | 'contains' | 'value' | 'anyOf' | 'allOf' | 'flag' | 'date' | 'count' | 'pay' | 'exists';
export interface Check {
  ok: (value: string) => boolean;
  says: string;
  normalize?: (value: string) => string;
}
/**
 * One accepted query field. kind says which clauses it takes (ACCEPTS) and how they become filters:
 * text → `filter` (Boolean search) and `phrase` (the first positive match_phrase); contains, value, flag →
 * one value of `filter`; anyOf → a list of `filter` values, any of which matches; allOf → one value per clause
 * added to a list of `filter` values, every one of which matches; date → `since`/`until`; count → the whole-number
 * bounds `since` (at least) and `until` (at most), each optional;
 * pay → `filter` from one side of a range only; `exists` → the has_* filter of exists / must_not exists.
 */
export interface EsDslField {
  kind: Kind;
  filter?: FilterName;
  phrase?: FilterName;
  since?: FilterName;
  until?: FilterName;
  bound?: 'lower' | 'upper';
  check?: Check;
  /** should on this field becomes its list filter (spec 4.4). */
  should?: boolean;
  /** Every value the field can hold (one per job), so that must_not is their complement. */
  closed?: readonly string[];
  exists?: FilterName;
}

/** A text filter's value, as the filters take it: 1 to 200 characters. */
export const text: Check = { ok: (v) => [...v].length >= 1 && [...v].length <= 200, says: 'a text of 1 to 200 characters' };
// Lower-cased as the filters compare them; employment_type is also trimmed, as readFilters does.
const lower: Check = { ...text, normalize: (v) => v.toLowerCase() };
const pattern = (re: RegExp, says: string, normalize?: (v: string) => string): Check => ({ ok: (v) => re.test(v), says, normalize });
const oneOf = (...values: string[]): Check => ({ ok: (v) => values.includes(v), says: `one of ${values.join(', ')}` });
const upper = (v: string) => v.toUpperCase();
const CURRENTNESS = ['current', 'uncertain', 'not_current'];
const dates = (name: 'posted' | 'first_seen' | 'updated' | 'curated' | 'last_fetch'): EsDslField => ({
  kind: 'date',
  since: `${name}_since`,
  until: `${name}_until`,
});

/** The accepted query fields and what each becomes; the table of the openapi.yaml es_dsl docs is this one. */
export const ES_DSL_FIELDS: Readonly<Record<string, EsDslField>> = {
  title: { kind: 'text', filter: 'title_advanced', phrase: 'title' },
  description: { kind: 'text', filter: 'description_advanced', exists: 'has_description' },
  employer_name: { kind: 'contains', filter: 'company', check: text },
  company_id: {
    kind: 'value',
    filter: 'company_id',
    check: pattern(UUID, 'a lowercase UUID (a clause value is matched as written: write its hex digits in lower case)'),
    exists: 'company_linked',
  },
  locations: { kind: 'exists', exists: 'has_location' },
  'locations.city': { kind: 'contains', filter: 'city', check: text },
  'locations.state': { kind: 'value', filter: 'state', check: pattern(/^[A-Za-z]{2}$/, 'a two-letter subdivision code', upper) },
  'locations.country': {
    kind: 'anyOf',
    filter: 'country',
    check: pattern(/^[A-Za-z]{2}$/, 'a two-letter ISO country code', upper),
    should: true,
  },
  'locations.msa.cbsa_code': { kind: 'value', filter: 'msa', check: pattern(/^[0-9]{5}$/, 'a 5-digit CBSA code') },
  'occupation.soc_code': {
    kind: 'anyOf',
    filter: 'soc_code',
    check: pattern(/^[0-9]{2}-[0-9]{4}$/, 'a SOC 2018 detailed code such as 15-1252'),
    should: true,
  },
  skills: {
    kind: 'allOf',
    filter: 'skills',
    check: { ok: (v) => canonicalSkill(v) !== undefined, says: 'a skill of the vocabulary', normalize: (v) => canonicalSkill(v)! },
  },
  work_arrangement: { kind: 'value', filter: 'work_arrangement', check: oneOf('remote', 'hybrid', 'in_person') },
  employment_type: {
    kind: 'anyOf',
    filter: 'employment_type',
    should: true,
    check: {
      ok: (v) => text.ok(v) && v.trim() !== '' && !v.includes(','),
      says: 'a text of 1 to 200 characters without commas',
      normalize: (v) => v.trim().toLowerCase(),
    },
  },
  currentness: { kind: 'anyOf', filter: 'currentness', check: oneOf(...CURRENTNESS), closed: CURRENTNESS },
  stale: { kind: 'flag', filter: 'stale' },
  posted_at: dates('posted'),
  first_seen_at: dates('first_seen'),
  job_first_seen_at: dates('first_seen'),
  job_updated_at: dates('updated'),
  curated_at: dates('curated'),
  last_fetch_at: dates('last_fetch'),
  last_verified_at: { kind: 'date', since: 'verified_since', until: 'verified_until' },
  listed_by_employer: { kind: 'flag', filter: 'listed_by_employer' },
  reposts: { kind: 'count', since: 'reposts_min' },
  days_open: { kind: 'count', since: 'days_open_min', until: 'days_open_max' },
  pay: { kind: 'exists', exists: 'has_pay' },
  'pay.floor': { kind: 'pay', filter: 'pay_min', bound: 'lower' },
  'pay.ceiling': { kind: 'pay', filter: 'pay_max', bound: 'upper' },
  'annual_pay.source': { kind: 'anyOf', filter: 'pay_source', check: oneOf('posted', 'description') },
  'pay.currency': { kind: 'value', filter: 'pay_currency', check: pattern(/^[A-Za-z]{3}$/, 'a three-letter ISO 4217 code', upper) },
  posting_url: { kind: 'exists', exists: 'has_posting_url' },
  application_url: { kind: 'exists', exists: 'has_application_url' },
  source: { kind: 'value', filter: 'source', check: lower },
  source_type: { kind: 'value', filter: 'source_type', check: lower },
  source_class: {
    kind: 'value',
    filter: 'source_class',
    check: oneOf(
      'ats',
      'employer-site',
      'government-exchange',
      'aggregator',
      'staffing-network',
      'dataset',
      'purchased',
      'third-party-api',
      'unknown',
    ),
  },
};

export const CLAUSES = [
  'match_all',
  'bool',
  'term',
  'terms',
  'match',
  'match_phrase',
  'range',
  'exists',
  'query_string',
  'simple_query_string',
] as const;
export type Clause = (typeof CLAUSES)[number];
const ACCEPTS: Record<Kind, readonly Clause[]> = {
  text: ['match', 'match_phrase', 'query_string', 'simple_query_string'],
  contains: ['match_phrase'],
  value: ['term', 'terms', 'match'],
  anyOf: ['term', 'terms', 'match'],
  allOf: ['term', 'terms', 'match'],
  flag: ['term'],
  date: ['range'],
  count: ['range'],
  pay: ['range'],
  exists: [],
};
export const acceptedClauses = (f: EsDslField): Clause[] => [...ACCEPTS[f.kind], ...(f.exists ? (['exists'] as const) : [])];
