// The whole URL map of the API (spec 4.1). Static /v1/jobs/* paths come before /v1/jobs/:jobId.

import type { Router } from 'express';
import type { AppContext } from '../context.js';
import { accountHandlers } from './handlers/account.js';
import { changesHandlers } from './handlers/changes.js';
import { exportHandlers } from './handlers/exports.js';
import { jobHandlers } from './handlers/jobs.js';
import { companyHandlers } from './handlers/companies.js';
import { usageHandlers } from './handlers/usage.js';

export function mountRoutes(router: Router, ctx: AppContext): void {
  const account = accountHandlers(ctx);
  const jobs = jobHandlers(ctx, ctx.jobs, ctx.companies);
  const companies = companyHandlers(ctx, ctx.companies);
  const changes = changesHandlers(ctx);
  const exports = exportHandlers(ctx);
  const usage = usageHandlers(ctx);

  router.get('/v1/jobs', jobs.list);
  router.post('/v1/jobs/search', jobs.search);
  router.post('/v1/jobs/search/es_dsl', jobs.esDsl);
  router.get('/v1/jobs/count', jobs.count);
  router.get('/v1/jobs/changes', changes.list);
  router.post('/v1/jobs/exports', exports.create);
  router.get('/v1/jobs/exports', exports.list);
  router.get('/v1/jobs/exports/:exportId', exports.one);
  router.get('/v1/jobs/exports/:exportId/files/:n', exports.file);
  router.get('/v1/jobs/:jobId', jobs.one);

  router.get('/v1/companies', companies.list);
  router.post('/v1/companies/search', companies.search);
  router.get('/v1/companies/:companyId', companies.one);
  router.get('/v1/companies/:companyId/jobs', jobs.companyJobs);

  router.put('/v1/account/overage', account.putOverage);

  router.get('/v1/usage/requests', usage.requests);
  router.get('/v1/usage/analytics', usage.analytics);
}
