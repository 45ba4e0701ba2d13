// API key authentication: `Authorization: Bearer <key>`; anything missing, malformed, unknown or revoked is 401.
// An address that sent too many keys that are not valid gets 429 for the rest of the minute, without a look-up.

import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors.js';
import type { Caller } from '../metering/keys.js';
import type { AppContext } from '../context.js';
import { throttlesOf } from '../shared/throttles.js';

const BEARER = /^Bearer +(\S+) *$/i;

const CHALLENGE = 'Bearer realm="jobs-api"';

/** A 401 with its challenge (RFC 6750 3): the scheme and realm, and invalid_token when a key was sent but is not valid. */
function unauthorized(message: string, keySent: boolean): ApiError {
  const challenge = keySent ? `${CHALLENGE}, error="invalid_token", error_description="${message.replace(/"/g, "'")}"` : CHALLENGE;
  return new ApiError('invalid_api_key', message, { headers: { 'WWW-Authenticate': challenge } });
}

/** The client's address: the socket's peer, or X-Forwarded-For from a proxy the trustProxy setting names. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

export function apiKeyAuth(ctx: AppContext) {
  const throttles = throttlesOf(ctx);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const header = req.headers.authorization;
    if (!header) throw unauthorized('No API key was sent: send it as "Authorization: Bearer <API_KEY>".', false);
    const presented = BEARER.exec(header)?.[1];
    if (!presented) throw unauthorized('The Authorization header must be "Bearer <API_KEY>".', false);
    const address = clientAddress(req);
    await throttles.check('failedKeys', address);
    const caller = await ctx.callers.authenticate(presented);
    if (!caller) {
      await throttles.count('failedKeys', address);
      throw unauthorized('The API key is not valid: it is malformed, unknown or revoked.', true);
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
