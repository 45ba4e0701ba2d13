// One pino line per request, carrying the request id; only method and URL are logged, never headers (keys).

import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import type { Request, Response } from 'express';
import { requestIdOf } from './request-id.js';

export function requestLog(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (_req, res) => requestIdOf(res as Response),
    customProps: (_req, res) => ({ request_id: requestIdOf(res as Response) }),
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    serializers: {
      req: (req: Request) => ({ method: req.method, url: req.url }),
    },
  });
}
