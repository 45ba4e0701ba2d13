// The validator's findings in words (docs/errors.md): each sentence names the parameter or property, says
// what it accepts with an example, read from its schema in openapi.yaml, and what was sent; an unknown name
// gets the name this API uses for it. Never a regular expression nor a phrase of the validator.

import type { Request } from 'express';
import { DATE_OR_DATE_TIME, JOB_FIELDS } from '../jobs/filters.js';
import { suggestName, nearestRoute } from './did-you-mean.js';
import { deref, operationOf, operations, refName, uuidPattern, type Node, type Operation } from '../shared/contract.js';

export interface ValidatorError {
  status: number;
  errors?: { path?: string; message?: string; errorCode?: string }[];
  message?: string;
  headers?: Record<string, string>;
}

type Where = 'query' | 'body' | 'params';
const WHERE: Record<Where, string> = { query: 'query parameter', body: 'body property', params: 'path parameter' };

const FIELD_NAMES = JOB_FIELDS.join(', ');

/** What each named schema accepts, where its rule (a pattern, a cursor) does not say it by itself. */
const SCHEMA_WORDS: Record<string, string> = {
  Uuid: 'a UUID, e.g. 0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f',
  Cursor: 'the next_cursor of the previous page, exactly as received (1 to 2048 characters)',
  StateFilter: 'a two-letter subdivision code, e.g. CA',
  CountryCode: 'a two-letter ISO 3166-1 country code, e.g. DE',
  CountryFilter: 'up to 10 two-letter ISO 3166-1 country codes, comma-separated, e.g. US or US,CA',
  CbsaCode: 'a five-digit CBSA code, e.g. 35620',
  PaySourceFilter: 'posted, description or both, comma-separated, e.g. posted,description',
  SocCodeFilter: 'up to 10 SOC 2018 codes or prefixes, comma-separated, e.g. 15-1252, 15-12 or 15-',
  EmploymentTypeFilter: 'up to 10 employment types, comma-separated, e.g. full-time,part-time',
  ExcludeSourceFilter: 'a comma list of up to 10 sources or source types, e.g. indeed,aggregator_api (or nothing)',
  CurrentnessFilter: 'a comma list of current, uncertain, not_current, e.g. current,uncertain',
  CurrencyFilter: 'a three-letter ISO 4217 currency code, e.g. USD',
  IncludeFilter: 'a comma list of company and/or source_data, e.g. company,source_data',
  IncludeList: 'an array of company and/or source_data, e.g. ["company"]',
  FieldsFilter: `a comma list of job property names (${FIELD_NAMES}), e.g. title,locations`,
  FieldsList: `an array of job property names (${FIELD_NAMES}), e.g. ["title", "locations"]`,
  JobPageSize: 'a whole number from 1 to 250 (up to 1000 when fields is exactly job_id), e.g. 50',
  ApiKeyId: 'an API key ID: the 16 characters between jps_live_ and the dot of a key',
};

/** What a parameter or property whose rule is written in place accepts, by its name. */
const NAME_WORDS: Record<string, string> = {
  types: 'a comma list of created, updated, expired, e.g. created,expired',
  after: 'the resume_cursor of the previous call, exactly as received (1 to 2048 characters)',
  query: 'an object holding exactly one clause, e.g. {"match_all": {}}',
  fields: `a comma list or an array of job property names (${FIELD_NAMES}), e.g. "title,locations" or ["title", "locations"]`,
  monthlyLimitUsd: 'an amount in US dollars from 0.01 to 100000 with at most two decimals, e.g. 250 or 49.99 (or null to clear the limit)',
};

const FORMAT_WORDS: Record<string, string> = {
  'date-or-date-time': DATE_OR_DATE_TIME,
  'date-time': 'a date-time with a zone, e.g. 2026-11-20T06:00:00Z',
  date: 'a date, e.g. 2026-11-20',
};

function rangeWords(kind: string, s: Node): string {
  const { minimum: min, maximum: max } = s as { minimum?: number; maximum?: number };
  const range =
    min !== undefined && max !== undefined
      ? ` from ${min} to ${max}`
      : min !== undefined
        ? ` of at least ${min}`
        : max !== undefined
          ? ` of at most ${max}`
          : '';
  const cents =
    s.multipleOf === 0.01 ? ' with at most two decimals, e.g. 50000.50' : typeof s.default === 'number' ? `, e.g. ${s.default}` : '';
  return `${kind}${range}${cents}`;
}

function stringWords(s: Node): string {
  if (typeof s.format === 'string' && FORMAT_WORDS[s.format]) return FORMAT_WORDS[s.format]!;
  if (s.pattern === uuidPattern()) return SCHEMA_WORDS.Uuid!;
  const { minLength: min = 0, maxLength: max } = s as { minLength?: number; maxLength?: number };
  return max !== undefined ? `a text of ${min} to ${max} characters` : min > 0 ? `a text of at least ${min} characters` : 'a text';
}

/** What `schema` accepts, in words, for the parameter or property `name`. */
function wordsFor(name: string, schema: unknown, where: Where): string {
  const ref = refName(schema);
  if (ref && SCHEMA_WORDS[ref]) return SCHEMA_WORDS[ref];
  const s = deref(schema);
  // A repeated query parameter is checked item by item: say what one item takes.
  if (where === 'query' && s.type === 'array') return wordsFor(name, s.items, where);
  if (NAME_WORDS[name]) return NAME_WORDS[name];
  const members = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (members) return members.map((m) => wordsFor(name, m, where)).join(', or ');
  if (Array.isArray(s.enum)) return `one of ${s.enum.join(', ')}`;
  switch (s.type) {
    case 'boolean':
      return where === 'body' ? 'a JSON boolean, true or false' : 'true or false';
    case 'integer':
      return rangeWords(where === 'body' ? 'a JSON whole number' : 'a whole number', s);
    case 'number':
      return rangeWords(where === 'body' ? 'a JSON number' : 'a number', s);
    case 'array':
      return `an array of ${typeof s.maxItems === 'number' ? `up to ${s.maxItems}` : 'one or more'} values, each ${wordsFor(name, s.items, where)}`;
    case 'object':
      return 'a JSON object';
    default:
      return stringWords(s);
  }
}

interface Finding {
  where: Where | undefined;
  name: string;
  /** The rule broken: unknown (a name the route does not take), empty, required, type, pattern, not, ... */
  keyword: string;
}

function findingsOf(error: ValidatorError): Finding[] {
  return (error.errors ?? []).map((e) => {
    const [first, ...rest] = (e.path ?? '').replace(/^[./]/, '').split(/[./]/).filter(Boolean);
    const where = first && first in WHERE ? (first as Where) : undefined;
    const message = e.message ?? '';
    const code = (e.errorCode ?? '').split('.')[0]!;
    const keyword =
      /^Unknown query parameter/.test(message) || code === 'additionalProperties' || code === 'unevaluatedProperties'
        ? 'unknown'
        : /^Empty value/.test(message)
          ? 'empty'
          : code;
    // A repeated query parameter or an array is checked item by item (fields/0): name the parameter.
    return { where, name: rest.filter((part) => !/^\d+$/.test(part)).join('.'), keyword };
  });
}

/** What was sent for the finding's parameter or property. */
function valueOf(f: Finding, op: Operation, req: Request | undefined): unknown {
  if (!req) return undefined;
  if (f.where === 'query') return (req.query as Node)[f.name];
  if (f.where === 'body') return f.name.split('.').reduce<unknown>((at, part) => (at as Node | undefined)?.[part], req.body);
  return req.path.split('/')[op.template.split('/').indexOf(`{${f.name}}`)];
}

/** "; got "yesterday"", as the sentence quotes what was sent; a JSON number or boolean sent as a string is told so. */
function sent(f: Finding, schema: unknown, value: unknown): string {
  if (value === undefined) return '';
  if (value === '') return '; got an empty value';
  const text =
    typeof value === 'string' ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value) : JSON.stringify(value).slice(0, 80);
  const quoted = f.where === 'body' && typeof value === 'string' && ['integer', 'number', 'boolean'].includes(deref(schema).type as string);
  return `; got ${text}${quoted ? ', a string: send it without quotes' : ''}`;
}

/** "Unknown query parameter 'page': use 'cursor' (...)." for each name the route does not take. */
function unknownNames(where: Where, named: string, op: Operation, req: Request | undefined): string {
  const known = where === 'query' ? [...op.parameters].filter(([, p]) => p.in === 'query').map(([n]) => n) : [...op.bodyProperties.keys()];
  const body: unknown = req?.body;
  const given = !req ? [] : where === 'query' ? Object.keys(req.query) : typeof body === 'object' && body !== null ? Object.keys(body) : [];
  const unknown = given.filter((n) => !known.includes(n));
  if (unknown.length === 0) unknown.push(named);
  let unhinted = false;
  const sentences = unknown.map((name) => {
    const hint = suggestName(name, known);
    unhinted ||= !hint;
    return `Unknown ${WHERE[where]} '${name}'${hint ? `: ${hint}` : ''}${hint?.endsWith('?') ? '' : '.'}`;
  });
  const route = `${op.method} ${op.template}`;
  if (unhinted) {
    const what = where === 'query' ? 'query parameters' : 'body properties';
    sentences.push(
      known.length === 0
        ? `${route} takes no ${what}.`
        : known.length <= 12
          ? `${route} takes ${known.join(', ')}.`
          : `${route} takes the ${known.length} ${what} listed in openapi.yaml.`,
    );
  }
  return sentences.join(' ');
}

/** A finding about the body as a whole. */
function bodyWords(keyword: string, op: Operation): string {
  if (keyword === 'minProperties') return `The request body must hold at least one of ${[...op.bodyProperties.keys()].join(', ')}.`;
  // The one `not` of the request schemas: an export body with limit or cursor.
  if (keyword === 'not') return 'The request body must not have limit or cursor: an export is not paged (cap it with max_records).';
  return `The request body must be one JSON object holding the properties of ${op.method} ${op.template}, e.g. {"${[...op.bodyProperties.keys()][0] ?? 'name'}": ...}.`;
}

/** A path parameter that is a sibling route mistyped (/v1/jobs/serch): the route it was probably meant to be. */
function meantRoute(f: Finding, req: Request | undefined): string {
  if (!req || f.where !== 'params') return '';
  const route = nearestRoute(
    req.path,
    operations()
      .filter((o) => o.literal)
      .map((o) => o.template),
  );
  return route ? ` (or did you mean ${route}?)` : '';
}

function sentenceOf(f: Finding, op: Operation | undefined, req: Request | undefined): string {
  if (!f.where) return 'The request does not match its operation in openapi.yaml.';
  if (!op) return `${WHERE[f.where]} '${f.name}' is not valid: see its rule in openapi.yaml.`;
  if (f.keyword === 'unknown') return unknownNames(f.where, f.name, op, req);
  if (f.where === 'body' && f.name === '') return bodyWords(f.keyword, op);
  const schema = f.where === 'body' ? op.bodyProperties.get(f.name.split('.')[0]!) : op.parameters.get(f.name)?.schema;
  const accepts = schema === undefined ? 'as openapi.yaml describes it' : wordsFor(f.name, schema, f.where);
  if (f.keyword === 'required') return `${WHERE[f.where]} '${f.name}' is required: ${accepts}.`;
  return `${WHERE[f.where]} '${f.name}' must be ${accepts}${sent(f, schema, valueOf(f, op, req))}${meantRoute(f, req)}.`;
}

/** One sentence for each offending parameter or property (a property the validator faults thrice is named once). */
export function inWords(error: ValidatorError, req?: Request): string {
  const op = req ? operationOf(req.method, req.path) : undefined;
  const seen = new Set<string>();
  const sentences: string[] = [];
  for (const finding of findingsOf(error)) {
    const key = `${finding.where}:${finding.name}:${finding.keyword === 'unknown'}`;
    if (seen.has(key)) continue;
    seen.add(key);
    sentences.push(sentenceOf(finding, op, req));
  }
  return sentences.length > 0 ? [...new Set(sentences)].join(' ') : 'The request does not match its operation in openapi.yaml.';
}
