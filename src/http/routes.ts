// The one table of the API's routes (spec 4.1): each route's method and path, its handler, and its
// class: what the ledger records and what the requests model prices (spec 8.4). Where the price depends
// on the request (a keyword search costs more than a filtered list), the class is read from it. Admission
// classes a request from this table before any work and settlement charges the class admission decided,
// so a request is priced once. Static /v1/jobs/* paths come before /v1/jobs/:jobId.

import type { Request, RequestHandler } from 'express';
import type { AppContext } from '../context.js';
import type { RequestInfo } from '../metering/meter.js';
import type { RouteClass } from '../metering/prices.js';
import { isKeywordInput } from '../jobs/filters.js';
import { translateEsDsl } from '../jobs/es-dsl.js';
import { accountHandlers } from './handlers/account.js';
import { changesHandlers } from './handlers/changes.js';
import { exportHandlers } from './handlers/exports.js';
import { jobHandlers } from './handlers/jobs.js';
import { companyHandlers } from './handlers/companies.js';
import { usageHandlers } from './handlers/usage.js';

interface Handlers {
  account: ReturnType<typeof accountHandlers>;
  jobs: ReturnType<typeof jobHandlers>;
  companies: ReturnType<typeof companyHandlers>;
  changes: ReturnType<typeof changesHandlers>;
  exports: ReturnType<typeof exportHandlers>;
  usage: ReturnType<typeof usageHandlers>;
}

interface Route {
  method: 'GET' | 'POST' | 'PUT';
  /** As Express matches it (/v1/jobs/:jobId). */
  path: string;
  /** The ledger's class and the price's, or how to read it from the request (its query and JSON body). */
  routeClass: RouteClass | ((req: Request) => RouteClass);
  handler: (h: Handlers) => RequestHandler;
}

/**
 * A list of jobs priced as a keyword search when its filters hold a full-text filter. Filters that do not
 * read are answered 400, which is never paid: they take `otherwise`.
 */
const listOrSearch =
  (input: (req: Request) => Record<string, unknown>, from: 'query' | 'body', otherwise: RouteClass = 'jobs_list') =>
  (req: Request): RouteClass => {
    try {
      return isKeywordInput(input(req), from) ? 'jobs_search' : 'jobs_list';
    } catch {
      return otherwise;
    }
  };

const query = (req: Request) => req.query as Record<string, unknown>;
const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/v1/jobs', routeClass: listOrSearch(query, 'query'), handler: (h) => h.jobs.list },
  { method: 'POST', path: '/v1/jobs/search', routeClass: listOrSearch(body, 'body'), handler: (h) => h.jobs.search },
  {
    method: 'POST',
    path: '/v1/jobs/search/es_dsl',
    routeClass: listOrSearch((req) => translateEsDsl(req.body), 'body', 'jobs_search'),
    handler: (h) => h.jobs.esDsl,
  },
  { method: 'GET', path: '/v1/jobs/count', routeClass: 'jobs_count', handler: (h) => h.jobs.count },
  // The counts of count at each day or week: priced as one count, free of records (spec 8.2 rule 4).
  { method: 'GET', path: '/v1/jobs/trends', routeClass: 'jobs_count', handler: (h) => h.jobs.trends },
  { method: 'GET', path: '/v1/jobs/changes', routeClass: 'jobs_changes', handler: (h) => h.changes.list },
  { method: 'POST', path: '/v1/jobs/exports', routeClass: 'exports', handler: (h) => h.exports.create },
  { method: 'GET', path: '/v1/jobs/exports', routeClass: 'exports', handler: (h) => h.exports.list },
  { method: 'GET', path: '/v1/jobs/exports/:exportId', routeClass: 'exports', handler: (h) => h.exports.one },
  { method: 'GET', path: '/v1/jobs/exports/:exportId/files/:n', routeClass: 'exports', handler: (h) => h.exports.file },
  { method: 'GET', path: '/v1/jobs/:jobId', routeClass: 'jobs_get', handler: (h) => h.jobs.one },
  { method: 'GET', path: '/v1/companies', routeClass: 'companies', handler: (h) => h.companies.list },
  { method: 'POST', path: '/v1/companies/search', routeClass: 'companies', handler: (h) => h.companies.search },
  { method: 'GET', path: '/v1/companies/:companyId', routeClass: 'companies', handler: (h) => h.companies.one },
  // GET /v1/jobs with company_id set by the path: priced as that list.
  { method: 'GET', path: '/v1/companies/:companyId/jobs', routeClass: listOrSearch(query, 'query'), handler: (h) => h.jobs.companyJobs },
  { method: 'GET', path: '/v1/account', routeClass: 'account', handler: (h) => h.account.get },
  { method: 'PUT', path: '/v1/account/overage', routeClass: 'account', handler: (h) => h.account.putOverage },
  { method: 'GET', path: '/v1/usage/requests', routeClass: 'usage', handler: (h) => h.usage.requests },
  { method: 'GET', path: '/v1/usage/analytics', routeClass: 'usage', handler: (h) => h.usage.analytics },
];

/** A route's path as Express matches it (and the known route, contract.ts): any case, a trailing slash allowed; its parameters by name. */
const routePattern = (path: string) => new RegExp(`^${path.replace(/:([A-Za-z]+)/g, '(?<$1>[^/]+)')}/?$`, 'i');

const matchers = ROUTES.map((route) => ({
  route,
  pattern: routePattern(route.path),
  template: route.path.replace(/:([A-Za-z]+)/g, '{$1}'),
}));

type Found = (typeof matchers)[number] & { params: Record<string, string> };

/**
 * Each request's route as found for its path: the body stage, admission and the routes stage all ask,
 * and the UUID case stage may rewrite the path between them (its parameters lower-cased): then it is found again.
 */
const foundFor = new WeakMap<Request, { path: string; route: Found | undefined }>();

/** The route of the request's method and path (GET's for a HEAD), if the API has one, with its path parameters as matched. */
function routeOf(req: Request): Found | undefined {
  const path = req.path;
  const seen = foundFor.get(req);
  if (seen?.path === path) return seen.route;
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  let route: Found | undefined;
  for (const matcher of matchers) {
    const found = matcher.route.method === method ? matcher.pattern.exec(path) : null;
    if (found) {
      route = { ...matcher, params: found.groups ?? {} };
      break;
    }
  }
  foundFor.set(req, { path, route });
  return route;
}

/** Whether the API has a route for the request's method and path. */
export const isRoute = (req: Request): boolean => routeOf(req) !== undefined;

/**
 * A request's route template and class, from the route of its method and path (or of its path alone, for
 * a method the path does not take: 405); an unknown path keeps its own path (cut to 200 characters).
 */
export function classify(req: Request): Omit<RequestInfo, 'requestId'> {
  const found = routeOf(req) ?? matchers.find(({ pattern }) => pattern.test(req.path));
  if (!found) return { method: req.method, route: req.path.slice(0, 200), routeClass: 'other', windowed: true };
  const { routeClass } = found.route;
  const classed = typeof routeClass === 'function' ? routeClass(req) : routeClass;
  // Spec 4.10 rule 7: changing the overage setting is not counted against the request windows (it still
  // counts one monthly request, as every call does: spec 8.3 rule 2).
  return { method: req.method, route: found.template, routeClass: classed, windowed: !(classed === 'account' && req.method === 'PUT') };
}

/** A path parameter decoded as Express decodes it: a malformed escape is a 400. */
function decoded(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch (error) {
    if (error instanceof URIError) Object.assign(error, { message: `Failed to decode param '${value}'`, status: 400, statusCode: 400 });
    throw error;
  }
}

/**
 * The API's routes as one stage: the first route of the table taking the request's method (GET's for a
 * HEAD) and path answers it, with its path parameters in req.params, as Express's router would route it.
 * A request no route takes goes on (to the 404).
 */
export function routesStage(ctx: AppContext): RequestHandler {
  const handlers: Handlers = {
    account: accountHandlers(ctx),
    jobs: jobHandlers(ctx, ctx.jobs, ctx.companies, ctx.trends),
    companies: companyHandlers(ctx, ctx.companies),
    changes: changesHandlers(ctx),
    exports: exportHandlers(ctx),
    usage: usageHandlers(ctx),
  };
  const handles = new Map(ROUTES.map((route) => [route, route.handler(handlers)]));
  return (req, res, next) => {
    const found = routeOf(req);
    if (!found) return next();
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(found.params)) params[name] = decoded(value);
    req.params = params;
    return handles.get(found.route)!(req, res, next);
  };
}
