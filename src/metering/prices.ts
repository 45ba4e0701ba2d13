// The price rule, declared once: the route classes of the ledger, the request units of an answer and
// the unit price of each class (requests model, spec 8.4). Admission and settlement pass these to the
// store functions (meter.ts); MCP's cost preview (mcp/spend.ts) reads the same.

/** Route classes of the ledger (openapi.yaml RouteClass). */
export const ROUTE_CLASSES = [
  'jobs_list',
  'jobs_search',
  'jobs_count',
  'jobs_get',
  'jobs_changes',
  'exports',
  'companies',
  'account',
  'usage',
  'other',
] as const;
export type RouteClass = (typeof ROUTE_CLASSES)[number];

/** Requests model (spec 8.4): free request units per API key and UTC day. */
export const DAILY_FREE_UNITS = 10_000;

/**
 * Requests model: the price of one paid request unit in micro-USD, before volume discounts ($0.20 per
 * 1,000 keyword searches, $0.02 per 1,000 filtered lists and counts); 0 for the account's own settings,
 * which are never paid for.
 */
export function unitMicros(routeClass: RouteClass): number {
  if (routeClass === 'account') return 0;
  return routeClass === 'jobs_search' ? 200 : 20;
}

/**
 * Requests model (spec 8.4): the request units of an answer of `records` records, one per 100 (at least
 * one); getting one job never counts.
 */
export function requestUnits(routeClass: RouteClass, records: number): number {
  return routeClass === 'jobs_get' ? 0 : Math.max(1, Math.ceil(records / 100));
}

/** Requests model: the least a request of `routeClass` can cost (its smallest answer's units), which admission asks to be payable. */
export const leastMicros = (routeClass: RouteClass) => requestUnits(routeClass, 0) * unitMicros(routeClass);
