// Translates the Elasticsearch-style body of POST /v1/jobs/search/es_dsl (spec 4.4) into the body of
// POST /v1/jobs/search, so that both routes run the same filters, cursors and charges. Clauses become
// filter values, never SQL; whatever the filters cannot say exactly is refused (400) naming the clause.

import { invalidRequest } from '../errors.js';
import { parseDateBound } from '../query/dates.js';
import { hasPositiveTerm, parseAdvanced, QuerySyntaxError } from '../search/query.js';
import { group, parseQueryString, print, SimpleQueryParser, type TextNode } from './es-dsl-text.js';
import { LIST_OPTIONS } from './filters.js';
import { acceptedClauses, CLAUSES, ES_DSL_FIELDS, text, type Clause, type EsDslField } from './es-dsl-fields.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown) => JSON.stringify(v);

/**
 * Checks a clause object's keys. boost only scales a clause's score (never which jobs match, and the
 * service ranks by its own rule) and _name only tags hits, so both are accepted and dropped; any other
 * option not listed (fuzziness, analyzer, time_zone...) could change the matches and is refused.
 */
function options(value: unknown, path: string, allowed: readonly string[]): Json {
  if (!isObject(value)) throw invalidRequest(`${path} must be an object.`);
  for (const [key, v] of Object.entries(value)) {
    if (key === 'boost' && typeof v === 'number' && v >= 0) continue;
    if (key === '_name' && typeof v === 'string') continue;
    if (key === 'boost' || key === '_name')
      throw invalidRequest(`${path}.${key} must be ${key === 'boost' ? 'a non-negative number' : 'a string'}.`);
    if (!allowed.includes(key))
      throw invalidRequest(`${path}.${key} is not supported; accepted here: ${[...allowed, 'boost', '_name'].join(', ')}.`);
  }
  return value;
}

/** The one field a term, match, match_phrase or range clause names, with its path. */
function onlyField(value: unknown, path: string): [string, unknown, string] {
  if (!isObject(value) || Object.keys(value).length !== 1) throw invalidRequest(`${path} must name exactly one field.`);
  const [name, spec] = Object.entries(value)[0]!;
  return [name, spec, `${path}.${name}`];
}

function fieldFor(name: string, path: string, clause: Clause): EsDslField {
  const field = Object.hasOwn(ES_DSL_FIELDS, name) ? ES_DSL_FIELDS[name] : undefined;
  if (!field) throw invalidRequest(`${path}: unknown field; accepted fields: ${Object.keys(ES_DSL_FIELDS).join(', ')}.`);
  const accepted = acceptedClauses(field);
  if (!accepted.includes(clause))
    throw invalidRequest(`${path}: ${clause} is not accepted on ${name}; ${name} accepts ${accepted.join(', ')}.`);
  return field;
}

// ---- What the clauses ask for, gathered per filter with the rules that keep an AND of them exact.

interface Held<T> {
  value: T;
  path: string;
}

class Gathered {
  private readonly values = new Map<string, Held<string | boolean>>();
  private readonly lists = new Map<string, Held<string[]>>();
  private readonly bounds = new Map<string, Held<{ at: number; value: string | number }>>();
  private readonly texts = new Map<string, Held<TextNode>[]>();

  has(filter: string): boolean {
    return this.values.has(filter);
  }

  /** A filter that takes one value: the same value twice is fine; two values cannot both be sent. */
  one(filter: string, value: string | boolean, path: string): void {
    const held = this.values.get(filter);
    if (held && held.value !== value)
      throw invalidRequest(
        `${path}: ${filter} takes one value: ${show(value)} here and ${show(held.value)} at ${held.path} cannot both be sent.`,
      );
    this.values.set(filter, held ?? { value, path });
  }

  /**
   * A list filter (any value matches). AND-ed lists keep the values in common: the values of one
   * location (or posting, or job) must be in both.
   */
  anyOf(filter: string, values: string[], path: string): void {
    if (values.length > 10) throw invalidRequest(`${path}: ${filter} takes up to 10 values.`);
    const held = this.lists.get(filter);
    const kept = [...new Set(held ? held.value.filter((v) => values.includes(v)) : values)].sort();
    if (kept.length === 0)
      throw invalidRequest(
        `${path}: no ${filter} value is left: ${show(values)} here and ${show(held!.value)} at ${held!.path} have none in common.`,
      );
    this.lists.set(filter, { value: kept, path: held?.path ?? path });
  }

  /** A list filter every value of which must match: AND-ed values add up (at most 10). */
  allOf(filter: string, values: string[], path: string): void {
    const held = this.lists.get(filter);
    const all = [...new Set([...(held?.value ?? []), ...values])].sort();
    if (all.length > 10) throw invalidRequest(`${path}: ${filter} takes up to 10 values.`);
    this.lists.set(filter, { value: all, path: held?.path ?? path });
  }

  /** One bound of a range; AND-ed bounds on one side keep the narrower (keep: the larger or the smaller). */
  bound(filter: string, keep: 'max' | 'min', at: number, value: string | number, path: string): void {
    const held = this.bounds.get(filter);
    if (held && (keep === 'max' ? held.value.at >= at : held.value.at <= at)) return;
    this.bounds.set(filter, { value: { at, value }, path });
  }

  text(filter: string, node: TextNode, path: string): void {
    this.texts.set(filter, [...(this.texts.get(filter) ?? []), { value: node, path }]);
  }

  body(): Json {
    const body: Json = {};
    for (const [filter, held] of this.values) body[filter] = held.value;
    for (const [filter, held] of this.lists) body[filter] = held.value;
    for (const [filter, held] of this.bounds) body[filter] = held.value.value;
    for (const [filter, parts] of this.texts) body[filter] = advanced(filter, parts);
    const [min, max] = [this.bounds.get('pay_min'), this.bounds.get('pay_max')];
    if (min && max && max.value.at < min.value.at)
      throw invalidRequest(
        `${max.path}: pay.ceiling ${max.value.at} is below pay.floor ${min.value.at} at ${min.path}; pay_max must not be below pay_min.`,
      );
    return body;
  }
}

/** The text clauses on one field, AND-ed, as one Boolean search that the API accepts. */
function advanced(filter: string, parts: Held<TextNode>[]): string {
  const paths = parts.map((p) => p.path).join(', ');
  const value = print(
    group(
      'and',
      parts.map((p) => p.value),
    ),
    paths,
  );
  if ([...value].length > 200)
    throw invalidRequest(`${paths}: these clauses make a ${filter} filter of ${[...value].length} characters; filters take at most 200.`);
  try {
    if (hasPositiveTerm(parseAdvanced(value))) return value;
  } catch (error) {
    if (error instanceof QuerySyntaxError) throw invalidRequest(`${paths}: ${filter} ${show(value)}: ${error.message}.`);
    throw error;
  }
  throw invalidRequest(
    `${paths}: ${filter} ${show(value)} needs a positive search term: it would also match jobs containing none of its words ` +
      '(only negations, a negation on one side of OR, or only stop words like "the").',
  );
}

// ---- The clauses.

type Mode = 'must' | 'must_not';
type Handler = (body: unknown, path: string, out: Gathered, mode: Mode) => void;

function clause(query: unknown, path: string, out: Gathered, mode: Mode): void {
  if (!isObject(query) || Object.keys(query).length !== 1)
    throw invalidRequest(`${path} must be an object holding exactly one clause (${CLAUSES.join(', ')}).`);
  const [name, body] = Object.entries(query)[0]!;
  if (!(CLAUSES as readonly string[]).includes(name))
    throw invalidRequest(`${path}.${name} is not supported; use one of ${CLAUSES.join(', ')}.`);
  HANDLERS[name as Clause](body, `${path}.${name}`, out, mode);
}

/** A bool's list: an array of clauses, or one clause object, as Elasticsearch takes both. */
function items(value: unknown, path: string): [unknown, string][] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map((v, i): [unknown, string] => [v, `${path}[${i}]`]) : [[value, path]];
}

function bool(body: unknown, path: string, out: Gathered, mode: Mode): void {
  if (mode === 'must_not')
    throw invalidRequest(
      `${path}: a bool inside must_not is not supported: the filters cannot negate a group of conditions, only the single clauses listed for must_not.`,
    );
  const b = options(body, path, ['must', 'filter', 'must_not', 'should', 'minimum_should_match']);
  for (const key of ['must', 'filter'] as const) for (const [q, p] of items(b[key], `${path}.${key}`)) clause(q, p, out, 'must');
  for (const [q, p] of items(b.must_not, `${path}.must_not`)) clause(q, p, out, 'must_not');
  const should = items(b.should, `${path}.should`);
  const msm = b.minimum_should_match;
  if (msm !== undefined && (should.length === 0 || (msm !== 1 && msm !== '1'))) {
    throw invalidRequest(`${path}.minimum_should_match: only 1 is supported, with should clauses (at least one of them must match).`);
  }
  if (should.length > 0) shouldList(should, `${path}.should`, out);
}

/**
 * should: term or match clauses on one list field (locations.country, employment_type); at least one
 * must match, even beside must or filter (spec 4.4), so their values become that list filter.
 */
function shouldList(clauses: [unknown, string][], path: string, out: Gathered): void {
  let first: { name: string; field: EsDslField } | undefined;
  const values: string[] = [];
  const shouldFields = Object.keys(ES_DSL_FIELDS).filter((n) => ES_DSL_FIELDS[n]!.should);
  const onlyOn = `${shouldFields.slice(0, -1).join(', ')} or ${shouldFields.at(-1)}`;
  for (const [q, p] of clauses) {
    const [kind, body] = isObject(q) && Object.keys(q).length === 1 ? Object.entries(q)[0]! : [undefined, undefined];
    if (kind !== 'term' && kind !== 'match') throw invalidRequest(`${p}: should takes only term or match clauses on ${onlyOn}.`);
    const [name, spec, fp] = onlyField(body, `${p}.${kind}`);
    const field = Object.hasOwn(ES_DSL_FIELDS, name) ? ES_DSL_FIELDS[name] : undefined;
    if (!field?.should) throw invalidRequest(`${fp}: should is supported only on ${onlyOn}.`);
    if (first && first.name !== name)
      throw invalidRequest(`${fp}: every should clause must be on the same field (${first.name} at ${path}[0]).`);
    first = { name, field };
    values.push(...keywords(field, [single(spec, fp, kind === 'term' ? 'value' : 'query')], fp));
  }
  out.anyOf(first!.field.filter!, values, path);
}

/** The value of a term or match on a keyword field: the short form, or the long one with value/query. */
const single = (spec: unknown, path: string, key: 'value' | 'query') => (isObject(spec) ? options(spec, path, [key])[key] : spec);

function keywords(field: EsDslField, raw: unknown[], path: string): string[] {
  return raw.map((v) => {
    if (typeof v !== 'string' || !field.check!.ok(v)) throw invalidRequest(`${path}: ${show(v)} is not ${field.check!.says}.`);
    return field.check!.normalize ? field.check!.normalize(v) : v;
  });
}

/** term, terms and match on the keyword fields: one value, a list, or a flag. */
function keywordFilter(field: EsDslField, name: string, raw: unknown[], path: string, out: Gathered, mode: Mode): void {
  if (field.kind === 'flag') {
    const flag =
      raw.length === 1 && (typeof raw[0] === 'boolean' ? raw[0] : raw[0] === 'true' ? true : raw[0] === 'false' ? false : undefined);
    if (typeof flag !== 'boolean') throw invalidRequest(`${path}: ${name} takes one value, true or false.`);
    return out.one(field.filter!, mode === 'must' ? flag : !flag, path);
  }
  const values = keywords(field, raw, path);
  if (field.kind === 'allOf') {
    if (mode === 'must_not') throw invalidRequest(`${path}: must_not is not supported on ${name}.`);
    // terms means any of its values, which an all-of filter cannot say unless it holds one.
    if (new Set(values).size !== 1)
      throw invalidRequest(`${path}: ${name} takes one value per clause; AND-ed term clauses ask for every one.`);
    return out.allOf(field.filter!, values, path);
  }
  if (field.kind === 'anyOf') {
    if (mode === 'must') return out.anyOf(field.filter!, values, path);
    // Only a field with a known, closed set of values (and one value per job) can be negated exactly.
    if (!field.closed) throw invalidRequest(`${path}: must_not is not supported on ${name}.`);
    const rest = field.closed.filter((v) => !values.includes(v));
    if (rest.length === 0) throw invalidRequest(`${path}: must_not leaves no ${name} value to match.`);
    return out.anyOf(field.filter!, rest, path);
  }
  if (mode === 'must_not') throw invalidRequest(`${path}: must_not is not supported on ${name}.`);
  if (new Set(values).size !== 1) throw invalidRequest(`${path}: ${name} takes one value.`);
  out.one(field.filter!, values[0]!, path);
}

function termsClause(body: unknown, path: string, out: Gathered, mode: Mode): void {
  const names = isObject(body) ? Object.keys(body).filter((k) => k !== 'boost' && k !== '_name') : [];
  if (names.length !== 1) throw invalidRequest(`${path} must name exactly one field.`);
  options(body, path, names);
  const name = names[0]!;
  const raw = (body as Json)[name];
  const fp = `${path}.${name}`;
  if (!Array.isArray(raw) || raw.length === 0) throw invalidRequest(`${fp} must be a non-empty array of values.`);
  keywordFilter(fieldFor(name, fp, 'terms'), name, raw, fp, out, mode);
}

function textQuery(body: unknown, path: string, extra: readonly string[]): { query: string; o: Json } {
  const o = isObject(body) ? options(body, path, ['query', ...extra]) : { query: body };
  if (typeof o.query !== 'string' || !text.ok(o.query) || o.query.trim() === '')
    throw invalidRequest(`${path}: the query must be a text of 1 to 200 characters.`);
  return { query: o.query, o };
}

function addText(field: EsDslField, node: TextNode, path: string, out: Gathered, mode: Mode): void {
  out.text(field.filter!, mode === 'must' ? node : { kind: 'not', arg: node }, path);
}

/** match on title or description: each blank-separated word one operand, OR-ed (or AND-ed with operator "and"). */
function matchClause(body: unknown, path: string, out: Gathered, mode: Mode): void {
  const [name, spec, fp] = onlyField(body, path);
  const field = fieldFor(name, fp, 'match');
  if (field.kind !== 'text') return keywordFilter(field, name, [single(spec, fp, 'query')], fp, out, mode);
  const { query, o } = textQuery(spec, fp, ['operator']);
  const operator = o.operator === undefined ? 'or' : typeof o.operator === 'string' ? o.operator.toLowerCase() : '';
  if (operator !== 'or' && operator !== 'and') throw invalidRequest(`${fp}.operator must be "or" or "and".`);
  const words = query
    .split(/\s+/u)
    .filter((w) => w !== '')
    .map((w): TextNode => ({ kind: 'word', text: w, prefix: false }));
  addText(field, group(operator, words), fp, out, mode);
}

/** match_phrase: the words in order (title: the title filter once, then quoted phrases); contains for names. */
function matchPhraseClause(body: unknown, path: string, out: Gathered, mode: Mode): void {
  const [name, spec, fp] = onlyField(body, path);
  const field = fieldFor(name, fp, 'match_phrase');
  const { query, o } = textQuery(spec, fp, ['slop']);
  if (o.slop !== undefined && o.slop !== 0)
    throw invalidRequest(`${fp}.slop: only 0 is supported (the words next to each other, in order).`);
  if (field.kind === 'contains') {
    if (mode === 'must_not') throw invalidRequest(`${fp}: must_not is not supported on ${name}.`);
    return out.one(field.filter!, query, fp);
  }
  if (field.phrase && mode === 'must' && !out.has(field.phrase)) return out.one(field.phrase, query, fp);
  addText(field, { kind: 'phrase', text: query }, fp, out, mode);
}

/**
 * query_string / simple_query_string on fields ["title"] or ["description"]: a Boolean text search. On
 * both fields only a single word or quoted phrase is exact: it is q (in the title or the description).
 */
function queryTextClause(simple: boolean): Handler {
  return (body, path, out, mode) => {
    const o = options(body, path, ['query', 'fields', 'default_operator', ...(simple ? [] : ['default_field'])]);
    const { query } = textQuery(o.query, `${path}.query`, []);
    const fields = o.fields ?? (o.default_field === undefined ? undefined : [o.default_field]);
    const names = Array.isArray(fields) ? [...new Set(fields)].sort() : [];
    const okFields = names.length > 0 && names.every((n) => n === 'title' || n === 'description');
    if (!okFields)
      throw invalidRequest(
        `${path}.fields must be ["title"], ["description"] or ["title", "description"]; other and all fields are not supported.`,
      );
    const op = o.default_operator === undefined ? 'or' : typeof o.default_operator === 'string' ? o.default_operator.toLowerCase() : '';
    if (op !== 'or' && op !== 'and') throw invalidRequest(`${path}.default_operator must be OR or AND.`);
    const node = simple
      ? new SimpleQueryParser(query, op === 'and', `${path}.query`).parse()
      : parseQueryString(query, op === 'and', `${path}.query`);
    if (names.length === 1) return addText(ES_DSL_FIELDS[names[0] as string]!, node, path, out, mode);
    const oneTerm = (node.kind === 'word' && !node.prefix) || node.kind === 'phrase';
    if (!oneTerm || mode === 'must_not')
      throw invalidRequest(`${path}: on both title and description only one word or one quoted phrase (as q), not negated, is supported.`);
    out.one('q', node.text, path);
  };
}

/** range on a date (gt read as gte, lt as lte; a plain date is the start or end of that UTC day) or on pay. */
function rangeClause(body: unknown, path: string, out: Gathered, mode: Mode): void {
  const [name, spec, fp] = onlyField(body, path);
  const field = fieldFor(name, fp, 'range');
  if (mode === 'must_not') throw invalidRequest(`${fp}: must_not range is not supported.`);
  const o = options(spec, fp, ['gte', 'gt', 'lte', 'lt']);
  for (const [a, b] of [
    ['gte', 'gt'],
    ['lte', 'lt'],
  ])
    if (o[a!] !== undefined && o[b!] !== undefined) throw invalidRequest(`${fp}: send ${a} or ${b}, not both.`);
  const bounds = (['gte', 'gt', 'lte', 'lt'] as const).filter((k) => o[k] !== undefined);
  if (bounds.length === 0) throw invalidRequest(`${fp}: a range needs gte, gt, lte or lt.`);
  for (const key of bounds) {
    const edge = key.startsWith('g') ? 'lower' : 'upper';
    const value = o[key];
    if (field.kind === 'date') {
      const at = typeof value === 'string' ? parseDateBound(value, edge === 'lower' ? 'start' : 'end') : undefined;
      if (!at)
        throw invalidRequest(
          `${fp}.${key} must be a date (YYYY-MM-DD) or an RFC 3339 date-time with a zone; date math such as now-7d is not supported.`,
        );
      out.bound(edge === 'lower' ? field.since! : field.until!, edge === 'lower' ? 'max' : 'min', at.getTime(), value as string, fp);
    } else if (field.kind === 'count') {
      countBound(field, name, key, value, fp, out);
    } else {
      const side = field.bound === 'lower' ? 'gte or gt' : 'lte or lt';
      if (edge !== field.bound)
        throw invalidRequest(
          `${fp}.${key}: ${name} takes only ${side} (${field.filter}: the yearly pay ${field.bound === 'lower' ? 'floor is at least' : 'ceiling is at most'} it).`,
        );
      const ok = typeof value === 'number' && value >= 0 && value <= 1e9 && Math.round(value * 100) === value * 100;
      if (!ok) throw invalidRequest(`${fp}.${key} must be a number from 0 to 1000000000 with at most two decimals.`);
      out.bound(field.filter!, edge === 'lower' ? 'max' : 'min', value, value, fp);
    }
  }
}

/** One bound of a whole-number range (days, times): gt and lt move it by one. */
function countBound(field: EsDslField, name: string, key: 'gte' | 'gt' | 'lte' | 'lt', value: unknown, fp: string, out: Gathered): void {
  const lower = key.startsWith('g');
  const filter = lower ? field.since : field.until;
  if (!filter) throw invalidRequest(`${fp}.${key}: ${name} takes only ${lower ? 'lte or lt' : 'gte or gt'}.`);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 100_000)
    throw invalidRequest(`${fp}.${key} must be a whole number from 0 to 100000.`);
  const bound = key === 'gt' ? value + 1 : key === 'lt' ? value - 1 : value;
  if (bound < 0) throw invalidRequest(`${fp}.lt: no ${name} is below 0.`);
  out.bound(filter, lower ? 'max' : 'min', bound, bound, fp);
}

function existsClause(body: unknown, path: string, out: Gathered, mode: Mode): void {
  const o = options(body, path, ['field']);
  if (typeof o.field !== 'string') throw invalidRequest(`${path}.field must be a field name.`);
  const field = fieldFor(o.field, `${path}.field`, 'exists');
  out.one(field.exists!, mode === 'must', path);
}

const HANDLERS: Record<Clause, Handler> = {
  match_all: (body, path, _out, mode) => {
    options(body, path, []);
    if (mode === 'must_not') throw invalidRequest(`${path}: must_not match_all would match no job.`);
  },
  bool,
  term: (body, path, out, mode) => {
    const [name, spec, fp] = onlyField(body, path);
    keywordFilter(fieldFor(name, fp, 'term'), name, [single(spec, fp, 'value')], fp, out, mode);
  },
  terms: termsClause,
  match: matchClause,
  match_phrase: matchPhraseClause,
  range: rangeClause,
  exists: existsClause,
  query_string: queryTextClause(false),
  simple_query_string: queryTextClause(true),
};

const BODY_KEYS = ['query', ...LIST_OPTIONS] as readonly string[];

/**
 * The POST /v1/jobs/search body asking the same question as an es_dsl body: the filters of its query
 * and the listing options (limit, cursor, sort, fields, include, description_format) as sent. Throws 400
 * invalid_request naming the clause or key that cannot be translated exactly.
 */
export function translateEsDsl(body: unknown): Record<string, unknown> {
  if (!isObject(body)) throw invalidRequest('The body must be a JSON object with a query.');
  const unknown = Object.keys(body).filter((k) => !BODY_KEYS.includes(k));
  if (unknown.length > 0) throw invalidRequest(`Unknown key ${show(unknown[0])}; the body takes ${BODY_KEYS.join(', ')}.`);
  if (body.query === undefined) throw invalidRequest('query is required: an object holding one clause, such as {"match_all": {}}.');
  const out = new Gathered();
  clause(body.query, 'query', out, 'must');
  const listOptions = Object.entries(body).filter(([k, v]) => k !== 'query' && v !== undefined);
  return { ...out.body(), ...Object.fromEntries(listOptions) };
}
