// The Express app, its middleware in request order (docs/lifecycle.md draws it):
// request id → request log → health (no key) → API key → MCP at /mcp (its tools meter themselves) →
// admission (window, monthly requests) → JSON body → OpenAPI validation → routes → errors.

import express from 'express';
import { apiKeyAuth } from './auth.js';
import type { McpHttpSessions } from '../mcp/http.js';
import { admission } from './metering.js';
import type { AppContext } from '../context.js';
import { errorHandler, routeNotFound } from './error-handler.js';
import { healthHandler } from './handlers/health.js';
import { requestId } from './request-id.js';
import { requestLog } from './request-log.js';
import { mountRoutes } from './routes.js';
import { openApiValidation } from './validation.js';

export const BODY_LIMIT_BYTES = 16_384;

export function createApp(ctx: AppContext, mcp: McpHttpSessions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId());
  app.use(requestLog(ctx.logger));
  app.get('/healthz', healthHandler(ctx));
  app.use(apiKeyAuth(ctx));
  app.use(mcp.router());
  app.use(admission(ctx));
  app.use(express.json({ limit: BODY_LIMIT_BYTES, type: 'application/json', strict: true }));
  app.use(openApiValidation());
  const router = express.Router();
  mountRoutes(router, ctx);
  app.use(router);
  app.use(routeNotFound);
  app.use(errorHandler(ctx.logger));
  return app;
}
