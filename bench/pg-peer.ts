// The PostgreSQL peer of the benchmark: the same snapshot loaded into an embedded PostgreSQL 18
// (test/support/pg-catalog.ts: one jobs table, tsvectors with GIN indexes, B-tree indexes for the
// default order and the common filters), answering with the SQL an equivalent API request needs.
// Every value is bound, LIMIT included; each kind is a named prepared statement, as a server would
// keep them. query() times the client call alone: send, plan and run, receive and parse the rows.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres } from '../test/support/embedded-pg.js';
import type { BenchRequest } from './measure.js';
import { loadSnapshotIntoPostgres, TS_CONFIG, type LoadSummary } from '../test/support/pg-catalog.js';
import { stoppedWithBench } from './children.js';

export const PEER_KINDS = [
  'by_id',
  'page',
  'filtered_page',
  'search_title',
  'search_q',
  'search_description',
  'search_advanced',
  'count',
  'count_text',
] as const;
export type PeerKind = (typeof PEER_KINDS)[number];
export type PeerParams = Record<string, string | number>;

export interface PgPeer {
  load: LoadSummary;
  /** The database's URL (the HTTP front, bench/pg-peer-http.ts, connects to it). */
  url: string;
  /** Runs the SQL of one request; returns its wall time in milliseconds. */
  query(kind: string, params: PeerParams): Promise<number>;
  stop(): Promise<void>;
}

/** The page size of the API's default (50), plus one row to know whether a next page exists. */
const PAGE_ROWS = 51;
const CFG = `'${TS_CONFIG}'`;

/** A whole job as the API returns it: every stored column but the search ones. */
const ROW = `job_id, currentness, stale, company_id, employer_name, title, description, work_arrangement, locations, postings,
  job_first_seen_at, curated_at, job_updated_at`;

// Relevance as DESIGN.md 4 says: title (weight A) 1.0, description (weight D) 0.1; the array is {D, C, B, A}.
const RANK = `ts_rank('{0.1, 0, 0, 1.0}', document, q)`;

interface Statement {
  text: string;
  values: unknown[];
}

/** The structured filters of the bench's filtered scenarios, as conditions on the jobs table. */
function filterConditions(params: PeerParams, values: unknown[]): string[] {
  const bind = (value: unknown) => `$${values.push(value)}`;
  const list = (value: string | number) => String(value).split(',');
  const conditions = ["currentness = 'current'"];
  const country = params.country === undefined ? undefined : list(params.country).map((c) => c.toUpperCase());
  if (params.state !== undefined) {
    // Alone a state is a U.S. state; with a country, that country's subdivision (spec 4.2).
    const subdivisions = (country ?? ['US']).map((c) => `${c}-${String(params.state).toUpperCase()}`);
    conditions.push(`subdivisions && ${bind(subdivisions)}::text[]`);
  } else if (country) {
    conditions.push(`countries && ${bind(country)}::text[]`);
  }
  if (params.work_arrangement !== undefined) conditions.push(`work_arrangement = ${bind(params.work_arrangement)}`);
  if (params.employment_type !== undefined)
    conditions.push(`employment_types && ${bind(list(params.employment_type).map((t) => t.toLowerCase()))}::text[]`);
  if (params.source_class !== undefined) conditions.push(`source_classes @> ARRAY[${bind(params.source_class)}::text]`);
  if (params.pay_currency !== undefined || params.pay_min !== undefined) {
    // One posting with pay in that currency whose floor, per year, is at least pay_min.
    const pay: string[] = [];
    if (params.pay_currency !== undefined) pay.push(`p->'pay'->>'currency' = ${bind(params.pay_currency)}`);
    if (params.pay_min !== undefined) {
      pay.push(`(p->'pay'->>'floor')::float8 * CASE p->'pay'->>'interval' WHEN 'hour' THEN 2080 WHEN 'day' THEN 260 WHEN 'week' THEN 52
        WHEN 'month' THEN 12 WHEN 'year' THEN 1 END >= ${bind(Number(params.pay_min))}`);
    }
    conditions.push(`EXISTS (SELECT 1 FROM jsonb_array_elements(postings) p WHERE ${pay.join(' AND ')})`);
  }
  return conditions;
}

/** The names of the statements prepared so far, by their text: one named statement per text, as a server keeps them. */
const preparedNames = new Map<string, string>();

/** The request's SQL as a named prepared statement (pg prepares it on each connection on its first use). */
export function prepared(kind: PeerKind, params: PeerParams): Statement & { name: string } {
  const { text, values } = statement(kind, params);
  let name = preparedNames.get(text);
  if (name === undefined) preparedNames.set(text, (name = `peer_${preparedNames.size}`));
  return { name, text, values };
}

/** The SQL of each kind of request. */
function statement(kind: PeerKind, params: PeerParams): Statement {
  const values: unknown[] = [];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const text = String(params.text ?? '');
  let sql: string;
  switch (kind) {
    case 'by_id':
      // GET /v1/jobs/{id}
      sql = `SELECT ${ROW} FROM jobs WHERE job_id = ${bind(params.job_id)}`;
      break;
    case 'page':
      // GET /v1/jobs: current jobs, newest first (index jobs_default_order).
      sql = `SELECT ${ROW} FROM jobs WHERE currentness = 'current' ORDER BY job_updated_at DESC, job_id DESC LIMIT ${bind(PAGE_ROWS)}`;
      break;
    case 'filtered_page':
      // GET /v1/jobs?country=US&work_arrangement=remote ...
      sql = `SELECT ${ROW} FROM jobs WHERE ${filterConditions(params, values).join(' AND ')} ORDER BY job_updated_at DESC, job_id DESC LIMIT ${bind(PAGE_ROWS)}`;
      break;
    case 'search_title':
      // GET /v1/jobs?title=X: the phrase in the title, by relevance.
      sql = `SELECT ${ROW}, ${RANK} AS rank FROM jobs, phraseto_tsquery(${CFG}, ${bind(text)}) q
        WHERE currentness = 'current' AND title_tsv @@ q ORDER BY rank DESC, job_id DESC LIMIT ${bind(PAGE_ROWS)}`;
      break;
    case 'search_q':
      // GET /v1/jobs?q=X: the phrase in the title or in the description (a BitmapOr of the two GIN indexes).
      sql = `SELECT ${ROW}, ${RANK} AS rank FROM jobs, phraseto_tsquery(${CFG}, ${bind(text)}) q
        WHERE currentness = 'current' AND (title_tsv @@ q OR description_tsv @@ q) ORDER BY rank DESC, job_id DESC LIMIT ${bind(PAGE_ROWS)}`;
      break;
    case 'search_description':
      // GET /v1/jobs?description=X: every word in the description.
      sql = `SELECT ${ROW}, ${RANK} AS rank FROM jobs, plainto_tsquery(${CFG}, ${bind(text)}) q
        WHERE currentness = 'current' AND description_tsv @@ q ORDER BY rank DESC, job_id DESC LIMIT ${bind(PAGE_ROWS)}`;
      break;
    case 'search_advanced': {
      // GET /v1/jobs?title_advanced=X&sort=updated (description_advanced with params.field = description).
      const column = params.field === 'description' ? 'description_tsv' : 'title_tsv';
      sql = `SELECT ${ROW} FROM jobs WHERE currentness = 'current' AND ${column} @@ to_tsquery(${CFG}, ${bind(toTsqueryText(text))})
        ORDER BY job_updated_at DESC, job_id DESC LIMIT ${bind(PAGE_ROWS)}`;
      break;
    }
    case 'count':
      // GET /v1/jobs/count?country=US&work_arrangement=remote ...
      sql = `SELECT count(*) FROM jobs WHERE ${filterConditions(params, values).join(' AND ')}`;
      break;
    case 'count_text':
      // GET /v1/jobs/count?q=X
      sql = `SELECT count(*) FROM jobs, phraseto_tsquery(${CFG}, ${bind(text)}) q WHERE currentness = 'current' AND (title_tsv @@ q OR description_tsv @@ q)`;
      break;
    default:
      throw new Error(`the PostgreSQL peer has no query of kind ${String(kind)}`);
  }
  return { text: sql, values };
}

/**
 * Our Boolean syntax (AND OR NOT & | !, parentheses, word:*, "phrases", implicit AND) as to_tsquery
 * input: operators spelled & | !, adjacent operands joined by &, a quoted phrase as a quoted
 * to_tsquery operand (which PostgreSQL turns into a <-> chain).
 */
export function toTsqueryText(expression: string): string {
  const tokens = expression.match(/"[^"]*"|\(|\)|&|\||!|[^\s()&|!"]+/g) ?? [];
  const out: string[] = [];
  let operandEnded = false;
  for (const token of tokens) {
    const word = token.toUpperCase();
    const op = word === 'AND' || token === '&' ? '&' : word === 'OR' || token === '|' ? '|' : word === 'NOT' || token === '!' ? '!' : null;
    if (op === '&' || op === '|') {
      out.push(op);
      operandEnded = false;
      continue;
    }
    // An operand, an opening parenthesis or a NOT right after an operand: the implicit AND.
    if (token !== ')' && operandEnded) out.push('&');
    if (op === '!') out.push('!');
    else if (token.startsWith('"')) out.push(`'${token.slice(1, -1).replace(/'/g, "''")}'`);
    else out.push(token);
    operandEnded = op === null && token !== '(';
  }
  return out.join(' ');
}

/** Starts PostgreSQL in a temporary folder, loads the snapshot in `snapshotDir`, and answers the bench's requests. */
export async function startPgPeer(snapshotDir: string): Promise<PgPeer> {
  const dir = await mkdtemp(join(tmpdir(), 'jps-pg-peer-'));
  const { base, server } = await startEmbeddedPostgres(dir, {
    initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8'],
    // A server tuned as one would for a read-mostly catalog of a few GiB on this machine.
    postgresFlags: [
      '-c',
      'shared_buffers=1GB',
      '-c',
      'work_mem=64MB',
      '-c',
      'effective_cache_size=8GB',
      '-c',
      'random_page_cost=1.1',
      '-c',
      'jit=off',
    ],
  });
  const url = `${base}/postgres`;
  let client: pg.Client | undefined;
  try {
    const load = await loadSnapshotIntoPostgres(url, snapshotDir, { analyze: false });
    client = new pg.Client({ connectionString: url });
    await client.connect();
    // VACUUM sets the visibility map, so counts can be answered from the indexes alone.
    await client.query('VACUUM ANALYZE jobs');
    const connected = client;
    return {
      load,
      url,
      async query(kind, params) {
        const query = prepared(kind as PeerKind, params);
        const started = performance.now();
        await connected.query(query);
        return performance.now() - started;
      },
      async stop() {
        await connected.end();
        await server.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await client?.end();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

export interface PeerHttp {
  url: string;
  /** Keys of the peer's own key table, one per request in turn (as the bench spreads ours over accounts). */
  keys: string[];
  /** The request that asks the peer over HTTP what `query` asks PostgreSQL (measure() sends it with each of `keys` in turn). */
  request(query: { kind: string; params: PeerParams }): BenchRequest;
  close(): Promise<void>;
}

/** Starts the peer's HTTP front (bench/pg-peer-http.ts) in its own process, over `peer`'s database. */
export async function startPeerHttp(peer: PgPeer, keys = 200): Promise<PeerHttp> {
  const child = stoppedWithBench(
    spawn(process.execPath, ['--import', 'tsx', 'bench/pg-peer-http.ts', peer.url, String(keys)], {
      cwd: fileURLToPath(new URL('../', import.meta.url)),
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  const started = JSON.parse(line.toString()) as { url: string; keys: string[] };
  return {
    ...started,
    request: ({ kind, params }) => ({
      url: `${started.url}/${kind}?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()}`,
      method: 'GET',
      headers: { authorization: `Bearer ${started.keys[0]}` },
    }),
    async close() {
      child.kill('SIGTERM');
      await once(child, 'close');
    },
  };
}
