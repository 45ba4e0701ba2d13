// Request validation against openapi.yaml (the single source of parameter and body rules).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { NextFunction, Request, Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { ApiError } from '../errors.js';
import { parse } from 'yaml';
import { hasAtMostTwoDecimals } from '../metering/money.js';
import { isDateOrDateTime } from '../query/dates.js';

export const OPENAPI_FILE = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

/**
 * Ajv checks `multipleOf: 0.01` by floating-point division and so rejects amounts such as 0.07
 * (0.07 / 0.01 = 7.000000000000001), and the validator passes no precision option through.
 * The contract keeps the standard keyword; the copy used for validation swaps it for the
 * `cents` format below, which checks the same rule exactly (docs/adr/0001-foundation.md).
 */
function specForValidation(): object {
  const swap = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(swap);
    if (typeof node !== 'object' || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'multipleOf' && value === 0.01) out.format = 'cents';
      else out[key] = swap(value);
    }
    return out;
  };
  return swap(contract()) as object;
}

let parsed: Record<string, unknown> | undefined;
function contract(): Record<string, unknown> {
  parsed ??= parse(readFileSync(OPENAPI_FILE, 'utf8')) as Record<string, unknown>;
  return structuredClone(parsed);
}

type Node = Record<string, unknown>;
export type NumberKind = 'integer' | 'number';

interface Operation {
  method: string;
  path: RegExp;
  literal: boolean;
  /** Its query parameters declared as integer or number. */
  numeric: Map<string, NumberKind>;
}

let operationList: Operation[] | undefined;

/** Every operation of openapi.yaml, literal paths (/v1/jobs/count) before templates that also match them (/v1/jobs/{jobId}). */
function operations(): Operation[] {
  if (operationList) return operationList;
  const spec = contract();
  const resolve = (node: Node): Node => {
    if (typeof node.$ref !== 'string') return node;
    let at: unknown = spec;
    for (const part of node.$ref.replace(/^#\//, '').split('/')) at = (at as Node)[part];
    return resolve(at as Node);
  };
  operationList = [];
  for (const [template, item] of Object.entries(spec.paths as Record<string, Node>)) {
    for (const [method, operation] of Object.entries(item)) {
      const numeric = new Map<string, NumberKind>();
      for (const raw of ((operation as Node).parameters ?? []) as Node[]) {
        const param = resolve(raw);
        const type = resolve((param.schema ?? {}) as Node).type;
        if (param.in === 'query' && (type === 'integer' || type === 'number')) numeric.set(param.name as string, type);
      }
      // Express routes ignore case and a trailing slash: so does this match.
      const path = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i');
      operationList.push({ method: method.toUpperCase(), path, literal: !template.includes('{'), numeric });
    }
  }
  operationList.sort((a, b) => Number(b.literal) - Number(a.literal));
  return operationList;
}

/** The integer and number query parameters of the operation `method path` (empty for an unknown route). */
export function numericQueryParametersOf(method: string, path: string): ReadonlyMap<string, NumberKind> {
  return operations().find((o) => o.method === method && o.path.test(path))?.numeric ?? new Map();
}

/**
 * 404 for a path openapi.yaml does not have, 405 for a method it does not have on that path: before the
 * body is read, so a request to no route is never answered about its body.
 */
export function knownRoute() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const all = operations().filter((o) => o.path.test(req.path));
    // A literal path is matched before templates (OpenAPI): GET /v1/jobs/search is not GET /v1/jobs/{jobId}.
    const matching = all.some((o) => o.literal) ? all.filter((o) => o.literal) : all;
    if (matching.length === 0) throw new ApiError('route_not_found');
    if (!matching.some((o) => o.method === method)) throw new ApiError('method_not_allowed');
    next();
  };
}

export function openApiValidation() {
  return OpenApiValidator.middleware({
    apiSpec: specForValidation() as never,
    validateApiSpec: true,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: false },
    validateResponses: false,
    validateSecurity: false,
    formats: {
      'date-or-date-time': { type: 'string', validate: isDateOrDateTime },
      cents: { type: 'number', validate: hasAtMostTwoDecimals },
    },
    ignorePaths: /^\/(healthz|mcp)(\/|$)/,
  });
}

interface ValidatorError {
  status: number;
  errors?: { path?: string; message?: string; errorCode?: string }[];
  message?: string;
}

export function isValidatorError(error: unknown): error is ValidatorError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { status?: unknown }).status === 'number' &&
    Array.isArray((error as { errors?: unknown }).errors)
  );
}

const WHERE: Record<string, string> = { query: 'query parameter', body: 'body property', params: 'path parameter', headers: 'header' };

const JOB_FIELDS = 'job_id, currentness, stale, company_id, employer_name, title, description, work_arrangement, locations, job_first_seen_at, curated_at, job_updated_at, postings, company';

/** What a list parameter's pattern means, said in words instead of the regular expression. */
const PATTERN_RULES: Record<string, string> = {
  fields: `must be a comma list of job property names (${JOB_FIELDS})`,
  country: 'must be up to 10 two-letter ISO country codes, comma-separated',
  currentness: 'must be a comma list of current, uncertain, not_current',
  employment_type: 'must be up to 10 comma-separated values',
  exclude_source: 'must be a comma list of up to 10 sources or source types',
  pay_currency: 'must be a three-letter ISO 4217 currency code',
  types: 'must be a comma list of created, updated, expired',
  include: 'must be a comma list of company and/or source_data',
};

/** What a property's rule means in words, for any way a value breaks it (the validator would say "must be >= 0.01"). */
const VALUE_RULES: Record<string, string> = {
  monthlyLimitUsd: 'must be an amount in US dollars from 0.01 to 100000 with at most two decimals, e.g. 250 or 49.99 (or null to clear the limit)',
};

/** "/query/limit" + "must be <= 1000" → "query parameter 'limit' must be <= 1000". */
function describe(path: string | undefined, message: string): string {
  const parts = (path ?? '').replace(/^[./]/, '').split(/[./]/).filter(Boolean);
  const [location, ...rest] = parts;
  if (!location || !WHERE[location]) return message;
  // The one `not` of the request schemas: an export body with limit or cursor.
  if (rest.length === 0 && location === 'body' && message === 'must NOT be valid') return 'the request body must not have limit or cursor: an export is not paged (cap it with max_records)';
  if (rest.length === 0) return location === 'body' ? `the request body ${message}` : message;
  // A repeated query parameter is validated item by item (fields.0): name the parameter.
  const name = (location === 'query' ? rest.filter((part) => !/^\d+$/.test(part)) : rest).join('.');
  const rule =
    VALUE_RULES[name] ??
    (/^must (match pattern|be equal to one of the allowed values)/.test(message) ? PATTERN_RULES[name] : undefined) ??
    (message === 'must match format "cents"' ? 'must be an amount with at most two decimals, e.g. 49.99' : undefined);
  return `${WHERE[location]} '${name}' ${rule ?? message}`;
}

/** One sentence naming every offending parameter or property. */
export function validationMessage(error: ValidatorError): string {
  const details = (error.errors ?? []).map((e) => {
    const message = (e.message ?? 'is invalid').replace(/^should /, 'must ');
    return /^unknown query parameter/i.test(message) ? message : describe(e.path, message);
  });
  const unique = [...new Set(details)];
  return unique.length > 0 ? `${unique.join('; ')}.` : error.message ?? 'The request is invalid.';
}
