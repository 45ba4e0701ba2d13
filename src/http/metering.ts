// Metering in the request pipeline (DESIGN.md 6): after the key, the request is admitted against the
// window and the monthly requests (429 rate_limited before any work otherwise), carries the headers of
// spec 8.5, charges its records before a successful body is sent (429 data_limit_exceeded when the
// month cannot take them) and is settled in the ledger when it ends.

import { recordsLeft, windowLeft } from '../metering/standing.js';
import type { NextFunction, Request, Response } from 'express';
import type { RequestInfo, Ticket } from '../metering/meter.js';
import type { Standing } from '../metering/standing.js';
import { DAILY_FREE_UNITS } from '../metering/prices.js';
import { dataLimitExceeded, refused } from '../metering/refusals.js';
import { callerOf } from './auth.js';
import { etagOf, isConditional, neverFreshByItself, notModified } from './conditional.js';
import type { AppContext } from '../context.js';
import { requestIdOf } from './request-id.js';

/** The status a request is settled with when its client went away before the response started (nginx's 499). */
const CLIENT_CLOSED = 499;

export function ticketOf(res: Response): Ticket | undefined {
  return res.locals.ticket as Ticket | undefined;
}

/** Admission: the first step after the key; `classify` says the request's route and class (src/http/routes.ts). */
export function admission(ctx: AppContext, classify: (req: Request) => Omit<RequestInfo, 'requestId'>) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const caller = callerOf(res);
    neverFreshByItself(req);
    const started = performance.now();
    const { ticket, refusal } = await ctx.meter.admit(caller, { requestId: requestIdOf(res), ...classify(req) });
    ticket.meterMs = performance.now() - started;
    setMeteringHeaders(res, ticket.standing, ticket.at);
    if (refusal) throw refused(refusal, ticket);
    res.locals.ticket = ticket;
    res.on('close', () => {
      if (ticket.settled || ticket.deferred) return;
      // Every answer is settled before it is sent (charge, settleError): a request still open here had
      // its client go away first. It settles as 499 (client closed request), charging nothing; the
      // handler still running finds it settled and sends nothing.
      const status = res.headersSent ? res.statusCode : CLIENT_CLOSED;
      ctx.meter.settleLater(ticket, { status, records: 0 });
    });
    next();
  };
}

/** The headers of spec 8.5, as the account stands after this request. */
export function setMeteringHeaders(res: Response, s: Standing, at: Date): void {
  const remaining = windowLeft(s);
  res.setHeader('RateLimit-Policy', `${s.windowLimit};w=60`);
  res.setHeader('RateLimit-Limit', String(s.windowLimit));
  res.setHeader('RateLimit-Remaining', String(remaining));
  res.setHeader('RateLimit-Reset', String(Math.max(0, Math.ceil((s.windowReset.getTime() - at.getTime()) / 1000))));
  res.setHeader('X-Data-Records-Charged', String(s.recordsCharged));
  if (s.model === 'records') {
    res.setHeader('X-Data-Records-Used', String(s.recordsUsed));
    res.setHeader('X-Data-Records-Limit', String(s.recordsLimit));
    res.setHeader('X-Data-Records-Remaining', String(recordsLeft(s)));
    res.setHeader('X-Data-Records-Reset', s.monthEnd.toISOString());
    res.setHeader('X-Data-Requests-Used', String(s.requestsUsed));
    res.setHeader('X-Data-Requests-Limit', String(s.requestsUsed + s.requestsLeft));
    res.setHeader('X-Data-Requests-Remaining', String(s.requestsLeft));
  } else {
    // Requests model (spec 8.4): the key's free request units of the day.
    res.setHeader('X-Data-Requests-Used', String(DAILY_FREE_UNITS - s.requestsLeft));
    res.setHeader('X-Data-Requests-Limit', String(DAILY_FREE_UNITS));
    res.setHeader('X-Data-Requests-Remaining', String(s.requestsLeft));
  }
}

/**
 * Two turns of the event loop, then a look at the socket: a client that closed its connection while the
 * request was worked on is seen only once the loop has polled the socket again (a busy stretch, or the
 * state store's call, may come before that poll).
 */
async function clientGone(res: Response): Promise<boolean> {
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
  return connectionLost(res);
}

function connectionLost(res: Response): boolean {
  const socket = res.req.socket;
  return socket.destroyed || !socket.writable;
}

/**
 * Gives the charge back when the answer was not delivered: the connection failed before its last byte
 * was handed to the network (the operating system's socket buffer). An answer the network took whole
 * counts as delivered (docs/usage-and-limits.md, "When an answer is not delivered").
 */
function refundIfCut(ctx: AppContext, res: Response, ticket: Ticket): void {
  const socket = res.req.socket;
  res.once('close', () => {
    if (socket.errored || !res.writableFinished) ctx.meter.refund(ticket, CLIENT_CLOSED);
  });
}

/**
 * Settles the request before the first byte of its answer, so that a crash never leaves an answered
 * request pending: charges a successful response of `records` records (jobs, companies or events), or
 * records any other. A response the month cannot take is never sent: 429 data_limit_exceeded instead.
 * In the requests model every successful answer is paid this way (one without records is one request
 * unit). Then one look at the connection before the first byte: a client gone during the query or
 * while it was charged gets the charge back (the row becomes 499), and one that goes while the answer
 * is sent gets it back too. Returns false when there is nothing to send.
 */
export async function charge(ctx: AppContext, res: Response, records: number, options: { free?: boolean } = {}): Promise<boolean> {
  const ticket = ticketOf(res);
  if (!ticket) return true;
  if (ticket.settled || ticket.deferred) return false;
  // A HEAD sends the GET's headers and none of its body: it counts one request and no records.
  if (res.req.method === 'HEAD') records = 0;
  const started = performance.now();
  const charged = await ctx.meter.settle(ticket, { status: res.statusCode, records, ...(options.free ? { void: true } : {}) });
  ticket.meterMs += performance.now() - started;
  setMeteringHeaders(res, ticket.standing, ticket.at);
  // What metering added to this response: admission and charging (a call of the state store each, or
  // one call in all for a request admitted from a lease).
  res.append('Server-Timing', `meter;dur=${ticket.meterMs.toFixed(3)}`);
  if (!charged) throw ticket.refusal ? refused(ticket.refusal, ticket) : dataLimitExceeded(ticket, records);
  // Looked at once, after the charge rather than before it and again after: a request charged in
  // memory waits two turns of the loop for this look, not four (ADR 0013, session 21), and a client
  // gone is rare enough that giving its charge back costs nothing that matters.
  if (await clientGone(res)) {
    ctx.meter.refund(ticket, CLIENT_CLOSED);
    return false;
  }
  refundIfCut(ctx, res, ticket);
  return true;
}

/**
 * Settles a request answered with an error, before the error is written (see charge); false when the
 * client has gone and nothing should be written.
 */
export async function settleError(ctx: AppContext, res: Response, status: number): Promise<boolean> {
  const ticket = ticketOf(res);
  if (!ticket || ticket.settled || ticket.deferred) return true;
  const gone = await clientGone(res);
  await ctx.meter.settle(ticket, { status: gone ? CLIENT_CLOSED : status, records: 0 });
  return !gone;
}

/**
 * Sends a successful body of `records` records (JSON unless `type` says otherwise), charged first (see
 * charge). A GET carries the body's ETag; when If-None-Match names it, the answer is 304 with no body,
 * charged nothing (spec 8.2: a response without records uses none; in the requests model it is not paid
 * either): the call still counts one request.
 */
export async function sendCharged(ctx: AppContext, res: Response, records: number, body: string | Buffer, type = 'json'): Promise<void> {
  if (isConditional(res.req, res)) {
    const etag = etagOf(body);
    res.setHeader('ETag', etag);
    if (notModified(res.req, etag)) {
      res.status(304);
      if (await charge(ctx, res, 0, { free: true })) res.end();
      return;
    }
  }
  if (await charge(ctx, res, records)) res.type(type).send(body);
}

/** Sends a successful JSON body that holds no records (counts, usage, export records), paid first in the requests model. */
export function sendJson(ctx: AppContext, res: Response, value: unknown): Promise<void> {
  return sendCharged(ctx, res, 0, JSON.stringify(value));
}
