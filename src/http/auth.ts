// API key authentication: `Authorization: Bearer <key>`; anything missing, malformed, unknown or revoked is 401.
// An address that sent too many keys that are not valid gets 429 for the rest of the minute, without a look-up.

import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors.js';
import { authenticate, type Caller } from '../metering/keys.js';
import type { AppContext } from '../context.js';
import { throttlesOf } from './throttles.js';

const BEARER = /^Bearer +(\S+) *$/i;

/** The client's address: the socket's peer, or X-Forwarded-For from a proxy the trustProxy setting names. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

export function apiKeyAuth(ctx: AppContext) {
  const throttles = throttlesOf(ctx);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const header = req.headers.authorization;
    if (!header) throw new ApiError('invalid_api_key', 'No API key was sent: send it as "Authorization: Bearer <API_KEY>".');
    const presented = BEARER.exec(header)?.[1];
    if (!presented) throw new ApiError('invalid_api_key', 'The Authorization header must be "Bearer <API_KEY>".');
    const address = clientAddress(req);
    await throttles.check('failedKeys', address);
    const caller = await authenticate(ctx.store, presented);
    if (!caller) {
      await throttles.count('failedKeys', address);
      throw new ApiError('invalid_api_key', 'The API key is not valid: it is malformed, unknown or revoked.');
    }
    res.locals.caller = caller;
    next();
  };
}

export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new ApiError('invalid_api_key');
  return caller;
}
