// Routes whose data is not published on this server: they answer the 503 the spec gives for that case.

import type { Request, Response } from 'express';
import { ApiError } from '../../errors.js';
import type { AppContext } from '../context.js';

const NOT_IN_BUILD = 'This route is not served by this build yet.';

export function pendingHandlers(ctx: AppContext) {
  return {
    /** Job routes: 503 catalog_unavailable until a catalog is published. */
    needsCatalog: (_req: Request, _res: Response): void => {
      ctx.publications.leaseCatalog().release();
      throw new ApiError('service_unavailable', NOT_IN_BUILD);
    },
    /** Company routes: 503 registry_unavailable until a registry release is active. */
    needsRegistry: (_req: Request, _res: Response): void => {
      ctx.publications.leaseRegistry().release();
      throw new ApiError('service_unavailable', NOT_IN_BUILD);
    },
    /** A company's jobs: needs both the registry release and the catalog. */
    needsRegistryAndCatalog: (_req: Request, _res: Response): void => {
      ctx.publications.leaseRegistry().release();
      ctx.publications.leaseCatalog().release();
      throw new ApiError('service_unavailable', NOT_IN_BUILD);
    },
  };
}
