// The 20 tasks of the MCP agent evaluation (issue 22). Each has a goal as a person would ask it, a scripted
// agent that reaches an answer with tool calls only, the way a sensible agent would with the tools as
// they are (it reads tools/list, so it knows each tool's arguments; it asks for the fields it needs;
// it reads an error and corrects its arguments once), and a checker that computes the right answer
// through the REST API with another account's key. The scripted agents are the part to rewrite when
// the tools change; the goals and the checkers stay.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './cli.js';
import { equalCheck, sameSet, task, type Agent, type Check, type Checking, type Task } from './mcp-agent-kit.js';
import { countryName, money, stateName, type Sample } from './mcp-agent-sample.js';

// ---- What today's tools answer (src/mcp/tools/*.ts), as far as the agents read it.

interface Job {
  job_id: string;
  title?: string;
  description?: string;
  postings?: { application_url?: string | null; posted_at?: string }[];
}
interface Spending {
  status: 'done' | 'confirmation_required';
}
interface Page extends Spending {
  jobs: Job[];
  total?: number;
  handle?: string;
  file?: { file_id: string; jobs: number };
}
interface Counted extends Spending {
  count: number;
  groups?: { value: string | null; count: number }[];
}
interface FilePage {
  jobs: Job[];
  next_offset: number | null;
}
interface Docs {
  results: { source: string; title: string }[];
}

/** A spending call; asked to confirm (the session's confirmation level), the agent confirms: the user asked for it. */
async function spend<T extends Spending>(agent: Agent, tool: string, args: Record<string, unknown>): Promise<T> {
  const first = await agent.must<T>(tool, args);
  return first.status === 'confirmation_required' ? agent.must<T>(tool, { ...args, confirm: true }) : first;
}

const count = async (agent: Agent, filters: Record<string, unknown>) => (await spend<Counted>(agent, 'count_jobs', filters)).count;

/** Every matching job, a page of 25 (the most search_jobs gives) at a time: the answer says how many match, its handle pages on. */
async function allPages(agent: Agent, args: Record<string, unknown>): Promise<Job[]> {
  let page = await spend<Page>(agent, 'search_jobs', { ...args, limit: 25 });
  const jobs: Job[] = [...page.jobs];
  while (jobs.length < page.total! && page.jobs.length > 0) {
    page = await spend<Page>(agent, 'search_jobs', { handle: page.handle });
    jobs.push(...page.jobs);
  }
  return jobs;
}
const ids = (jobs: Job[]) => jobs.map((j) => j.job_id);

/** When a job was posted: its first posting's date (what "newest" means to a person looking for jobs). */
const postedAt = (job: Job) => (job.postings ?? []).flatMap((p) => (p.posted_at ? [p.posted_at] : [])).sort()[0] ?? '';

// ---- The tasks that read the catalog.

const CURRENTNESS = ['current', 'uncertain', 'not_current'];

const catalogTasks: Task<Sample>[] = [
  task({
    id: 'remote-title-state-pay',
    goal: (s) =>
      `How many remote "${s.remotePay.phrase}" jobs in ${stateName(s.remotePay.state)} pay at least ${money(s.remotePay.amount, 'USD')} a year?`,
    agent: (a, s) =>
      count(a, {
        title: s.remotePay.phrase,
        work_arrangement: 'remote',
        state: s.remotePay.state,
        pay_min: s.remotePay.amount,
        pay_currency: 'USD',
      }),
    check: async (answer, s, c) =>
      equalCheck(
        answer,
        await c.rest.count({
          title: s.remotePay.phrase,
          work_arrangement: 'remote',
          state: s.remotePay.state,
          pay_min: s.remotePay.amount,
          pay_currency: 'USD',
        }),
      ),
  }),
  task({
    id: 'newest-5-with-pay',
    goal: (s) => `Show me the 5 newest ${s.newest.phrase} jobs in ${stateName(s.newest.state)} that show their pay.`,
    // search_jobs says: by relevance with a text filter, "else newest first"; sort: updated asks for that order.
    // The compact jobs show the pay and the posting date: no fields needed.
    agent: async (a, s) =>
      ids(
        (
          await spend<Page>(a, 'search_jobs', {
            title: s.newest.phrase,
            state: s.newest.state,
            more_filters: { has_pay: true },
            sort: 'updated',
            limit: 5,
          })
        ).jobs,
      ),
    check: async (answer, s, c) => {
      const all = await c.rest.jobs<Job>({ title: s.newest.phrase, state: s.newest.state, has_pay: true }, ['postings']);
      all.sort((x, y) => postedAt(y).localeCompare(postedAt(x)) || y.job_id.localeCompare(x.job_id));
      const expected = ids(all.slice(0, 5));
      return { right: sameSet(answer, expected), expected, note: 'newest = posted last; a job was posted when its first posting was' };
    },
  }),
  task({
    id: 'jobs-at-employer',
    goal: (s) => `Find all the jobs at ${s.employer.name}.`,
    agent: async (a, s) => ids(await allPages(a, { company: s.employer.name, fields: ['job_id', 'title'] })),
    check: async (answer, s, c) => {
      const expected = ids(await c.rest.jobs({ company_id: s.employer.companyId }));
      return { right: sameSet(answer, expected), expected, note: `the current jobs linked to company ${s.employer.companyId}` };
    },
  }),
  task({
    id: 'description-by-title',
    goal: (s) => `Get me the full description of the "${s.titled.title}" job.`,
    agent: async (a, s) => {
      const { jobs } = await spend<Page>(a, 'search_jobs', {
        title: s.titled.title,
        limit: 5,
        fields: ['job_id', 'title', 'employer_name', 'description'],
      });
      const exact = jobs.find((j) => j.title?.toLowerCase() === s.titled.title.toLowerCase()) ?? jobs[0];
      return exact?.description ?? null;
    },
    check: async (answer, s, c) => {
      const { data } = await c.rest.get<{ data: Job }>(`/v1/jobs/${s.titled.jobId}`, { fields: 'description' });
      return { right: answer === data.description, expected: data.description };
    },
  }),
  task({
    id: 'application-link',
    goal: (s) => `What is the link to apply for job ${s.applyJobId}?`,
    agent: async (a, s) => {
      const { job } = await spend<Spending & { job: Job }>(a, 'get_job', { job_id: s.applyJobId, fields: ['job_id', 'title', 'postings'] });
      return (job.postings ?? []).find((p) => p.application_url)?.application_url ?? null;
    },
    check: async (answer, s, c) => {
      const { data } = await c.rest.get<{ data: Job }>(`/v1/jobs/${s.applyJobId}`);
      const expected = (data.postings ?? []).flatMap((p) => (p.application_url ? [p.application_url] : []));
      return { right: typeof answer === 'string' && expected.includes(answer), expected };
    },
  }),
  task({
    id: 'boolean-title',
    goal: (s) => `How many jobs have "${s.boolean.either[0]}" or "${s.boolean.either[1]}" in the title, but not "${s.boolean.not}"?`,
    agent: (a, s) =>
      count(a, { more_filters: { title_advanced: `(${s.boolean.either[0]} OR ${s.boolean.either[1]}) AND NOT ${s.boolean.not}` } }),
    check: async (answer, s, c) =>
      equalCheck(answer, await c.rest.count({ title_advanced: `(${s.boolean.either[0]} | ${s.boolean.either[1]}) & !${s.boolean.not}` })),
  }),
  task({
    id: 'nothing-matches',
    goal: (s) => `How many ${s.nothing.phrase} jobs are there in ${stateName(s.nothing.state)}? If none, why not?`,
    // None: the agent relaxes one filter at a time to say which one leaves nothing.
    agent: async (a, s) => {
      const n = await count(a, { title: s.nothing.phrase, state: s.nothing.state });
      if (n > 0) return { count: n, reason: null };
      if ((await count(a, { state: s.nothing.state })) === 0) return { count: 0, reason: 'no jobs in the state' };
      if ((await count(a, { title: s.nothing.phrase })) === 0) return { count: 0, reason: 'no jobs with that title' };
      return { count: 0, reason: 'none with both' };
    },
    check: async (answer, s, c) => {
      const n = await c.rest.count({ title: s.nothing.phrase, state: s.nothing.state });
      const reason =
        n > 0
          ? null
          : (await c.rest.count({ state: s.nothing.state })) === 0
            ? 'no jobs in the state'
            : (await c.rest.count({ title: s.nothing.phrase })) === 0
              ? 'no jobs with that title'
              : 'none with both';
      return equalCheck(answer, { count: n, reason });
    },
  }),
  task({
    id: 'pay-in-other-currency',
    goal: (s) =>
      `How many jobs in ${countryName(s.currency.country)} pay at least ${money(s.currency.amount, s.currency.currency)} a year?`,
    agent: (a, s) => count(a, { country: s.currency.country, pay_currency: s.currency.currency, pay_min: s.currency.amount }),
    check: async (answer, s, c) =>
      equalCheck(
        answer,
        await c.rest.count({ country: s.currency.country, pay_currency: s.currency.currency, pay_min: s.currency.amount }),
      ),
  }),
  task({
    id: 'part-time-in-state',
    goal: (s) => `How many part-time jobs are there in ${stateName(s.partTimeState)}?`,
    agent: (a, s) => count(a, { employment_type: 'part-time', state: s.partTimeState }),
    check: async (answer, s, c) => equalCheck(answer, await c.rest.count({ employment_type: 'part-time', state: s.partTimeState })),
  }),
  task({
    id: 'count-by-source-class',
    goal: () => 'How many jobs come from each kind of source (ATS, employer sites, aggregators, ...)?',
    agent: async (a) => {
      const { groups } = await spend<Counted>(a, 'count_jobs', { group_by: 'source_class' });
      return Object.fromEntries((groups ?? []).map((g) => [g.value ?? 'none', g.count]));
    },
    // Each class counted on its own with the source_class filter.
    check: async (answer, _s, c) => {
      const classes = ['ats', 'employer-site', 'government-exchange', 'aggregator', 'staffing-network'];
      classes.push('dataset', 'purchased', 'third-party-api', 'unknown');
      const expected: Record<string, number> = {};
      for (const value of classes) {
        const n = await c.rest.count({ source_class: value });
        if (n > 0) expected[value] = n;
      }
      const got = answer ?? {};
      const right = Object.keys(got).length === Object.keys(expected).length && Object.entries(expected).every(([k, n]) => got[k] === n);
      return { right, expected };
    },
  }),
  task({
    id: 'hybrid-city-last-7-days',
    goal: (s) =>
      `List the hybrid jobs in ${s.hybrid.city} (${countryName(s.hybrid.country)}) posted in the last 7 days (today is ${s.today}).`,
    agent: async (a, s) =>
      ids(
        await allPages(a, {
          work_arrangement: 'hybrid',
          city: s.hybrid.city,
          country: s.hybrid.country,
          posted_since: s.weekAgo,
          fields: ['job_id', 'title', 'employer_name'],
        }),
      ),
    check: async (answer, s, c) => {
      const expected = ids(
        await c.rest.jobs({ work_arrangement: 'hybrid', city: s.hybrid.city, country: s.hybrid.country, posted_since: s.weekAgo }),
      );
      return { right: sameSet(answer, expected), expected };
    },
  }),
  task({
    id: 'save-300-read-250th',
    goal: (s) =>
      `Save the first ${s.saveRead.save} jobs in ${countryName(s.saveRead.country)} to a file, then tell me which job is number ${s.saveRead.nth} in it.`,
    // It asks for 300 with limit; the error says a page is 1-25, so it saves without one (every match, up to 5,000).
    agent: async (a, s) => {
      const saved = await a.retrying<Page>(
        'search_jobs',
        { country: s.saveRead.country, save_to_file: true, limit: s.saveRead.save },
        (e) => (/limit/.test(e.message) ? { country: s.saveRead.country, save_to_file: true } : undefined),
      );
      if (!saved.file) return null;
      const page = await a.must<FilePage>('read_file', { file_id: saved.file.file_id, offset: s.saveRead.nth - 1, limit: 1 });
      return page.jobs[0]?.job_id ?? null;
    },
    check: async (answer, s, c) => {
      const first = await c.rest.jobs({ country: s.saveRead.country }, ['job_id'], s.saveRead.nth);
      return equalCheck(answer, first[s.saveRead.nth - 1]?.job_id ?? null);
    },
  }),
  task({
    id: 'sync-changes-since-yesterday',
    goal: (s) =>
      `Sync my copy of ${s.sync.name}'s jobs: which jobs changed (created, updated or expired) since yesterday (today is ${s.today})?`,
    // No tool reads the change feed: the agent lists the employer's jobs updated since yesterday, whatever their currentness.
    agent: async (a, s) =>
      ids(
        await allPages(a, {
          company: s.sync.name,
          more_filters: { updated_since: s.yesterday },
          currentness: CURRENTNESS,
          fields: ['job_id', 'currentness', 'job_updated_at'],
        }),
      ),
    check: async (answer, s, c) => {
      const expected = await changedJobs(c, s.sync.companyId, `${s.yesterday}T00:00:00Z`);
      return { right: sameSet(answer, expected), expected, note: `the change feed of company ${s.sync.companyId}` };
    },
  }),
];

/** The distinct jobs of the change feed's events after `since`, of one company. */
async function changedJobs(c: Checking, companyId: string, since: string): Promise<string[]> {
  const jobs = new Set<string>();
  let after: string | undefined;
  for (let more = true; more;) {
    const page = await c.rest.get<{ data: { job_id: string }[]; has_more: boolean; resume_cursor: string }>('/v1/jobs/changes', {
      ...(after ? { after } : { since }),
      company_id: companyId,
      limit: 1000,
    });
    for (const event of page.data) jobs.add(event.job_id);
    after = page.resume_cursor;
    more = page.has_more;
  }
  return [...jobs];
}

// ---- The account.

interface Standing {
  requests: { remaining: number };
  overage: { enabled: boolean; monthlyLimitUsd: number | null };
}

const accountTasks: Task<Sample>[] = [
  task({
    id: 'requests-left',
    goal: () => 'How many API requests do I have left this month?',
    agent: async (a) => (await a.must<Standing>('get_usage')).requests.remaining,
    // GET /v1/account with the agent's key counts one request itself: one more was left before it.
    check: async (answer, _s, c) => equalCheck(answer, (await c.rest.get<Standing>('/v1/account', {}, c.agentKey)).requests.remaining + 1),
  }),
  task({
    id: 'overage-on-50',
    goal: () => 'Turn overage billing on, with a limit of $50 a month.',
    agent: async (a) => {
      const status = await a.must<Standing['overage']>('set_overage', { enabled: true, monthlyLimitUsd: 50 });
      return { enabled: status.enabled, monthlyLimitUsd: status.monthlyLimitUsd };
    },
    check: async (answer, _s, c) => {
      const { overage } = await c.rest.get<Standing>('/v1/account', {}, c.agentKey);
      const expected = { enabled: true, monthlyLimitUsd: 50 };
      const stored = overage.enabled && overage.monthlyLimitUsd === 50;
      return {
        ...equalCheck(answer, expected),
        right: stored && equalCheck(answer, expected).right,
        note: `stored: ${JSON.stringify(overage)}`,
      };
    },
  }),
];

// ---- Questions about the API: search_docs, and the guide the answer cites (the first passage).

/** Right when the first passage comes from one of `guides`, or is the API reference's passage `reference` names. */
function docsTask(id: string, goal: string, query: string, guides: string[], reference?: RegExp) {
  const expected = [...guides, ...(reference ? [`openapi.yaml (${reference.source})`] : [])].join(' or ');
  return task({
    id,
    goal: () => goal,
    agent: async (a) => {
      const { results } = await a.must<Docs>('search_docs', { query });
      return results[0] ? { source: results[0].source, title: results[0].title } : null;
    },
    check: async (answer) => {
      // The guides exist (the expectation is not stale).
      for (const guide of guides) await readFile(join(ROOT, guide), 'utf8');
      const right =
        answer != null && (guides.includes(answer.source) || (answer.source === 'openapi.yaml' && reference?.test(answer.title) === true));
      return { right, expected } satisfies Check;
    },
  });
}

const docsTasks: Task<Sample>[] = [
  docsTask('docs-429', 'What does a 429 mean?', '429 error', ['docs/usage-and-limits.md', 'docs/errors.md']),
  docsTask('docs-filter-by-state', 'How do I filter jobs by state?', 'filter by state', ['docs/filters.md'], /parameter state\b/),
  docsTask('docs-export', 'How do I export jobs?', 'export jobs', ['docs/sync-and-exports.md']),
  docsTask('docs-overage', 'How does overage work?', 'overage billing', ['docs/usage-and-limits.md']),
  docsTask('docs-sync', 'How do I keep a copy in sync?', 'sync jobs', ['docs/sync-and-exports.md']),
];

export const TASKS: Task<Sample>[] = [...catalogTasks, ...accountTasks, ...docsTasks];
