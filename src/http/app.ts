// The service's request listener: its stages in request order, on Express's request and response without its router
// (stages.ts; docs/lifecycle.md draws them):
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
import { requestId, requestIdOf } from './request-id.js';
import { requestLog } from './request-log.js';
import { classify, isRoute, routesStage } from './routes.js';
import { inOrder, listener, where, type HttpApp } from './stages.js';
import { uuidCase } from './uuid-case.js';
import { knownRoute, openApiValidation, validatorErrorsInWords } from './validation.js';

/** Express's trust proxy value of the trustProxy setting: a hop count, or a list of addresses and subnets. */
function trustProxy(setting: string): number | string | false {
  if (setting === '') return false;
  return /^\d+$/.test(setting) ? Number(setting) : setting;
}

/** The API's paths and MCP's: the pages (/, /docs, /assets, ...) are none of them. */
const API_PATH = /^\/v1(?:\/|$)/i;
/** Where MCP's router answers (its body parser and its one route). */
const MCP_PATH = /^\/mcp(?:\/|$)/i;
const HEALTH_PATH = /^\/healthz\/?$/i;

/** The service's request listener (the stages in order, then the error handlers) and its request and response classes (stages.ts). */
export function createApp(ctx: AppContext, mcp: McpHttpSessions): HttpApp {
  const app = express();
  app.set('etag', false);
  app.set('trust proxy', trustProxy(ctx.config.trustProxy));
  const health = healthHandler(ctx);
  const stages = inOrder([
    requestId(),
    requestLog(ctx.logger),
    compressJson(),
    crossOrigin(ctx.config.corsOrigins),
    where(HEALTH_PATH.test.bind(HEALTH_PATH), (req, res, next) =>
      req.method === 'GET' || req.method === 'HEAD' ? health(req, res) : next(),
    ),
    where((path) => !API_PATH.test(path), pagesRouter(ctx)),
    apiKeyAuth(ctx),
    where(MCP_PATH.test.bind(MCP_PATH), mcp.router()),
    jsonBody(isRoute),
    admission(ctx, classify),
    knownRoute(),
    bodyError(),
    edgeInput(),
    uuidCase(),
    openApiValidation(),
    routesStage(ctx),
    routeNotFound,
  ]);
  return listener(app, stages, [validatorErrorsInWords, errorHandler(ctx)], (error, res) =>
    ctx.logger.error({ err: error, request_id: requestIdOf(res) }, 'answering an error failed'),
  );
}
