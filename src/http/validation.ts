// Request validation against openapi.yaml (the single source of parameter and body rules): the known
// route (404, 405 with Allow) before the body is read, then the validator, its findings said in words.

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { ApiError, invalidRequest } from '../errors.js';
import { hasAtMostTwoDecimals } from '../metering/money.js';
import { isDateOrDateTime } from '../query/dates.js';
import { nearestRoute, routesUnder } from './did-you-mean.js';
import { allowedMethods, contract, deref, operationOf, operations, operationsAt, type Node, type Operation } from '../shared/contract.js';
import { remembering } from './validation-verdicts.js';
import { inWords, type ValidatorError } from './validation-words.js';

export { OPENAPI_FILE } from '../shared/contract.js';

/**
 * The spec the validator is given. Ajv checks `multipleOf: 0.01` by floating-point division and so
 * rejects amounts such as 0.07 (0.07 / 0.01 = 7.000000000000001), and the validator passes no precision
 * option through: the contract keeps the standard keyword; this copy swaps it for the `cents` format
 * below, which checks the same rule exactly (docs/adr/0001-foundation.md). And a HEAD is validated as the
 * GET of its path: every GET gets a HEAD twin here.
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
  const spec = swap(contract()) as Node;
  for (const item of Object.values(spec.paths as Record<string, Node>)) {
    if (!item.get || item.head) continue;
    const { operationId: _, ...get } = item.get as Node;
    item.head = get;
  }
  return spec;
}

export type NumberKind = 'integer' | 'number';

const NONE: ReadonlyMap<string, NumberKind> = new Map();
/** Each operation's numeric query parameters, found once: resolving their schemas took 1 % of a request. */
const numericOf = new WeakMap<Operation, ReadonlyMap<string, NumberKind>>();

/** The integer and number query parameters of the operation `method path` (empty for an unknown route). */
export function numericQueryParametersOf(method: string, path: string): ReadonlyMap<string, NumberKind> {
  const operation = operationOf(method, path);
  if (!operation) return NONE;
  let numeric = numericOf.get(operation);
  if (!numeric) {
    const found = new Map<string, NumberKind>();
    for (const [name, param] of operation.parameters) {
      const type = deref(param.schema).type;
      if (param.in === 'query' && (type === 'integer' || type === 'number')) found.set(name, type);
    }
    numericOf.set(operation, (numeric = found));
  }
  return numeric;
}

/** "No route has the path /v1/job; did you mean /v1/jobs?" */
function routeNotFound(path: string): ApiError {
  const templates = operations().map((o) => o.template);
  const shown = path.length > 100 ? `${path.slice(0, 100)}…` : path;
  const meant = nearestRoute(path, templates);
  const under = routesUnder(path, templates);
  const hint = meant
    ? `; did you mean ${meant}?`
    : under.length > 0
      ? `; the routes under it are ${under.join(', ')}.`
      : '; the routes are listed in openapi.yaml.';
  return new ApiError('route_not_found', `No route has the path ${shown}${hint}`);
}

/**
 * 404 for a path openapi.yaml does not have, 405 (with Allow) for a method it does not have on that path:
 * before the body is read, so a request to no route is never answered about its body.
 */
export function knownRoute() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const matching = operationsAt(req.path);
    if (matching.length === 0) throw routeNotFound(req.path);
    if (!operationOf(req.method, req.path)) {
      const allow = allowedMethods(req.path).join(', ');
      throw new ApiError('method_not_allowed', `${req.method} is not accepted on ${matching[0]!.template}: it accepts ${allow}.`, {
        headers: { Allow: allow },
      });
    }
    next();
  };
}

export function isValidatorError(error: unknown): error is ValidatorError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { status?: unknown }).status === 'number' &&
    Array.isArray((error as { errors?: unknown }).errors)
  );
}

/** The validator's 400 as the catalogue's invalid_request, in words naming each parameter (validation-words.ts). */
export function validatorErrorsInWords(error: unknown, req: Request, _res: Response, next: NextFunction): void {
  if (isValidatorError(error) && error.status === 400) return next(invalidRequest(inWords(error, req)));
  next(error);
}

let validation: RequestHandler | undefined;

/**
 * The contract's validator, made once per process and shared by every app it starts (tests start about a
 * hundred): bundling the spec's references and compiling its schemas costs 150 ms of CPU, and each route's
 * validator is compiled at its first request. Nothing in it belongs to one app: the path parameters it
 * would set are the ones the routes stage sets after it (routes.ts; no type coercion).
 */
export function openApiValidation(): RequestHandler {
  validation ??= remembering(
    OpenApiValidator.middleware({
      apiSpec: specForValidation() as never,
      // The contract ships with the code and is checked where it changes (npm run lint:contract, Redocly, in
      // every test run); checking it against the OpenAPI schema again took 155 ms of CPU at every start.
      validateApiSpec: false,
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: false },
      validateResponses: false,
      validateSecurity: false,
      formats: {
        'date-or-date-time': { type: 'string', validate: isDateOrDateTime },
        cents: { type: 'number', validate: hasAtMostTwoDecimals },
      },
      ignorePaths: /^\/(healthz|mcp)(\/|$)/,
      // The path as the UUID case stage left it (uuid-case.ts), not as it arrived.
      useRequestUrl: true,
    }) as RequestHandler[],
  );
  return validation;
}

/** One sentence for each offending parameter or property (without the request: what the findings say). */
export function validationMessage(error: ValidatorError): string {
  return inWords(error);
}
