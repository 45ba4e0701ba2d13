// The errors of a refused request (spec 8): admission refused (429 rate_limited), or a response the
// month cannot take (429 data_limit_exceeded). Shared by the HTTP routes and the MCP tools.

import { ApiError } from '../errors.js';
import { DAILY_FREE_UNITS, type Refusal, type Ticket } from './meter.js';

/** Retry-After: whole seconds from the request's time until `until`, at least 1. */
export const secondsUntil = (until: Date, at: Date) => String(Math.max(1, Math.ceil((until.getTime() - at.getTime()) / 1000)));

export function refused(refusal: Refusal, ticket: Ticket): ApiError {
  const { standing, at } = ticket;
  const seconds = (until: Date) => secondsUntil(until, at);
  switch (refusal) {
    case 'window':
      return new ApiError('rate_limited', `The request window of ${standing.windowLimit} requests per 60 seconds is used up; retry after the seconds in Retry-After.`, {
        headers: { 'Retry-After': seconds(standing.windowReset) },
      });
    case 'requests':
      return new ApiError('rate_limited', 'The monthly API request allowance has been reached; it renews on the first day of next month (UTC).', {
        headers: { 'Retry-After': seconds(standing.monthEnd) },
      });
    case 'daily': {
      const tomorrow = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
      return new ApiError('rate_limited', `This API key has used its ${DAILY_FREE_UNITS} free requests of the day (UTC); add a prepaid balance or turn overage on to continue.`, {
        headers: { 'Retry-After': seconds(tomorrow) },
      });
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
    headers: { 'Retry-After': secondsUntil(ticket.standing.monthEnd, ticket.at) },
  });
}
