// The jobs read core, shared by the HTTP routes and the MCP tools: list (with paging), count (with
// groups) and one job, over one pinned catalog snapshot.
//
// A listing runs in two steps: the structured filters in DuckDB over the narrow serving tables
// (bound parameters) and the text filters in the inverted indexes; then the page's documents are
// read from the documents file by offset.

import { listValue, type DuckDBValue } from '@duckdb/node-api';
import { join } from 'node:path';
import { ApiError, invalidRequest } from '../errors.js';
import type { RegistryRelease } from '../catalog/publications.js';
import { intersect, union, type DocList } from '../search/doc-lists.js';
import type { DocTester, InvertedIndex } from '../search/inverted-index.js';

type DocIndex = Pick<InvertedIndex, 'evaluate'>;
import { and, parseAdvanced, phraseQuery, plainQuery, type Query } from '../search/query.js';
import { positiveLexemes } from '../search/query-terms.js';
import type { CursorSigner } from '../shared/cursor.js';
import type { QueryEngine } from '../db/engine.js';
import { FilterCache } from './filter-cache.js';
import { GROUPS, listed, type GroupBy } from './groups.js';
import { filterCondition, type Condition } from './filter-sql.js';
import { filtersKey, hasRankedText, type JobFilters, type ListOptions } from './filters.js';
import { andLexemes } from '../search/rank.js';
import { countOf, firstOf, firstOfAll, IN_DESCRIPTION, IN_TITLE, isCommonWord, limits, rankedList } from './ranked-lists.js';
import { rank, type TextMatch } from './ranking.js';
import { jsonItem, jsonList } from './json-bytes.js';
import type { JobsSnapshot } from './snapshot.js';

/** A response body, serialised: the jobs' JSON is spliced from the documents file as it is. */
export interface JsonBody {
  /** The answer's JSON as UTF-8 bytes: job documents are spliced into it as the documents file holds them. */
  json: Buffer;
  /** Jobs in the body: each counts one record (spec 8.2). */
  records: number;
}

const FILTER_CACHE_ENTRIES = 32;
/** How many filtered jobs a sort=updated text search may test one by one before evaluating every match. */
const TEXT_WALK = 20_000;

export class JobsService {
  private readonly filters: FilterCache;

  constructor(
    private readonly engine: QueryEngine,
    private readonly cursors: CursorSigner,
  ) {
    this.filters = new FilterCache(engine, FILTER_CACHE_ENTRIES);
  }

  /** The documents matching the text filters, or null when none is sent. */
  private textMatch(s: JobsSnapshot, f: JobFilters): TextMatch | null {
    const parts = textParts(f);
    if (parts.length === 0) return null;
    const lexemes = new Set<string>();
    for (const { query } of parts) for (const lexeme of positiveLexemes(query)) lexemes.add(lexeme);
    const ranked = parts.filter((p) => p.ranked).map((p) => p.query);
    return { docs: textDocs(s, f)!, ranking: ranked.length === 1 ? ranked[0]! : and(ranked), lexemes };
  }

  /**
   * The text filters as a test of one document at a time, with an upper bound of their matches (every
   * document passes when none is sent); null when a part is cheaper to evaluate whole (InvertedIndex.tester).
   */
  private textTester(s: JobsSnapshot, f: JobFilters): DocTester | null {
    const testers: DocTester[] = [];
    for (const { fields, query } of textParts(f)) {
      const each = fields.map((field) => s[field].tester(query));
      if (each.includes(null)) return null;
      const [a, b] = each as DocTester[];
      testers.push(b ? { bound: a!.bound + b.bound, has: (doc) => a!.has(doc) || b.has(doc) } : a!);
    }
    if (testers.length === 0) return { bound: s.size, has: () => true };
    return { bound: Math.min(...testers.map((t) => t.bound)), has: (doc) => testers.every((t) => t.has(doc)) };
  }

  /**
   * The ranked text of a request that impact-ordered lists answer (src/jobs/ranked-lists.ts): its only
   * text filter is one common word (q, title or description), or a description of several words, all
   * common (not a phrase: its matches are few next to its words' lists, so walking them costs more). Null for any other request.
   */
  private rankedText(
    s: JobsSnapshot,
    f: JobFilters,
  ): { first: (marks: Uint8Array, k: number) => number[]; count?: (marks: Uint8Array) => number } | null {
    if (!limits.impactOrdered || f.title_advanced !== undefined || f.description_advanced !== undefined) return null;
    const sent = (['q', 'title', 'description'] as const).filter((name) => f[name] !== undefined);
    if (sent.length !== 1) return null;
    const name = sent[0]!;
    const query = name === 'description' ? plainQuery(f.description!) : phraseQuery(f[name]!);
    const inFields = name === 'q' ? IN_TITLE | IN_DESCRIPTION : name === 'title' ? IN_TITLE : IN_DESCRIPTION;
    if (query.kind === 'term' && !query.prefix) {
      const list = rankedList(s, query.lexeme);
      return list && { first: (marks, k) => firstOf(list, inFields, marks, k), count: (marks) => countOf(list, inFields, marks) };
    }
    // A phrase is left to the general path: its matches are few next to its words' lists.
    const words = query.kind === 'and' && query.args.every((a) => a.kind === 'term') ? andLexemes(query) : null;
    if (!words || !words.every((w) => isCommonWord(s, w))) return null;
    const lists = words.map((w) => rankedList(s, w)!);
    return { first: (marks, k) => firstOfAll(s, words, lists, inFields, marks, k) };
  }

  /** The text matches that pass the structured filters, ascending. */
  private async filteredMatches(s: JobsSnapshot, condition: Condition, text: TextMatch): Promise<DocList> {
    if (text.docs.length === 0) return text.docs;
    const marks = await this.filters.marks(s, condition);
    const out = new Uint32Array(text.docs.length);
    let n = 0;
    for (let i = 0; i < text.docs.length; i++) {
      const doc = text.docs[i]!;
      if (marks[doc] === 1) out[n++] = doc;
    }
    return out.subarray(0, n);
  }

  /** A page of jobs: `{"data": [...], "next_cursor", "snapshot_watermark"}`. */
  async list(s: JobsSnapshot, registry: RegistryRelease | null, route: string, f: JobFilters, o: ListOptions): Promise<JsonBody> {
    if (o.descriptionFormat === 'html') throw new ApiError('format_unavailable');
    const scope = { route, watermark: s.watermark, binding: JSON.stringify([filtersKey(f), o.fields, o.include, o.sort, o.limit]) };
    const at = o.cursor === null ? null : this.cursors.verify(o.cursor, scope);
    const { docs, positions } = await this.select(s, f, o.sort, at, o.limit + 1);
    const more = docs.length > o.limit;
    const page = docs.slice(0, o.limit);
    const data = await this.render(s, registry, page, o);
    const tail = JSON.stringify({
      next_cursor: more ? this.cursors.sign(scope, positions[o.limit - 1]!) : null,
      snapshot_watermark: s.watermark,
    });
    return { json: jsonList(data, tail), records: data.length };
  }

  /**
   * Up to `n` matching documents in the order of the listing, after the cursor position `at` (null: from
   * the first), each with the cursor position after it: its ord (sort=updated) or how many ranked jobs
   * come up to it (sort=relevance). Exports read the same order as paging.
   */
  async select(
    s: JobsSnapshot,
    f: JobFilters,
    sort: ListOptions['sort'],
    at: number | null,
    n: number,
  ): Promise<{ docs: number[]; positions: number[] }> {
    const condition = filterCondition(f, s.prefix, s.codes);
    const fast = sort === 'relevance' ? this.rankedText(s, f) : null;
    if (sort === 'updated') {
      // Walk the default order testing each filtered job (marks from the filter cache after the first
      // page), when the text (if any) matches enough jobs to find n within TEXT_WALK of them; else, or
      // when the walk runs out, evaluate every text match.
      const marks = await this.filters.marks(s, condition);
      const inOrder = (ords: number[]) => ({ docs: ords.map((ord) => s.docOfOrd[ord]!), positions: ords });
      if (textParts(f).length === 0) return inOrder(firstInOrder(s, marks, () => true, at ?? -1, n, Number.POSITIVE_INFINITY)!);
      const tester = this.textTester(s, f);
      const walk = tester !== null && (n * s.size) / Math.max(1, tester.bound) <= TEXT_WALK / 4;
      let ords = walk ? firstInOrder(s, marks, tester.has, at ?? -1, n, TEXT_WALK) : null;
      ords ??= pageInOrder(s, await this.filteredMatches(s, condition, this.textMatch(s, f)!), at ?? -1, n);
      return inOrder(ords);
    }
    const start = at ?? 0;
    let ranked: number[];
    if (fast) ranked = fast.first(await this.filters.marks(s, condition), start + n);
    else {
      const text = this.textMatch(s, f);
      if (!hasRankedText(f) || text === null) throw invalidRequest('sort=relevance needs q, title or description.');
      ranked = rank(s, await this.filteredMatches(s, condition, text), text, start + n);
    }
    const docs = ranked.slice(start, start + n);
    return { docs, positions: docs.map((_, i) => start + i + 1) };
  }

  async count(
    s: JobsSnapshot,
    f: JobFilters,
    groupBy: GroupBy | undefined,
  ): Promise<{ count: number; groups?: { value: string | null; count: number }[] }> {
    const condition = filterCondition(f, s.prefix, s.codes);
    const fast = groupBy ? null : this.rankedText(s, f)?.count;
    if (fast) return { count: fast(await this.filters.marks(s, condition)) };
    const text = this.textMatch(s, f);
    const params: Record<string, DuckDBValue> = { ...condition.params };
    let restrict = '';
    if (text !== null) {
      if (text.docs.length === 0) return groupBy ? { count: 0, groups: [] } : { count: 0 };
      if (groupBy) {
        // Groups need the matching jobs in SQL: the text matches go in as one bound list.
        params.docs = listOf(text.docs);
        restrict = ' AND j.doc IN (SELECT unnest($docs))';
      }
    }
    if (!groupBy) {
      if (text !== null) return { count: (await this.filteredMatches(s, condition, text)).length };
      const marks = this.filters.cached(s, condition);
      if (marks) return { count: countMarked(marks) };
      const [[count]] = (await this.engine.rows(
        `SELECT count(*)::INTEGER FROM ${s.prefix}jobs j WHERE ${condition.sql}`,
        condition.params,
      )) as [[number]];
      return { count };
    }
    const matching = matchingSql(s.prefix, condition.sql + restrict, groupBy);
    const rows = await this.engine.rows(
      `WITH m AS MATERIALIZED (${matching}), g AS (${groupedSql(groupBy, s.prefix)})
       SELECT (SELECT count(*) FROM m)::INTEGER, value, n::INTEGER FROM g ORDER BY n DESC, value ASC NULLS LAST LIMIT 25`,
      params,
    );
    const count = rows.length > 0 ? (rows[0]![0] as number) : 0;
    return { count, groups: rows.map((r) => ({ value: (r[1] as string | null) ?? null, count: r[2] as number })) };
  }

  /** One job: 200, or 308 to the job it merged into, 410 withdrawn, 404 never published. */
  async one(
    s: JobsSnapshot,
    registry: RegistryRelease | null,
    jobId: string,
    o: Pick<ListOptions, 'fields' | 'include' | 'descriptionFormat'>,
  ): Promise<JsonBody | { redirect: string }> {
    const doc = s.docById.get(jobId);
    if (doc === undefined) {
      const [redirect] = await this.engine.rows(`SELECT to_job_id FROM ${s.prefix}redirects WHERE from_job_id = $id`, { id: jobId });
      if (redirect) return { redirect: redirect[0] as string };
      const [withdrawn] = await this.engine.rows(`SELECT 1 FROM ${s.prefix}withdrawn WHERE job_id = $id`, { id: jobId });
      if (withdrawn) throw new ApiError('job_withdrawn');
      throw new ApiError('job_not_found');
    }
    if (o.descriptionFormat === 'html') throw new ApiError('format_unavailable');
    const [data] = await this.render(s, registry, [doc], o);
    return { json: jsonItem(data!, JSON.stringify({ snapshot_watermark: s.watermark })), records: 1 };
  }

  /**
   * The jobs as JSON (UTF-8 bytes), in the shape asked for: fields, include=company / source_data. `bulk`
   * for an export's or an MCP file's batches: read around the documents kept in memory (line-file.ts).
   */
  async render(
    s: JobsSnapshot,
    registry: RegistryRelease | null,
    docs: number[],
    o: Pick<ListOptions, 'fields' | 'include'>,
    bulk = false,
  ): Promise<Buffer[]> {
    const onlyIds = o.fields !== null && o.fields.length === 1 && o.fields[0] === 'job_id';
    if (onlyIds) return docs.map((d) => Buffer.from(JSON.stringify({ job_id: s.jobIds[d] })));
    const lines = await s.readDocuments(docs, bulk);
    // The default shape is the documents' as read (the snapshot leaves out an unstated work_arrangement): spliced, not parsed.
    if (o.fields === null && o.include.length === 0) return lines;
    const jobs = lines.map((line) => JSON.parse(line.toString('utf8')) as Record<string, unknown>);
    if (o.include.includes('source_data')) {
      const sourceData = await s.readSourceData(docs);
      jobs.forEach((job, i) => (job.postings as Record<string, unknown>[]).forEach((p, k) => (p.source_data = sourceData[i]![k])));
    }
    const withCompany = o.include.includes('company') || (o.fields?.includes('company') ?? false);
    const companies = withCompany
      ? await this.companies(
          registry,
          jobs.map((j) => j.company_id as string | null),
        )
      : new Map<string, unknown>();
    return jobs.map((job) => Buffer.from(JSON.stringify(shape(job, o, companies))));
  }

  private async companies(registry: RegistryRelease | null, ids: (string | null)[]): Promise<Map<string, unknown>> {
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
    const found = new Map<string, unknown>();
    if (!registry || wanted.length === 0) return found;
    const file = join(registry.dir, 'companies.parquet');
    const redirects = join(registry.dir, 'redirects.parquet');
    const rows = await this.engine.rows(
      `WITH wanted AS (SELECT unnest($ids) AS asked),
            target AS (SELECT asked, coalesce(r.to_company_id, asked) AS company_id FROM wanted LEFT JOIN read_parquet($redirects) r ON r.from_company_id = asked)
       SELECT t.asked, to_json(c)::VARCHAR FROM target t JOIN read_parquet($file) c USING (company_id)`,
      { ids: listOf(wanted), file, redirects },
    );
    for (const [asked, json] of rows) found.set(asked as string, JSON.parse(json as string));
    return found;
  }
}

/**
 * The matching jobs with what `groupBy` reads, from the serving tables named with `prefix` (`condition`:
 * on the job row j). Only that: every column more is copied for every matching job.
 */
const matchingSql = (prefix: string, condition: string, groupBy: GroupBy) =>
  `SELECT j.${GROUPS[groupBy].column} FROM ${prefix}jobs j WHERE ${condition}`;

/** The count of each group of the matching jobs `m` (matchingSql): `value`, `n`. */
function groupedSql(groupBy: GroupBy, p: string): string {
  const source = GROUPS[groupBy];
  const { column } = source;
  switch (source.shape) {
    case 'one':
      return source.name
        ? `SELECT ${source.name('value')} AS value, sum(n) AS n FROM (SELECT ${column} AS value, count(*) AS n FROM m GROUP BY ALL) GROUP BY ALL`
        : `SELECT ${column} AS value, count(*) AS n FROM m GROUP BY ALL`;
    case 'list':
      return `SELECT value, count(*) AS n FROM (SELECT ${listed(column)} AS value FROM m) GROUP BY ALL`;
    case 'coded':
      // The codes counted, then named from the codes table.
      return `SELECT c.value AS value, g.n FROM (SELECT code, count(*) AS n FROM (SELECT unnest(${column}) AS code FROM m) GROUP BY ALL) g
        LEFT JOIN ${p}codes c ON c.kind = '${source.kind}' AND c.code = g.code`;
  }
}

/** The documents of `indexes` matching the text filters, or null when none is sent. */
export function textDocs(indexes: { title: DocIndex; description: DocIndex }, f: JobFilters): DocList | null {
  let docs: DocList | null = null;
  for (const { fields, query } of textParts(f)) {
    const lists = fields.map((field) => indexes[field].evaluate(query));
    const part = lists.length === 1 ? lists[0]! : union(lists[0]!, lists[1]!);
    docs = docs === null ? part : intersect(docs, part);
  }
  return docs;
}

/** The text filters of a request: each a query on the title, the description, or either (q). */
export function textParts(f: JobFilters): { fields: ('title' | 'description')[]; query: Query; ranked: boolean }[] {
  const parts: { fields: ('title' | 'description')[]; query: Query; ranked: boolean }[] = [];
  if (f.title !== undefined) parts.push({ fields: ['title'], query: phraseQuery(f.title), ranked: true });
  if (f.title_advanced !== undefined) parts.push({ fields: ['title'], query: parseAdvanced(f.title_advanced), ranked: false });
  if (f.description !== undefined) parts.push({ fields: ['description'], query: plainQuery(f.description), ranked: true });
  if (f.description_advanced !== undefined)
    parts.push({ fields: ['description'], query: parseAdvanced(f.description_advanced), ranked: false });
  if (f.q !== undefined) parts.push({ fields: ['title', 'description'], query: phraseQuery(f.q), ranked: true });
  return parts;
}

/** A job document (as the snapshot reads it: an unstated work_arrangement already left out) cut to the projection. */
function shape(
  job: Record<string, unknown>,
  o: Pick<ListOptions, 'fields' | 'include'>,
  companies: Map<string, unknown>,
): Record<string, unknown> {
  const withCompany = o.include.includes('company') || (o.fields?.includes('company') ?? false);
  if (withCompany) job.company = job.company_id ? (companies.get(job.company_id as string) ?? null) : null;
  if (o.fields === null) return job;
  const out: Record<string, unknown> = { job_id: job.job_id };
  for (const field of o.fields) if (field in job) out[field] = job[field];
  if (o.include.includes('company')) out.company = job.company;
  return out;
}

function countMarked(marks: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < marks.length; i++) count += marks[i]!;
  return count;
}

/**
 * Up to `n` ords after `after`, ascending, of the marked documents that pass `test`, looking at no more
 * than `budget` marked documents; null when the budget ran out first.
 */
function firstInOrder(
  s: JobsSnapshot,
  marks: Uint8Array,
  test: (doc: number) => boolean,
  after: number,
  n: number,
  budget: number,
): number[] | null {
  const out: number[] = [];
  let ord = after + 1;
  for (; ord < s.size && out.length < n && budget > 0; ord++) {
    const doc = s.docOfOrd[ord]!;
    if (marks[doc] !== 1) continue;
    budget--;
    if (test(doc)) out.push(ord);
  }
  return out.length === n || ord === s.size ? out : null;
}

/** Up to `n` ords after `after`, ascending, of the documents `docs` (ascending by doc). */
function pageInOrder(s: JobsSnapshot, docs: DocList, after: number, n: number): number[] {
  if (docs.length <= 4096) {
    return Array.from(docs, (d) => s.ordOfDoc[d]!)
      .filter((ord) => ord > after)
      .sort((a, b) => a - b)
      .slice(0, n);
  }
  // Many matches: walk the default order and take the first n that match.
  const marked = new Uint8Array(s.size);
  for (const doc of docs) marked[doc] = 1;
  const out: number[] = [];
  for (let ord = after + 1; ord < s.size && out.length < n; ord++) if (marked[s.docOfOrd[ord]!] === 1) out.push(ord);
  return out;
}

function listOf(values: ArrayLike<number> | string[]): DuckDBValue {
  return listValue(Array.from(values as ArrayLike<number | string>));
}
