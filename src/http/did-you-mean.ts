// What an unknown parameter, JSON key or path was probably meant to be: a name other job APIs use for
// something this one calls otherwise (page → cursor), or the nearest known name or route (titel → title,
// /v1/job → /v1/jobs).

import { distance } from 'fastest-levenshtein';
import { nearest } from '../shared/nearest.js';

/**
 * Names other APIs use, with what this API calls them: the first candidate the route knows is suggested
 * (page is cursor on a list, after on the change feed). A candidate may be a parameter with its value.
 */
const OTHER_APIS: Record<string, readonly string[]> = {
  page: ['cursor', 'after'],
  offset: ['cursor', 'after'],
  start: ['cursor', 'after'],
  skip: ['cursor', 'after'],
  from: ['cursor', 'after'],
  page_token: ['cursor', 'after'],
  next: ['cursor', 'after'],
  next_cursor: ['cursor', 'after'],
  resume_cursor: ['after'],
  search_after: ['cursor'],
  cursor: ['after'],
  per_page: ['limit'],
  page_size: ['limit'],
  pagesize: ['limit'],
  size: ['limit'],
  count: ['limit'],
  max_results: ['limit'],
  rows: ['limit'],
  top: ['limit'],
  take: ['limit'],
  keyword: ['q'],
  keywords: ['q'],
  query: ['q'],
  search: ['q', 'name'],
  text: ['q'],
  term: ['q'],
  what: ['q'],
  remote: ['work_arrangement=remote'],
  hybrid: ['work_arrangement=hybrid'],
  onsite: ['work_arrangement=in_person'],
  on_site: ['work_arrangement=in_person'],
  where: ['location'],
  place: ['location'],
  region: ['state'],
  province: ['state'],
  country_code: ['country'],
  countries: ['country'],
  employer: ['company'],
  employer_name: ['company'],
  company_name: ['company', 'name'],
  organization: ['company'],
  salary: ['pay_min'],
  salary_min: ['pay_min'],
  min_salary: ['pay_min'],
  salary_max: ['pay_max'],
  max_salary: ['pay_max'],
  currency: ['pay_currency'],
  salary_currency: ['pay_currency'],
  date_posted: ['posted_since'],
  posted_after: ['posted_since'],
  posted_before: ['posted_until'],
  since: ['posted_since'],
  updated_after: ['updated_since'],
  modified_since: ['updated_since'],
  updated_before: ['updated_until'],
  job_type: ['employment_type'],
  type: ['employment_type', 'types'],
  employment: ['employment_type'],
  contract_type: ['employment_type'],
  order: ['sort'],
  order_by: ['sort'],
  orderby: ['sort'],
  sort_by: ['sort'],
  sortby: ['sort'],
  select: ['fields'],
  fl: ['fields'],
  _source: ['fields'],
  expand: ['include'],
  embed: ['include'],
  id: ['job_id'],
  ids: ['job_id'],
  status: ['currentness'],
};

/** What each suggested name is for, when the name alone does not say it. */
const WHAT_FOR: Record<string, string> = {
  cursor: 'send the next_cursor of the previous page; there are no page numbers',
  after: 'send the resume_cursor of the previous call',
  limit: 'the page size',
  q: 'a phrase in the title or the description',
};

/** "use 'cursor' (send the next_cursor of the previous page; ...)", "did you mean 'title'?", or undefined. */
export function suggestName(typed: string, known: readonly string[]): string | undefined {
  const other = OTHER_APIS[typed.toLowerCase()]?.find((candidate) => known.includes(candidate.split('=')[0]!));
  if (other) return `use '${other}'${WHAT_FOR[other] ? ` (${WHAT_FOR[other]})` : ''}`;
  // One letter is one edit from every other one-letter name (a → q): no guess for it.
  const meant = typed.length > 1 ? nearest(typed, known) : undefined;
  return meant ? `did you mean '${meant}'?` : undefined;
}

const segmentsOf = (path: string) => path.split('/').filter(Boolean);

/**
 * The cost of reading `typed` as the route `template`: the edits its literal segments need, Infinity when
 * one is not close enough to be what was meant (company → companies is; jobs → usage is not). A {param}
 * takes any segment.
 */
function cost(typed: string[], template: string[]): number {
  if (typed.length !== template.length) return Infinity;
  let total = 0;
  for (const [i, segment] of template.entries()) {
    if (segment.startsWith('{')) continue;
    const sent = typed[i]!.toLowerCase();
    if (sent === segment) continue;
    if (nearest(sent, [segment]) === undefined) return Infinity;
    total += distance(sent, segment);
  }
  return total;
}

/**
 * The route a path that matches none was probably meant to be, written with the path's own values:
 * /v1/company/<id> → /v1/companies/<id>, /jobs → /v1/jobs, /v2/jobs → /v1/jobs. Undefined when none is close.
 */
export function nearestRoute(path: string, templates: readonly string[]): string | undefined {
  const typed = segmentsOf(path);
  const readings = [typed, ['v1', ...typed], ['v1', ...typed.slice(1)]];
  let best: { template: string[]; reading: string[]; cost: number } | undefined;
  for (const template of new Set(templates)) {
    const parts = segmentsOf(template);
    for (const [n, reading] of readings.entries()) {
      // Adding or replacing the version costs an edit: a path that needs none wins.
      const c = cost(reading, parts) + (n === 0 ? 0 : 1);
      if (c < (best?.cost ?? Infinity) && c > 0) best = { template: parts, reading, cost: c };
    }
  }
  if (!best) return undefined;
  return '/' + best.template.map((segment, i) => (segment.startsWith('{') ? best.reading[i] : segment)).join('/');
}

/** The routes under a path that is only their beginning (/v1/usage → /v1/usage/requests, /v1/usage/analytics). */
export function routesUnder(path: string, templates: readonly string[]): string[] {
  const prefix = `/${segmentsOf(path).join('/').toLowerCase()}/`;
  return [...new Set(templates.filter((t) => t.startsWith(prefix)))];
}
