// The Express app, its middleware in request order (docs/lifecycle.md draws it):
// request id → request log → compression (JSON answers and the pages' text, as Accept-Encoding asks) → CORS
// (preflights answered here, without a key) → health and the pages (/, /docs, /dashboard, /openapi.yaml: no key) → API
// key (failed-key throttle) → MCP at /mcp (its tools meter themselves) → JSON body read (its price can depend
// on it) → admission (window, monthly requests, the price of the route's class) → known route (404, 405 with
// Allow) → what was wrong with the body → edge input (NUL, surrogates, query numbers) → UUID case → OpenAPI
// validation → routes (a HEAD answered by its GET) → errors. Malformed HTTP never gets here (client-errors.ts
// answers it on the socket).

import express from 'express';
import { apiKeyAuth } from './auth.js';
import { compressJson } from './compression.js';
import { crossOrigin } from './cors.js';
import type { McpHttpSessions } from './mcp.js';
import { admission } from './metering.js';
import type { AppContext } from '../context.js';
import { edgeInput } from './edge-input.js';
import { errorHandler, routeNotFound } from './error-handler.js';
import { healthHandler } from './handlers/health.js';
import { pagesRouter } from './pages/pages.js';
import { bodyError, jsonBody } from './json-body.js';
import { requestId } from './request-id.js';
import { requestLog } from './request-log.js';
import { classify, isRoute, mountRoutes } from './routes.js';
import { uuidCase } from './uuid-case.js';
import { knownRoute, openApiValidation } from './validation.js';

/** Express's trust proxy value of the trustProxy setting: a hop count, or a list of addresses and subnets. */
function trustProxy(setting: string): number | string | false {
  if (setting === '') return false;
  return /^\d+$/.test(setting) ? Number(setting) : setting;
}

export function createApp(ctx: AppContext, mcp: McpHttpSessions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', trustProxy(ctx.config.trustProxy));
  app.use(requestId());
  app.use(requestLog(ctx.logger));
  app.use(compressJson());
  app.use(crossOrigin(ctx.config.corsOrigins));
  app.get('/healthz', healthHandler(ctx));
  app.use(pagesRouter(ctx));
  app.use(apiKeyAuth(ctx));
  app.use(mcp.router());
  app.use(jsonBody(isRoute));
  app.use(admission(ctx, classify));
  app.use(knownRoute());
  app.use(bodyError());
  app.use(edgeInput());
  app.use(uuidCase());
  app.use(openApiValidation());
  const router = express.Router();
  mountRoutes(router, ctx);
  app.use(router);
  app.use(routeNotFound);
  app.use(errorHandler(ctx));
  return app;
}
