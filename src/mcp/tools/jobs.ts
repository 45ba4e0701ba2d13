// The MCP tools over the jobs catalog: search_jobs, get_job and count_jobs (each one request per call),
// and list_fields (none). They call the JobsService the HTTP routes call, on one pinned snapshot.

import type { AppContext } from '../../context.js';
import { isKeywordSearch, JOB_FIELDS, readFilters, readListOptions, type JobFilters, type ListOptions } from '../../jobs/filters.js';
import { GROUP_BY, type GroupBy } from '../../jobs/groups.js';
import type { JobsSnapshot } from '../../jobs/snapshot.js';
import { INTERVALS, readTrendRequest } from '../../jobs/trends.js';
import { componentSchema, object } from '../schemas.js';
import { spend, type Spending, type Spent } from '../spend.js';
import type { Tool, ToolCall } from '../tool.js';
import { ALL_FILTERS, FILTER_INPUTS, filtersOfArgs } from './filter-inputs.js';
import { CONFIRM, JOB, JOBS, spendingOutput, WATERMARK } from './outputs.js';
import { COMPACT_FIELDS, compactJob, MAX_CHARS, sealHandle, searchOf, understood, widest, withinBudget } from './search-view.js';

/** search_jobs pages (spec 8.6). */
export const PAGE = { min: 1, max: 25, default: 10 };
/** The most jobs save_to_file writes (spec 8.6). */
export const FILE_JOBS = 5000;
/** Jobs rendered per step while a file is written: bounds the memory a save holds. */
const FILE_STEP = 250;

/** Runs `work` on the latest jobs snapshot, pinned until it ends (Publications.onCatalog). */
const onCatalog = <T>(ctx: AppContext, work: (s: JobsSnapshot) => Promise<T>): Promise<T> =>
  ctx.publications.onCatalog((s) => work(s as JobsSnapshot));

const filtersOf = (args: Record<string, unknown>): JobFilters => readFilters(filtersOfArgs(args), 'body');

/** How much of each job to return, in an agent's words. */
const SHAPE = {
  fields: {
    type: 'array',
    items: { type: 'string' },
    description: 'e.g. ["title", "description"]; list_fields lists the fields.',
  },
  include: {
    type: 'array',
    items: { enum: ['company', 'source_data'] },
    description: 'e.g. ["company"] (the employer) or ["source_data"].',
  },
};

/** How a filter tool read its filters, in every answer; and what to drop when nothing matched. */
const EXPLAINED = {
  understood: { type: 'object', description: 'The filters as read: normalised, with defaults, text as the words searched.' },
  hint: { type: 'string', description: 'When nothing matches: the filter whose removal brings back most jobs.' },
};

const searchJobs: Tool = {
  name: 'search_jobs',
  title: 'Search jobs',
  description:
    'How many jobs match the filters, and a page of up to 25 (default 10), compact, by relevance with q or title, else newest. ' +
    `Send its handle back for the next page, or with save_to_file to save up to ${FILE_JOBS} for read_file. One request; a record per job.`,
  inputSchema: object({
    ...FILTER_INPUTS,
    limit: {
      type: 'integer',
      minimum: PAGE.min,
      maximum: PAGE.max,
      default: PAGE.default,
      description: `Jobs per page, e.g. 5.`,
    },
    handle: { type: 'string', description: 'The handle of an earlier answer, alone: its next page, without filters.' },
    sort: {
      enum: ['relevance', 'updated'],
      description: 'relevance (the default with q, title or description) or updated (newest first, the default otherwise).',
    },
    ...SHAPE,
    max_chars: MAX_CHARS,
    save_to_file: {
      type: 'boolean',
      default: false,
      description: `true: write up to ${FILE_JOBS} jobs to a file (read_file reads it) instead of a page.`,
    },
    confirm: CONFIRM,
  }),
  outputSchema: spendingOutput({
    total: { type: 'integer', minimum: 0, description: 'How many jobs match.' },
    jobs: {
      ...JOBS,
      description: 'The page: compact jobs (job_id, title, employer, place, work_arrangement, pay, posted) unless fields is sent.',
    },
    handle: { type: 'string', description: 'Send it back, alone, for the next page, or with save_to_file: true.' },
    ...EXPLAINED,
    snapshot_watermark: WATERMARK(),
    file: object(
      {
        file_id: { type: 'string' },
        jobs: { type: 'integer', minimum: 0, description: 'Jobs in the file.' },
        snapshot_watermark: WATERMARK(),
        created_at: { type: 'string', format: 'date-time' },
      },
      ['file_id', 'jobs', 'snapshot_watermark', 'created_at'],
      'The file written by save_to_file; read it with read_file.',
    ),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (args, call) => {
    const search = searchOf(call.ctx, args);
    const query = search.args;
    const filters = filtersOf(query);
    const save = args.save_to_file === true;
    const limit = (query.limit as number | undefined) ?? PAGE.default;
    const fields = query.fields ?? (save ? undefined : COMPACT_FIELDS);
    const options = readListOptions(
      {
        fields,
        include: query.include,
        sort: query.sort,
        cursor: save ? undefined : (search.cursor ?? undefined),
        limit: save ? FILE_STEP : limit,
      },
      filters,
      'body',
    );
    const spending = {
      tool: 'search_jobs',
      routeClass: isKeywordSearch(filters) ? ('jobs_search' as const) : ('jobs_list' as const),
      bound: save ? FILE_JOBS : limit,
      refine: () => onCatalog(call.ctx, async (s) => (await call.ctx.jobs.count(s, filters, undefined)).count),
      confirmed: query.confirm === true,
    };
    return spend(call, spending, () =>
      save ? saveToFile(call, filters, options) : page(call, filters, options, { args: query, compact: query.fields === undefined }),
    );
  },
};

/** How the filters were understood, and when nothing matches, which filter to drop (search-view.ts). */
/** count_jobs with interval, start or end: the trend of GET /v1/jobs/trends, priced as the count it is. */
function countOverTime(
  call: ToolCall,
  args: Record<string, unknown>,
  filters: JobFilters,
  spending: Spending,
): Promise<Record<string, unknown>> {
  const request = readTrendRequest({ interval: args.interval, start: args.start, end: args.end }, args.group_by as GroupBy | undefined);
  return spend(call, spending, () =>
    onCatalog(call.ctx, async (s) => ({
      records: 0,
      output: {
        points: (await call.ctx.trends.trend(s, filters, request)).points,
        understood: understood(filters),
        snapshot_watermark: s.watermark,
      },
    })),
  );
}

async function explained(ctx: AppContext, s: JobsSnapshot, filters: JobFilters, count: number): Promise<Record<string, unknown>> {
  const hint = count === 0 ? await widest(async (f) => (await ctx.jobs.count(s, f, undefined)).count, filters) : null;
  return {
    understood: understood(filters),
    ...(hint ? { hint: `No job matches every filter; without ${hint.without}, ${hint.jobs} would.` } : {}),
  };
}

async function page(
  call: ToolCall,
  filters: JobFilters,
  options: ListOptions,
  view: { args: Record<string, unknown>; compact: boolean },
): Promise<Spent> {
  const { ctx } = call;
  return onCatalog(ctx, async (s) => {
    const body = await ctx.jobs.list(s, ctx.publications.registry, 'MCP search_jobs', filters, options);
    const { count } = await ctx.jobs.count(s, filters, undefined);
    const { data, next_cursor, snapshot_watermark } = JSON.parse(body.json.toString('utf8')) as {
      data: Parameters<typeof compactJob>[0][];
      next_cursor: string | null;
      snapshot_watermark: string;
    };
    const jobs = view.compact ? data.map(compactJob) : data;
    const output = { total: count, jobs, handle: sealHandle(ctx, view.args, next_cursor), snapshot_watermark };
    const answer = { ...output, ...(await explained(ctx, s, filters, count)) };
    withinBudget(answer, jobs, view.args.max_chars as number | undefined);
    return { records: body.records, output: answer };
  });
}

/** Writes the matching jobs to a session file; it is listed once its records are charged. */
async function saveToFile(call: ToolCall, filters: JobFilters, options: ListOptions): Promise<Spent> {
  const { ctx, session } = call;
  return onCatalog(ctx, async (s) => {
    const { docs } = await ctx.jobs.select(s, filters, options.sort, null, FILE_JOBS);
    const file = await session.createFile(s.watermark);
    try {
      for (let i = 0; i < docs.length; i += FILE_STEP)
        await file.append(await ctx.jobs.render(s, ctx.publications.registry, docs.slice(i, i + FILE_STEP), options, true));
    } catch (error) {
      await file.drop();
      throw error;
    }
    return {
      records: docs.length,
      output: { jobs: [], snapshot_watermark: s.watermark },
      keep: async () => ({ file: await file.keep() }),
      drop: () => file.drop(),
    };
  });
}

const getJob: Tool = {
  name: 'get_job',
  title: 'Get one job',
  description:
    'One job, whole, by job_id (a job merged into another answers the surviving job, with merged_from). ' +
    'One request and one record per call.',
  inputSchema: object(
    {
      job_id: { ...componentSchema('Uuid'), description: 'The job_id, a lowercase UUID.' },
      ...SHAPE,
      max_chars: MAX_CHARS,
      confirm: CONFIRM,
    },
    ['job_id'],
  ),
  outputSchema: spendingOutput({
    job: JOB,
    merged_from: { type: 'string', description: 'The job_id asked for, when it was merged into this job.' },
    snapshot_watermark: WATERMARK(),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (args, call) => {
    const options = readListOptions({ fields: args.fields, include: args.include }, { currentness: [] }, 'body');
    const asked = args.job_id as string;
    const spending = {
      tool: 'get_job',
      routeClass: 'jobs_get' as const,
      bound: 1,
      refine: () => Promise.resolve(1),
      confirmed: args.confirm === true,
    };
    return spend(call, spending, () =>
      onCatalog(call.ctx, async (s) => {
        const registry = call.ctx.publications.registry;
        let found = await call.ctx.jobs.one(s, registry, asked, options);
        // A merged job's redirect names the job that survives it: one step (HTTP answers it with 308).
        if ('redirect' in found) found = await call.ctx.jobs.one(s, registry, found.redirect, options);
        if ('redirect' in found) throw new Error(`job ${asked} redirects more than once`);
        const { data } = JSON.parse(found.json.toString('utf8')) as { data: { job_id: string; description?: unknown } };
        const output = { job: data, ...(data.job_id !== asked ? { merged_from: asked } : {}), snapshot_watermark: s.watermark };
        withinBudget(output, [data], args.max_chars as number | undefined);
        return { records: 1, output };
      }),
    );
  },
};

const countJobs: Tool = {
  name: 'count_jobs',
  title: 'Count jobs',
  description:
    'How many jobs match, exactly; with group_by, the 25 largest groups too; with interval, at each day or week. One request; no records.',
  inputSchema: object({
    ...FILTER_INPUTS,
    group_by: {
      type: 'string',
      enum: [...GROUP_BY],
      description: 'Also count per value (the 25 largest).',
    },
    interval: { enum: [...INTERVALS], description: 'Count at each day or week.' },
    start: { type: 'string', description: 'e.g. 2026-11-01.' },
    end: { type: 'string', description: 'e.g. 2026-11-30.' },
    confirm: CONFIRM,
  }),
  outputSchema: spendingOutput({
    count: { type: 'integer', minimum: 0 },
    ...EXPLAINED,
    groups: (componentSchema('JobCount') as { properties: Record<string, unknown> }).properties.groups as Record<string, unknown>,
    points: { type: 'array', items: { type: 'object' }, description: 'As GET /v1/jobs/trends.' },
    snapshot_watermark: WATERMARK(),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (args, call) => {
    const filters = filtersOf(args);
    const spending = {
      tool: 'count_jobs',
      routeClass: 'jobs_count' as const,
      bound: 0,
      refine: () => Promise.resolve(0),
      confirmed: args.confirm === true,
    };
    if (args.interval !== undefined || args.start !== undefined || args.end !== undefined)
      return countOverTime(call, args, filters, spending);
    return spend(call, spending, () =>
      onCatalog(call.ctx, async (s) => {
        const result = await call.ctx.jobs.count(s, filters, args.group_by as GroupBy | undefined);
        return {
          records: 0,
          output: {
            count: result.count,
            ...(result.groups ? { groups: result.groups } : {}),
            snapshot_watermark: s.watermark,
            ...(await explained(call.ctx, s, filters, result.count)),
          },
        };
      }),
    );
  },
};

const listFields: Tool = {
  name: 'list_fields',
  title: 'List filters and fields',
  description: 'The filters search_jobs and count_jobs take, with their rules; the job fields; the group_by values. Uses no requests.',
  inputSchema: object({}),
  outputSchema: object(
    {
      filters: {
        type: 'array',
        items: object({ name: { type: 'string' }, description: { type: 'string' }, schema: { type: 'object' } }, [
          'name',
          'description',
          'schema',
        ]),
      },
      fields: { type: 'array', items: object({ name: { type: 'string' }, description: { type: 'string' } }, ['name', 'description']) },
      group_by: { type: 'array', items: { type: 'string' } },
    },
    ['filters', 'fields', 'group_by'],
  ),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: () => {
    const job = componentSchema('Job') as { properties: Record<string, { description?: string }> };
    return Promise.resolve({
      filters: Object.entries(ALL_FILTERS).map(([name, schema]) => {
        const { description, ...rest } = schema;
        return { name, description: typeof description === 'string' ? description : '', schema: rest };
      }),
      fields: JOB_FIELDS.map((name) => ({ name, description: (job.properties[name]?.description ?? '').trim() })),
      group_by: [...GROUP_BY],
    });
  },
};

export const JOB_TOOLS: Tool[] = [searchJobs, getJob, countJobs, listFields];
