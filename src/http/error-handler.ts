// The one error handler: turns anything thrown into a catalogued code and writes the spec's envelope.

import type { NextFunction, Request, Response } from 'express';
import type { AppContext } from '../context.js';
import { ApiError, asApiError, errorBody, invalidRequest } from '../errors.js';
import { settleError } from './metering.js';
import { bodyTooLarge } from './json-body.js';
import { requestIdOf } from './request-id.js';
import { isValidatorError, validationMessage } from './validation.js';

interface BodyParserError {
  type: string;
  status: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as { type?: unknown }).type === 'string' && 'status' in error;
}

function isClientHttpError(error: unknown): boolean {
  const { status, expose, errors } = (error ?? {}) as { status?: unknown; expose?: unknown; errors?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose === true && errors === undefined;
}

/** Maps body-parser and validator failures onto the catalogue; anything else is an internal error. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isBodyParserError(error)) {
    switch (error.type) {
      case 'entity.too.large':
        return bodyTooLarge();
      case 'entity.parse.failed':
        return invalidRequest('The request body is not valid JSON; send one JSON object, e.g. {"title":"nurse"}.');
      case 'charset.unsupported':
      case 'encoding.unsupported':
        return invalidRequest('The request body must be UTF-8 JSON, uncompressed or gzip/deflate encoded.');
      case 'request.aborted':
        return invalidRequest(
          'The request body did not arrive whole: the connection closed while it was being sent; send the request again.',
        );
      case 'request.size.invalid':
        return invalidRequest('The request body is not as long as its Content-Length says; send the exact length.');
      default:
        return invalidRequest('The request body could not be read; send one JSON object with "Content-Type: application/json".');
    }
  }
  // What body-parser passes on from the stream it reads (a decompression or socket error) carries a 4xx status and no type.
  if (isClientHttpError(error))
    return invalidRequest('The request body could not be read; send one JSON object with "Content-Type: application/json".');
  if (isValidatorError(error)) {
    switch (error.status) {
      case 404:
        return new ApiError('route_not_found');
      case 405:
        return new ApiError('method_not_allowed', undefined, { headers: error.headers ?? {} });
      case 413:
        return bodyTooLarge();
      case 415:
        return invalidRequest('The request body must be JSON sent with "Content-Type: application/json".');
      default:
        if (error.status < 500) return invalidRequest(validationMessage(error));
    }
  }
  return asApiError(error);
}

export function errorHandler(ctx: AppContext) {
  return async (error: unknown, _req: Request, res: Response, _next: NextFunction): Promise<void> => {
    const apiError = toApiError(error);
    // The request log's level follows the code: only the service's own failures are errors.
    res.locals.errorCode = apiError.code;
    if (apiError.code === 'internal_error') ctx.logger.error({ err: error, request_id: requestIdOf(res) }, 'request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // Settled before it is written, as every answer (http/metering.ts); a store that cannot settle it
    // leaves the row pending for the next start to settle, and the error is answered all the same.
    const answer = await settleError(ctx, res, apiError.status).catch((failure: unknown) => {
      ctx.logger.error({ err: failure, request_id: requestIdOf(res) }, 'settling an error answer failed');
      return true;
    });
    if (!answer || res.headersSent) return;
    for (const [name, value] of Object.entries(apiError.headers)) res.setHeader(name, value);
    res.status(apiError.status).json(errorBody(apiError, requestIdOf(res)));
  };
}

/** The last route: nothing matched. */
export function routeNotFound(_req: Request, _res: Response, next: NextFunction): void {
  next(new ApiError('route_not_found'));
}
