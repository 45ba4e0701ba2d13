// Output schemas shared by the MCP tools: the spending tools' envelope (status, cost, charge) and the job.

import { componentSchema, object, type JsonSchema } from '../schemas.js';

const COST: JsonSchema = object(
  {
    billing_model: { type: 'string', enum: ['records', 'requests'] },
    requests: { type: 'integer', description: 'Monthly API requests the call takes: always 1.' },
    records_at_most: { type: 'integer', minimum: 0, description: 'The most records (jobs) the call returns and charges.' },
    paid: { type: 'boolean', description: 'True when part of the call is billed: overage records, or paid request units.' },
    usd_at_most: { type: 'number', minimum: 0, description: 'The most it bills, in US dollars, before volume discounts.' },
    note: { type: 'string' },
  },
  ['billing_model', 'requests', 'records_at_most', 'paid', 'usd_at_most', 'note'],
  'What the call would spend, as the account stands now.',
);

const STANDING: JsonSchema = object(
  {
    window_left: { type: 'integer', minimum: 0, description: 'Requests left in the current 60-second window.' },
    requests_left: {
      type: 'integer',
      minimum: 0,
      description: "This month's requests left (with carry-over), or the key's free units today.",
    },
    records_left: { type: 'integer', minimum: 0, description: "This month's records left (records model)." },
  },
  ['window_left', 'requests_left'],
  'What is left after this call; get_usage tells more.',
);

const CHARGED: JsonSchema = object(
  {
    requests: { type: 'integer', description: 'Monthly API requests taken: 1 per call, however many jobs or pages.' },
    records: { type: 'integer', minimum: 0, description: 'Records (jobs) charged.' },
  },
  ['requests', 'records'],
  'What the call spent.',
);

/**
 * The output of a tool that spends requests: status "done" with its result and what it charged, or
 * "confirmation_required" with the cost, when the session's confirmation level asks (nothing spent).
 */
export function spendingOutput(properties: Record<string, JsonSchema>): JsonSchema {
  return object(
    {
      status: {
        type: 'string',
        enum: ['done', 'confirmation_required'],
        description: 'confirmation_required: nothing was run or spent; call again with confirm: true.',
      },
      cost: COST,
      message: { type: 'string' },
      charged: CHARGED,
      standing: STANDING,
      ...properties,
    },
    ['status'],
  );
}

export const CONFIRM: JsonSchema = {
  type: 'boolean',
  default: false,
  description: 'true: run now, once you read the cost it asked to confirm (set_confirmation_level).',
};

/**
 * A job as GET /v1/jobs/{jobId} answers it; its fields are those list_fields lists (openapi.yaml's Job), not
 * repeated in every tool listing.
 */
export const JOB: JsonSchema = { type: 'object', description: 'A job: its fields are those list_fields lists.' };
export const JOBS: JsonSchema = { type: 'array', items: JOB };

export const WATERMARK = (): JsonSchema => componentSchema('Watermark');
