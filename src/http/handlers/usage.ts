// The usage routes (spec 4.11, DESIGN.md 5): the account's request ledger, page by page, and daily
// aggregates. Both read the rows still in the state store and the Parquet segments of the ledger.

import { stringify } from 'csv-stringify/sync';
import type { Request, Response } from 'express';
import { invalidRequest } from '../../errors.js';
import { digest } from '../../shared/cursor.js';
import { parseDateTime } from '../../query/dates.js';
import { callerOf } from '../auth.js';
import type { AppContext } from '../../context.js';
import { sendCharged, sendJson } from '../metering.js';
import { requestIdOf } from '../request-id.js';

/** A usage cursor lives 60 minutes from the first page's capture (spec 4.12 rule 4). */
export const USAGE_CURSOR_MS = 60 * 60 * 1000;
/** Analytics cover at most this many days per request. */
const MAX_DAYS = 366;

interface UsageCursor {
  k: 'usage';
  /** account, digest of filters and page size */
  a: string;
  b: string;
  /** high-water seq and capture time (ms) of the first page */
  hw: number;
  cap: number;
  /** seq of the last event returned */
  at: number;
}

const single = (query: Record<string, unknown>, name: string): string | undefined => {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') throw invalidRequest(`${name} must be given once.`);
  return value;
};

export function usageHandlers(ctx: AppContext) {
  return {
    requests: (req: Request, res: Response): Promise<void> => requests(ctx, req, res),
    analytics: (req: Request, res: Response): Promise<void> => analytics(ctx, req, res),
  };
}

/** GET /v1/usage/requests (spec 4.11): the account's ledger, newest first, in pages that stay put while it grows. */
async function requests(ctx: AppContext, req: Request, res: Response): Promise<void> {
  const { account } = callerOf(res);
  const query = req.query as Record<string, unknown>;
  const time = (name: string) => {
    const text = single(query, name);
    if (text === undefined) return null;
    const at = parseDateTime(text);
    if (!at) throw invalidRequest(`${name} must be an RFC 3339 date-time with a zone, e.g. 2026-11-20T06:00:00Z.`);
    return at;
  };
  const start = time('start');
  const end = time('end');
  if (start && end && end.getTime() <= start.getTime()) throw invalidRequest('end must be after start.');
  const routeClass = single(query, 'route_class') ?? null;
  const apiKeyId = single(query, 'api_key_id') ?? null;
  const limitText = single(query, 'limit');
  const limit = limitText === undefined ? 50 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalidRequest('limit must be an integer from 1 to 100.');
  const binding = digest(JSON.stringify([start?.toISOString() ?? null, end?.toISOString() ?? null, routeClass, apiKeyId, limit]));

  const now = ctx.clock();
  const cursorText = single(query, 'cursor');
  let position: Pick<UsageCursor, 'hw' | 'cap' | 'at'>;
  if (cursorText === undefined) {
    position = { hw: await ctx.ledger.highWater(), cap: now.getTime(), at: Number.POSITIVE_INFINITY };
  } else {
    const cursor = ctx.cursors.opened<UsageCursor>(cursorText, {
      kind: 'usage',
      noun: 'usage',
      binding,
      resend:
        'cursor was made for other filters or another page size; send the same start, end, route_class, api_key_id and limit as for the first page.',
    });
    if (cursor.a !== account.account_id) throw invalidRequest('cursor belongs to another account.');
    if (now.getTime() - cursor.cap > USAGE_CURSOR_MS)
      throw invalidRequest('cursor has expired: a usage cursor lives 60 minutes from the first page; start again without cursor.');
    position = cursor;
  }

  const events = await ctx.ledger.events(
    {
      accountId: account.account_id,
      start,
      end,
      routeClass,
      apiKeyId,
      highWater: position.hw,
      capturedAt: new Date(position.cap),
      before: position.at,
      exclude: requestIdOf(res),
    },
    limit + 1,
  );
  const page = events.slice(0, limit);
  const more = events.length > limit;
  const next: UsageCursor | null = more
    ? { k: 'usage', a: account.account_id, b: binding, hw: position.hw, cap: position.cap, at: page[page.length - 1]!.seq }
    : null;
  await sendJson(ctx, res, { data: page.map(({ seq: _, ...event }) => event), next_cursor: next ? ctx.cursors.seal(next) : null });
}

/** GET /v1/usage/analytics (spec 4.11): the account's days, grouped as asked, with their totals. */
async function analytics(ctx: AppContext, req: Request, res: Response): Promise<void> {
  const { account } = callerOf(res);
  const query = req.query as Record<string, unknown>;
  const today = ctx.clock().toISOString().slice(0, 10);
  const day = (name: string, fallback: string) => {
    const text = single(query, name) ?? fallback;
    if (
      !/^\d{4}-\d{2}-\d{2}$/.test(text) ||
      Number.isNaN(Date.parse(`${text}T00:00:00Z`)) ||
      new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) !== text
    ) {
      throw invalidRequest(`${name} must be a date YYYY-MM-DD.`);
    }
    return text;
  };
  const first = day('start', `${today.slice(0, 8)}01`);
  const last = day('end', today);
  if (last < first) throw invalidRequest('end must not be before start.');
  if ((Date.parse(last) - Date.parse(first)) / 86_400_000 + 1 > MAX_DAYS)
    throw invalidRequest(`start to end may span at most ${MAX_DAYS} days.`);
  const groupBy = (single(query, 'group_by') ?? null) as 'route_class' | 'api_key_id' | null;
  if (groupBy !== null && groupBy !== 'route_class' && groupBy !== 'api_key_id')
    throw invalidRequest('group_by must be route_class or api_key_id.');
  const data = await ctx.ledger.daily(account.account_id, first, last, groupBy);
  const totals = data.reduce(
    (t, r) => ({
      requests: t.requests + r.requests,
      records: t.records + r.records,
      errors: t.errors + r.errors,
      refused: t.refused + r.refused,
      overage_usd: t.overage_usd + r.overage_usd,
    }),
    { requests: 0, records: 0, errors: 0, refused: 0, overage_usd: 0 },
  );
  totals.overage_usd = Math.round(totals.overage_usd * 1e6) / 1e6;
  res.vary('Accept');
  if (req.accepts(['application/json', 'text/csv']) !== 'text/csv') return sendJson(ctx, res, { data, totals });
  // The rows as a download (openapi.yaml: the text/csv answer of Analytics).
  const columns = [...(groupBy ? ['group'] : []), 'requests', 'records', 'errors', 'refused', 'overage_usd'];
  res.attachment(`usage-analytics-${first}-to-${last}${groupBy ? `-by-${groupBy}` : ''}.csv`);
  await sendCharged(ctx, res, 0, stringify(data, { header: true, columns: ['date', ...columns] }), 'text/csv; charset=utf-8');
}
