// GET /healthz: liveness and readiness (state store open, which catalog and registry release are loaded).

import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';

export function healthHandler(ctx: AppContext) {
  return async (_req: Request, res: Response): Promise<void> => {
    const storeOpen = await ctx.store.query('SELECT 1').then(
      () => true,
      () => false,
    );
    const ready = storeOpen && !ctx.draining;
    res.status(ready ? 200 : 503).json({
      status: ctx.draining ? 'draining' : storeOpen ? 'ok' : 'starting',
      store: { open: storeOpen, kind: ctx.store.kind },
      catalog: { watermark: ctx.publications.catalog?.watermark ?? null },
      registry: { release_id: ctx.publications.registry?.releaseId ?? null },
    });
  };
}
