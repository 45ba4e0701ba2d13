// The JSON body stage: application/json only, at most 16,384 bytes, and read only from a request that is
// still arriving. A body declared larger is refused at once, without waiting for it; a body whose
// connection failed (a bad chunk size, a reset) ends as 400 and never reaches a handler.

import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError, invalidRequest } from '../errors.js';
import { wasAnsweredByClientError } from './client-errors.js';

export const BODY_LIMIT_BYTES = 16_384;

export const bodyTooLarge = () => invalidRequest(`The request body is larger than ${BODY_LIMIT_BYTES} bytes, the most a JSON body may be.`);

const notArrived = () =>
  invalidRequest('The request body did not arrive whole: the connection failed or closed while it was being sent; send the request again.');

/** True when the request's connection can no longer deliver the rest of its body. */
function cutOff(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const socket = req.socket as IncomingMessage['socket'] | null;
  return !socket || socket.destroyed || !socket.readable || req.readableAborted || wasAnsweredByClientError(socket);
}

/** A decompression failure, named by the encoding the client declared. */
function readFailure(req: Request, error: unknown): unknown {
  const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
  const parserType = (error as { type?: unknown }).type;
  if (encoding !== 'identity' && typeof parserType !== 'string') {
    return invalidRequest(
      `The request body is not ${encoding} data although Content-Encoding says ${encoding}: send it compressed, or drop the Content-Encoding header.`,
    );
  }
  return error;
}

/**
 * Reads the body of a request to one of the API's routes (`isRoute`) before admission, which prices a
 * request by it (src/http/routes.ts); other requests are answered 404 or 405 with their body unread. What
 * is wrong with a body is answered after admission and the route (bodyError): such a call counts as one.
 */
export function jsonBody(isRoute: (req: Request) => boolean) {
  const parse = express.json({ limit: BODY_LIMIT_BYTES, type: 'application/json', strict: true });
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!isRoute(req)) return next();
    const fail = (error: unknown) => {
      res.locals.bodyError = error;
      next();
    };
    const declared = Number(req.headers['content-length']);
    if (declared > BODY_LIMIT_BYTES) {
      // Refused before a byte of it is read; closing the connection spares waiting for a body it will never use.
      res.setHeader('Connection', 'close');
      return fail(invalidRequest(`Content-Length declares ${declared} bytes; a JSON body may be at most ${BODY_LIMIT_BYTES} bytes.`));
    }
    if (cutOff(req)) return fail(notArrived());
    parse(req, res, (error?: unknown) => {
      if (error) return fail(error instanceof ApiError ? error : readFailure(req, error));
      if (cutOff(req)) return fail(notArrived());
      next();
    });
  };
}

/** Answers what jsonBody found wrong with the body. */
export function bodyError() {
  return (_req: Request, res: Response, next: NextFunction): void => next(res.locals.bodyError);
}
