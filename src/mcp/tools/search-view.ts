// What search_jobs answers an agent (issue 22: count and preview before spending): each job in a compact
// shape unless the call asks for fields, the number of jobs that match, and a handle that carries the
// search (its filters, sort, fields and where the next page starts), so that the agent pages or saves
// through it without sending the filters again. The handle is sealed like a cursor: it cannot be altered.

import type { AppContext } from '../../context.js';
import { invalidRequest } from '../../errors.js';
import type { JobField, JobFilters } from '../../jobs/filters.js';
import { analyze } from '../../search/analyze.js';

/** The inputs a handle carries: everything of the search but the call's own switches. */
const CALL_ONLY = ['handle', 'save_to_file', 'confirm'];

interface Handle {
  k: 'mcp_search';
  b: '';
  /** The search's inputs (filters, more_filters, limit, sort, fields, include). */
  a: Record<string, unknown>;
  /** Where its next page starts (the listing's cursor); null after the last page. */
  c: string | null;
}

/** The handle of a search whose next page starts at `cursor`. */
export function sealHandle(ctx: AppContext, args: Record<string, unknown>, cursor: string | null): string {
  const search = Object.fromEntries(Object.entries(args).filter(([k]) => !CALL_ONLY.includes(k)));
  return ctx.cursors.seal({ k: 'mcp_search', b: '', a: search, c: cursor } satisfies Handle);
}

/** The search a call continues: its own inputs, or those its handle carries, with the page to start at. */
export function searchOf(ctx: AppContext, args: Record<string, unknown>): { args: Record<string, unknown>; cursor: string | null } {
  if (args.handle === undefined) return { args, cursor: null };
  const others = Object.keys(args).filter((k) => !CALL_ONLY.includes(k));
  if (others.length > 0)
    throw invalidRequest(`send handle without ${others.join(', ')}: it carries the filters, limit, sort and fields of its search.`);
  const handle = ctx.cursors.opened<Handle>(args.handle as string, {
    kind: 'mcp_search',
    noun: 'search_jobs handle',
    binding: '',
    resend: 'pass handle exactly as received.',
  });
  if (handle.c === null && args.save_to_file !== true)
    throw invalidRequest('this search has no page after its last one; send the handle with save_to_file: true to save its jobs.');
  return { args: { ...handle.a, ...(args.confirm === undefined ? {} : { confirm: args.confirm }) }, cursor: handle.c };
}

/** The fields a compact job is made of. */
export const COMPACT_FIELDS: JobField[] = [
  'job_id',
  'title',
  'employer_name',
  'work_arrangement',
  'locations',
  'annual_pay',
  'job_first_seen_at',
  'postings',
];

interface FullJob {
  job_id: string;
  title: string | null;
  employer_name: string | null;
  work_arrangement: string | null;
  locations: { city: string | null; state: string | null; country: string | null }[];
  job_first_seen_at: string;
  annual_pay?: { currency: string; floor: number | null; ceiling: number | null } | null;
  postings: {
    posted_at: string | null;
    pay: { currency: string; floor: number | null; ceiling: number | null; interval: string } | null;
  }[];
}

const amount = (n: number | null) => (n === null ? '' : n.toLocaleString('en-US'));

/** A job in a line or two: who, what, where, for how much, since when; get_job has the whole of it. */
export function compactJob(job: FullJob): Record<string, unknown> {
  const [first, ...others] = job.locations ?? [];
  const place = first ? [first.city, first.state, first.country].filter((p) => p).join(', ') : null;
  const postings = job.postings ?? [];
  // Pay per year when a posting states it with its interval (comparable across jobs), else as stated.
  const pay = job.annual_pay ? { ...job.annual_pay, interval: 'year' } : postings.find((p) => p.pay)?.pay;
  const posted = postings.map((p) => p.posted_at).filter((d): d is string => typeof d === 'string');
  return {
    job_id: job.job_id,
    title: job.title ?? null,
    employer: job.employer_name ?? null,
    place: place && others.length > 0 ? `${place} (+${others.length} more)` : place,
    work_arrangement: job.work_arrangement ?? null,
    pay: pay ? `${pay.currency} ${[amount(pay.floor), amount(pay.ceiling)].filter((a) => a).join('-')} per ${pay.interval}` : null,
    posted: (posted.sort()[0] ?? job.job_first_seen_at).slice(0, 10),
  };
}

/** The text filters: an agent is shown the words they search for, as the index reads them. */
const TEXT_FILTERS = ['q', 'title', 'description'] as const;

/**
 * How the filters were understood: their values normalised (codes in capitals, lists sorted), the
 * defaults applied (currentness), and for a text filter the words searched, in order, as the index
 * reads them (stems, no stop words): an agent sees at once why a search found little.
 */
export function understood(filters: JobFilters): Record<string, unknown> {
  const out: Record<string, unknown> = { ...filters };
  for (const name of TEXT_FILTERS) {
    const text = filters[name];
    if (typeof text === 'string')
      out[name] = `${text} (searched as the words: ${analyze(text)
        .map((t) => t.lexeme)
        .join(' ')})`;
  }
  return out;
}

/**
 * For a search that matches nothing: the filter whose removal brings back the most jobs, and how many
 * (each counted on the same snapshot; none when no single filter is to blame).
 */
export async function widest(
  count: (filters: JobFilters) => Promise<number>,
  filters: JobFilters,
): Promise<{ without: string; jobs: number } | null> {
  let best: { without: string; jobs: number } | null = null;
  for (const name of Object.keys(filters).filter((n) => n !== 'currentness')) {
    const { [name]: _dropped, ...rest } = filters as Record<string, unknown>;
    const jobs = await count(rest as JobFilters);
    if (jobs > 0 && (best === null || jobs > best.jobs)) best = { without: name, jobs };
  }
  return best;
}

/** The input that bounds an answer's size (issue 22: answers within a budget). */
export const MAX_CHARS = {
  type: 'integer',
  minimum: 1000,
  description: 'e.g. 4000: long descriptions are cut ("…[cut]") to keep the answer near this size.',
};

const CUT = '…[cut]';

/**
 * Cuts the jobs' descriptions so that the answer fits in `maxChars` characters of JSON, the longest first
 * (each to the same length), marking each cut; the jobs themselves all stay (they are charged). Answers
 * whether anything was cut. An answer that does not fit even with every description cut keeps them cut.
 */
export function withinBudget(output: Record<string, unknown>, jobs: readonly object[], maxChars: number | undefined): boolean {
  if (maxChars === undefined) return false;
  const over = JSON.stringify(output).length - maxChars;
  const texts = (jobs as { description?: unknown }[]).filter((j): j is { description: string } => typeof j.description === 'string');
  if (over <= 0 || texts.length === 0) return false;
  const lengths = texts.map((j) => j.description.length).sort((a, b) => b - a);
  // The largest length L such that cutting every description to L (plus the marker) saves `over`.
  const saved = (limit: number) => lengths.reduce((sum, n) => sum + Math.max(0, n - limit - CUT.length), 0);
  let [low, high] = [0, lengths[0]!];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (saved(mid) >= over) low = mid;
    else high = mid - 1;
  }
  const limit = low;
  for (const job of texts) if (job.description.length > limit + CUT.length) job.description = job.description.slice(0, limit) + CUT;
  return true;
}
