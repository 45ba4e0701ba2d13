// The errors of a refused request (spec 8): admission refused (429 rate_limited), or a response the
// month cannot take (429 data_limit_exceeded). Shared by the HTTP routes and the MCP tools.

import { ApiError, retryAfter } from '../errors.js';
import type { Refusal, Ticket } from './meter.js';
import { DAILY_FREE_UNITS } from './prices.js';

/** Retry-After: from the request's time until `until`. */
const retryUntil = (until: Date, at: Date) => retryAfter(until.getTime() - at.getTime());

export function refused(refusal: Refusal, ticket: Ticket): ApiError {
  const { standing, at } = ticket;
  switch (refusal) {
    case 'window':
      return new ApiError(
        'rate_limited',
        `The request window of ${standing.windowLimit} requests per 60 seconds is used up; retry after the seconds in Retry-After.`,
        {
          headers: retryUntil(standing.windowReset, at),
        },
      );
    case 'requests':
      return new ApiError(
        'rate_limited',
        'The monthly API request allowance has been reached; it renews on the first day of next month (UTC).',
        {
          headers: retryUntil(standing.monthEnd, at),
        },
      );
    case 'daily': {
      const tomorrow = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
      return new ApiError(
        'rate_limited',
        `This API key has used its ${DAILY_FREE_UNITS} free requests of the day (UTC); add a prepaid balance or turn overage on to continue.`,
        {
          headers: retryUntil(tomorrow, at),
        },
      );
    }
  }
}

/** A response of `records` records that the month (or the overage limit, or the day's paid units) cannot take. */
export function dataLimitExceeded(ticket: Ticket, records: number): ApiError {
  const message =
    ticket.standing.model === 'records'
      ? `This response holds ${records} records, more than the records allowance${ticket.caller.account.overage_enabled ? ' and the overage limit' : ''} leave this month; nothing was charged.`
      : 'This request is past the free requests of the day, and neither the prepaid balance nor overage (within its limit) can pay for it; nothing was charged.';
  return new ApiError('data_limit_exceeded', message, {
    headers: retryUntil(ticket.standing.monthEnd, ticket.at),
  });
}
