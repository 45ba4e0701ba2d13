// GET /v1/account: where the account stands (plan, allowances, what is used and left, the overage setting).
// PUT /v1/account/overage: turn overage billing on or off and set the monthly overage limit (spec 4.10).
// Not counted against the request windows (spec 4.10 rule 7), so it has its own per-account throttle.

import type { Request, Response } from 'express';
import { setOverage, type OverageChange } from '../../metering/overage.js';
import { callerOf } from '../auth.js';
import { idempotencyKeyOf, markReplayed } from '../idempotency-key.js';
import { sendJson, ticketOf } from '../metering.js';
import { accountStanding } from '../../metering/standing.js';
import type { AppContext } from '../../context.js';
import { throttlesOf } from '../../shared/throttles.js';

export function accountHandlers(ctx: AppContext) {
  const throttles = throttlesOf(ctx);
  return {
    /** The figures admission found for this request: they count it. */
    get: async (_req: Request, res: Response): Promise<void> => {
      const { account } = callerOf(res);
      const ticket = ticketOf(res);
      if (!ticket) throw new Error('GET /v1/account runs metered: admission leaves its ticket');
      await sendJson(ctx, res, await accountStanding(ctx.store, account, ticket.standing, ctx.clock()));
    },
    putOverage: async (req: Request, res: Response): Promise<void> => {
      const { account } = callerOf(res);
      await throttles.take('overageChanges', account.account_id);
      const { status, replayed } = await setOverage(ctx.store, account.account_id, req.body as OverageChange, {
        now: ctx.clock(),
        upgradeUrl: ctx.config.upgradeUrl,
        idempotency: idempotencyKeyOf(req, 'PUT /v1/account/overage'),
      });
      markReplayed(res, replayed);
      await sendJson(ctx, res, status);
    },
  };
}
