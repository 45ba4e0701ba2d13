// The MCP tools over the account: get_usage, set_overage and set_confirmation_level. None takes a request.

import { componentSchema, object, type JsonSchema } from '../schemas.js';
import { setOverage } from '../../metering/overage.js';
import { accountStanding } from '../../metering/standing.js';
import { CONFIRMATION_LEVELS, type ConfirmationLevel } from '../session.js';
import type { Tool } from '../tool.js';

/** What GET /v1/account answers (openapi.yaml: Account); get_usage adds the session's confirmation level. */
const STANDING = componentSchema('Account') as { properties: Record<string, JsonSchema>; required: string[] };
const LEVEL: JsonSchema = {
  type: 'string',
  enum: [...CONFIRMATION_LEVELS],
  description: 'always: every spending call first answers its cost; paid_only (default): only calls that bill money; never.',
};

const getUsage: Tool = {
  name: 'get_usage',
  title: 'Get usage and limits',
  description: "Where the account stands (as GET /v1/account): window, this month's requests and records, overage. Uses no requests.",
  inputSchema: object({}),
  outputSchema: object({ ...STANDING.properties, confirmation_level: LEVEL }, [...STANDING.required, 'confirmation_level']),
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
    return {
      ...(await accountStanding(ctx.store, account, s, ctx.clock())),
      confirmation_level: session.level,
    };
  },
};

const setOverageTool: Tool = {
  name: 'set_overage',
  title: 'Set overage billing',
  description:
    'Turns overage billing on or off and sets its monthly cap in US dollars, as PUT /v1/account/overage; ' +
    'paid plans with an active subscription only. Uses no requests.',
  inputSchema: {
    ...object({
      enabled: { type: 'boolean', description: 'true turns overage billing on, e.g. true.' },
      monthlyLimitUsd: { type: ['number', 'null'], description: 'Monthly cap in US dollars, e.g. 50; null: no cap.' },
    }),
    minProperties: 1,
  },
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
    'Sets which calls of search_jobs, get_job and count_jobs first answer their cost, to run when called again with confirm: true. Uses no requests.',
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
