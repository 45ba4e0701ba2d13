// Request validation against openapi.yaml (the single source of parameter and body rules).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as OpenApiValidator from 'express-openapi-validator';
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
  return swap(parse(readFileSync(OPENAPI_FILE, 'utf8'))) as object;
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
  const rule = /^must (match pattern|be equal to one of the allowed values)/.test(message) ? PATTERN_RULES[name] : undefined;
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
