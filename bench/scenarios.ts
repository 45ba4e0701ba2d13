// The fixed request mix: one scenario per route class, each a seeded list of requests drawn from
// the catalog under benchmark (job ids, employers, words of titles and descriptions), sent in turn.
// Each request also says what the PostgreSQL peer runs for it (bench/pg-peer.ts), so both answer
// the same questions in the same run.

import { Duck } from '../src/db/duckdb.js';
import type { BenchRequest } from './measure.js';
import type { BenchService } from './service.js';

export interface PeerQuery {
  kind: string;
  params: Record<string, string | number>;
}

export interface Scenario {
  name: string;
  requests: { request: BenchRequest; peer?: PeerQuery }[];
  /** Requests sent with one key before the next (measure's RUN_PER_KEY by default). */
  perKey?: number;
}

/** A small seeded generator (mulberry32): the same mix on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface CatalogSample {
  jobIds: string[];
  titlePhrases: string[];
  titleWords: string[];
  descriptionWords: string[];
}

/** Draws what the requests ask for from the snapshot itself. */
export async function sampleCatalog(snapshotDir: string): Promise<CatalogSample> {
  const duck = await Duck.open({ threads: 2, memoryLimit: '4GB' });
  try {
    const files = `'${snapshotDir.replace(/'/g, "''")}/jobs*.parquet'`;
    const ids = await duck.all<{ job_id: string }>(
      `SELECT job_id FROM ${files} WHERE currentness = 'current' USING SAMPLE reservoir(300 ROWS) REPEATABLE (7) ORDER BY job_id`,
    );
    const titles = await duck.all<{ phrase: string }>(
      `SELECT phrase FROM (SELECT lower(regexp_extract(title, '([A-Za-z]+ [A-Za-z]+)$', 1)) AS phrase, count(*) AS n FROM ${files} GROUP BY 1)
       WHERE phrase <> '' ORDER BY n DESC, phrase LIMIT 40`,
    );
    const words = await duck.all<{ word: string }>(
      `SELECT word FROM (SELECT lower(unnest(string_split(title, ' '))) AS word FROM ${files} LIMIT 200000)
       WHERE length(word) > 4 AND regexp_matches(word, '^[a-z]+$') GROUP BY word ORDER BY count(*) DESC, word LIMIT 40`,
    );
    const described = await duck.all<{ word: string }>(
      `SELECT word FROM (SELECT lower(unnest(string_split(description, ' '))) AS word FROM (SELECT description FROM ${files} LIMIT 5000))
       WHERE length(word) > 5 AND regexp_matches(word, '^[a-z]+$') GROUP BY word ORDER BY count(*) DESC, word LIMIT 200`,
    );
    return {
      jobIds: ids.map((r) => r.job_id),
      titlePhrases: titles.map((r) => r.phrase),
      titleWords: words.map((r) => r.word),
      // Common words ("experience") and rarer ones (the tail of the 200 most frequent).
      descriptionWords: described.map((r) => r.word),
    };
  } finally {
    duck.close();
  }
}

/** What every request pays before the catalog: no key, and a key with validation and a store transaction. */
function keyScenarios(url: string, auth: { authorization: string }): Scenario[] {
  return [
    { name: 'health (no key)', requests: [{ request: { url: `${url}/healthz`, method: 'GET' } }] },
    {
      name: 'overage PUT (key + validation + store transaction)',
      // An account's overage setting changes at most 10 times a minute.
      perKey: 5,
      requests: [
        {
          request: {
            url: `${url}/v1/account/overage`,
            method: 'PUT',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ enabled: true, monthlyLimitUsd: 250 }),
          },
        },
      ],
    },
  ];
}

export function scenarios(service: Pick<BenchService, 'url' | 'key'>, sample: CatalogSample | null, feedStarts: string[] = []): Scenario[] {
  const auth = { authorization: `Bearer ${service.key}` };
  const get = (path: string, peer?: PeerQuery) => ({
    request: { url: `${service.url}${path}`, method: 'GET' as const, headers: auth },
    peer,
  });
  const base = keyScenarios(service.url, auth);
  if (!sample) return base;
  const rnd = random(20261122);
  const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)]!;
  const times = <T>(n: number, make: () => T) => Array.from({ length: n }, make);
  const enc = encodeURIComponent;
  const filters: [string, Record<string, string | number>][] = [
    ['country=US&work_arrangement=remote', { country: 'US', work_arrangement: 'remote' }],
    ['state=CA', { country: 'US', state: 'CA' }],
    ['employment_type=part-time', { employment_type: 'part-time' }],
    ['has_pay=true&pay_currency=USD&pay_min=80000', { pay_currency: 'USD', pay_min: 80000 }],
    ['source_class=aggregator', { source_class: 'aggregator' }],
    ['work_arrangement=hybrid&country=GB', { country: 'GB', work_arrangement: 'hybrid' }],
  ];
  const common = ['manager', 'experience', ...sample.descriptionWords.slice(0, 8)];
  const rare = sample.descriptionWords.slice(100);
  return [
    ...base,
    {
      name: 'job by id',
      requests: times(200, () => pick(sample.jobIds)).map((id) => get(`/v1/jobs/${id}`, { kind: 'by_id', params: { job_id: id } })),
    },
    { name: 'page of 50 (default order)', requests: [get('/v1/jobs', { kind: 'page', params: {} })] },
    {
      name: 'filtered page of 50',
      requests: filters.map(([query, params]) => get(`/v1/jobs?${query}`, { kind: 'filtered_page', params })),
    },
    {
      name: 'search: title phrase',
      requests: times(40, () => pick(sample.titlePhrases)).map((phrase) =>
        get(`/v1/jobs?title=${enc(phrase)}`, { kind: 'search_title', params: { text: phrase } }),
      ),
    },
    {
      name: 'search: q (common and rare words)',
      requests: times(40, () => (rnd() < 0.5 ? pick(common) : pick(rare))).map((word) =>
        get(`/v1/jobs?q=${enc(word)}`, { kind: 'search_q', params: { text: word } }),
      ),
    },
    {
      name: 'search: description (two words)',
      requests: times(40, () => `${pick(common)} ${pick(rare)}`).map((words) =>
        get(`/v1/jobs?description=${enc(words)}`, { kind: 'search_description', params: { text: words } }),
      ),
    },
    {
      name: 'search: advanced',
      requests: times(40, () => `${pick(sample.titleWords)} | ${pick(sample.titleWords)} !${pick(sample.titleWords)}`).map((expr) =>
        get(`/v1/jobs?title_advanced=${enc(expr)}&sort=updated`, { kind: 'search_advanced', params: { text: expr } }),
      ),
    },
    { name: 'count', requests: filters.map(([query, params]) => get(`/v1/jobs/count?${query}`, { kind: 'count', params })) },
    {
      name: 'count with text',
      requests: times(40, () => pick(common)).map((word) =>
        get(`/v1/jobs/count?q=${enc(word)}`, { kind: 'count_text', params: { text: word } }),
      ),
    },
    ...trendScenarios(
      get,
      filters.map(([query]) => query),
      times(6, () => pick(common)),
    ),
    // From the start of the log and from cursors deeper in it (bench/exports.ts); no PostgreSQL peer.
    ...(feedStarts.length > 0
      ? [{ name: 'changes: page of 1,000 events', requests: feedStarts.map((start) => get(`/v1/jobs/changes?${start}&limit=1000`)) }]
      : []),
  ];
}

/**
 * Counts over the retained publications (one point a day; with --days 30, thirty): the count's filter
 * sets, groups (of codes, of strings, of lists), weeks, common words, and groups of a word's matches. No
 * PostgreSQL peer: it holds one snapshot, not their history.
 */
function trendScenarios(get: (path: string) => Scenario['requests'][number], filters: string[], words: string[]): Scenario[] {
  return [
    {
      name: 'trends (daily, count filters)',
      requests: [...filters, '', 'currentness=current,uncertain,not_current'].map((query) => get(`/v1/jobs/trends?${query}`)),
    },
    {
      name: 'trends: group_by',
      requests: [
        get('/v1/jobs/trends?group_by=state&country=US'),
        get('/v1/jobs/trends?group_by=soc_major'),
        get('/v1/jobs/trends?interval=week&group_by=work_arrangement'),
        get('/v1/jobs/trends?group_by=employer'),
        get('/v1/jobs/trends?group_by=skills&country=US'),
        get('/v1/jobs/trends?group_by=pay_band&pay_currency=USD'),
        get('/v1/jobs/trends?group_by=msa'),
      ],
    },
    {
      name: 'trends: text',
      requests: [
        ...words.map((word) => get(`/v1/jobs/trends?q=${encodeURIComponent(word)}`)),
        ...words.slice(0, 2).map((word) => get(`/v1/jobs/trends?group_by=employment_type&q=${encodeURIComponent(word)}`)),
      ],
    },
  ];
}
