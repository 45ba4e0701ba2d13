// The one error handler: turns anything thrown into a catalogued code and writes the spec's envelope.

import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { ApiError, errorBody, invalidRequest } from '../errors.js';
import { requestIdOf } from './request-id.js';
import { isValidatorError, validationMessage } from './validation.js';

const BODY_LIMIT = 16_384;

interface BodyParserError {
  type: string;
  status: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as { type?: unknown }).type === 'string' && 'status' in error;
}

/** Maps body-parser and validator failures onto the catalogue; anything else is an internal error. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isBodyParserError(error)) {
    switch (error.type) {
      case 'entity.too.large':
        return invalidRequest(`The request body exceeds ${BODY_LIMIT} bytes.`);
      case 'entity.parse.failed':
        return invalidRequest('The request body is not valid JSON; send one JSON object.');
      case 'charset.unsupported':
      case 'encoding.unsupported':
        return invalidRequest('The request body must be UTF-8 JSON, uncompressed or gzip/deflate encoded.');
      default:
        return invalidRequest('The request body could not be read.');
    }
  }
  if (isValidatorError(error)) {
    switch (error.status) {
      case 404:
        return new ApiError('route_not_found');
      case 405:
        return new ApiError('method_not_allowed');
      case 413:
        return invalidRequest(`The request body exceeds ${BODY_LIMIT} bytes.`);
      case 415:
        return invalidRequest('The request body must be JSON sent with "Content-Type: application/json".');
      default:
        if (error.status < 500) return invalidRequest(validationMessage(error));
    }
  }
  return new ApiError('internal_error');
}

export function errorHandler(logger: Logger) {
  return (error: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const apiError = toApiError(error);
    if (apiError.code === 'internal_error') logger.error({ err: error, request_id: requestIdOf(res) }, 'request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(apiError.headers)) res.setHeader(name, value);
    res.status(apiError.status).json(errorBody(apiError, requestIdOf(res)));
  };
}

/** The last route: nothing matched. */
export function routeNotFound(_req: Request, _res: Response, next: NextFunction): void {
  next(new ApiError('route_not_found'));
}
