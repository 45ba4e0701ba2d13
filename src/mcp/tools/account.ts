// The MCP tools over the account: get_usage, set_overage and set_confirmation_level. None takes a request.

import { componentSchema, object, type JsonSchema } from '../schemas.js';
import { overageStatus, setOverage } from '../../metering/overage.js';
import { DAILY_FREE_UNITS } from '../../metering/prices.js';
import { PLANS } from '../../metering/plans.js';
import { CONFIRMATION_LEVELS, type ConfirmationLevel } from '../session.js';
import type { Tool } from '../tool.js';

const count = (description: string): JsonSchema => ({ type: 'integer', minimum: 0, description });
const LEVEL: JsonSchema = {
  type: 'string',
  enum: [...CONFIRMATION_LEVELS],
  description:
    'always: every search_jobs, get_job and count_jobs call first answers with its cost; paid_only (the default): only calls that would bill money (overage records, paid request units); never: no call asks.',
};

const getUsage: Tool = {
  name: 'get_usage',
  title: 'Get usage and limits',
  description:
    "Where the account stands: the request window, this month's API requests (with carry-over) and records, or in the requests model this key's free request units of the day, " +
    'the overage setting and its use this month, and the confirmation level of this session. Uses no requests.',
  inputSchema: object({}),
  outputSchema: object(
    {
      billing_model: { type: 'string', enum: ['records', 'requests'] },
      plan: { type: 'string' },
      window: object(
        {
          limit: count('Requests per 60 seconds.'),
          used: count('Used in the current window.'),
          resets_at: { type: 'string', format: 'date-time' },
        },
        ['limit', 'used', 'resets_at'],
      ),
      requests: object(
        {
          used: count('Requests used this month (records model) or free request units used today by this key (requests model).'),
          remaining: count(
            'Requests left, with the unused requests carried over from the last 12 months (records model), or free units left today.',
          ),
        },
        ['used', 'remaining'],
      ),
      records: object(
        {
          used: count('Records charged this month.'),
          limit: count("The plan's monthly records."),
          reserved: count('Records set aside for exports still running.'),
          resets_at: { type: 'string', format: 'date-time' },
        },
        ['used', 'limit', 'reserved', 'resets_at'],
      ),
      prepaid_usd: { type: 'number', minimum: 0, description: 'Prepaid balance of the requests model.' },
      overage: componentSchema('OverageStatus'),
      confirmation_level: LEVEL,
    },
    ['billing_model', 'plan', 'window', 'requests', 'overage', 'confirmation_level'],
  ),
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (_args, { ctx, caller, session }) => {
    const { account } = caller;
    const { standing: s } = await ctx.meter.peek(caller, {
      method: 'MCP',
      route: 'mcp/get_usage',
      routeClass: 'usage',
      windowed: false,
      counted: false,
    });
    const records =
      s.model === 'records'
        ? { records: { used: s.recordsUsed, limit: s.recordsLimit, reserved: s.recordsReserved, resets_at: s.monthEnd.toISOString() } }
        : {};
    const prepaid = s.model === 'requests' ? { prepaid_usd: Number(account.prepaid_micros) / 1e6 } : {};
    return {
      billing_model: s.model,
      plan: PLANS[account.plan].id,
      window: { limit: s.windowLimit, used: Math.min(s.windowUsed, s.windowLimit), resets_at: s.windowReset.toISOString() },
      requests:
        s.model === 'records'
          ? { used: s.requestsUsed, remaining: s.requestsLeft }
          : { used: Math.max(0, DAILY_FREE_UNITS - s.requestsLeft), remaining: s.requestsLeft },
      ...records,
      ...prepaid,
      overage: await overageStatus(ctx.store, account, ctx.clock()),
      confirmation_level: session.level,
    };
  },
};

const setOverageTool: Tool = {
  name: 'set_overage',
  title: 'Set overage billing',
  description:
    'Turns overage billing on or off and sets its monthly limit in US dollars (null clears it), as PUT /v1/account/overage. Paid plans with an active subscription only ' +
    '(tool errors upgrade_required or no_active_subscription, 403). Uses no requests.',
  inputSchema: componentSchema('OverageRequest'),
  outputSchema: componentSchema('OverageStatus'),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (args, { ctx, caller }) => ({
    ...(await setOverage(ctx.store, caller.account.account_id, args, { now: ctx.clock(), upgradeUrl: ctx.config.upgradeUrl })).status,
  }),
};

const setConfirmationLevel: Tool = {
  name: 'set_confirmation_level',
  title: 'Set when to confirm spending',
  description:
    'Sets, for this session, which calls of search_jobs, get_job and count_jobs first answer with their cost and run only when called again with confirm: true. Uses no requests.',
  inputSchema: object({ level: LEVEL }, ['level']),
  outputSchema: object({ level: LEVEL, message: { type: 'string' } }, ['level', 'message']),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (args, { session }) => {
    await session.setLevel(args.level as ConfirmationLevel);
    const says = { always: 'every spending call', paid_only: 'calls that would bill money', never: 'no call' }[session.level];
    return { level: session.level, message: `From now on in this session, ${says} first answers with its cost.` };
  },
};

export const ACCOUNT_TOOLS: Tool[] = [getUsage, setOverageTool, setConfirmationLevel];
