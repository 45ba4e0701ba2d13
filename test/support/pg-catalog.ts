// Loads a catalog snapshot's jobs into PostgreSQL with the text search of DESIGN.md 4: the oracle of
// the search tests and the peer of the benchmark.
//
// Rows stream from the snapshot's Parquet files through DuckDB chunk by chunk and go in as
// batches of bound arrays (INSERT ... SELECT FROM unnest), so a million descriptions never sit
// in memory at once. PostgreSQL computes the tsvectors itself: they are the reference.

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { Duck } from '../../src/db/duckdb.js';

/** The text search configuration of DESIGN.md 4: english, with accents folded before stemming. */
export const TS_CONFIG = 'jps_english';

const CONFIG_SQL = [
  'CREATE EXTENSION IF NOT EXISTS unaccent',
  `DO $$ BEGIN
     IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = '${TS_CONFIG}') THEN
       CREATE TEXT SEARCH CONFIGURATION ${TS_CONFIG} (COPY = english);
       ALTER TEXT SEARCH CONFIGURATION ${TS_CONFIG} ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem;
     END IF;
   END $$`,
];

// Unlogged: the table is rebuilt from the snapshot whenever needed, so crash safety buys nothing
// and WAL would only slow the load.
const TABLE_SQL = `CREATE UNLOGGED TABLE jobs (
  job_id uuid PRIMARY KEY,
  currentness text NOT NULL,
  stale boolean,
  company_id uuid,
  employer_name text,
  title text,
  description text,
  work_arrangement text,
  locations jsonb,
  postings jsonb,
  job_first_seen_at timestamptz,
  curated_at timestamptz,
  job_updated_at timestamptz NOT NULL,
  title_tsv tsvector,
  description_tsv tsvector,
  document tsvector NOT NULL,
  countries text[] NOT NULL,
  subdivisions text[] NOT NULL,
  employment_types text[] NOT NULL,
  source_classes text[] NOT NULL
)`;

/** The columns read from Parquet, in the order of the unnest arrays below. */
const COLUMNS = [
  ['job_id', 'uuid'],
  ['currentness', 'text'],
  ['stale', 'boolean'],
  ['company_id', 'uuid'],
  ['employer_name', 'text'],
  ['title', 'text'],
  ['description', 'text'],
  ['work_arrangement', 'text'],
  ['locations', 'jsonb'],
  ['postings', 'jsonb'],
  ['job_first_seen_at', 'timestamptz'],
  ['curated_at', 'timestamptz'],
  ['job_updated_at', 'timestamptz'],
] as const;

// jsonb and timestamps travel as text: one text[] array each, cast by PostgreSQL.
const ARRAY_TYPE: Record<string, string> = { uuid: 'uuid[]', text: 'text[]', boolean: 'boolean[]', jsonb: 'text[]', timestamptz: 'text[]' };

// title_tsv and description_tsv are exactly to_tsvector(cfg, column) of DESIGN.md 4, so NULL for a
// missing text (which then matches no query, not even NOT x); the ranked document treats it as empty.
// OFFSET 0 keeps the planner from pulling the subquery up, which would parse each text twice (once
// for its own column, once for the document).
// The location and posting facets filtered on most go in arrays (GIN-indexed), as a PostgreSQL
// schema for these documents would hold them: upper-case country codes, "US-CA" subdivisions,
// lower-case employment types, source classes.
const INSERT_SQL = `INSERT INTO jobs
SELECT ${COLUMNS.map(([name]) => name).join(', ')}, tt, dt, setweight(coalesce(tt, ''), 'A') || setweight(coalesce(dt, ''), 'D'),
  ARRAY(SELECT DISTINCT upper(l->>'country') FROM jsonb_array_elements(locations) l WHERE l->>'country' IS NOT NULL),
  ARRAY(SELECT DISTINCT upper((l->>'country') || '-' || (l->>'state')) FROM jsonb_array_elements(locations) l WHERE l->>'state' IS NOT NULL),
  ARRAY(SELECT DISTINCT lower(p->>'employment_type') FROM jsonb_array_elements(postings) p WHERE p->>'employment_type' IS NOT NULL),
  ARRAY(SELECT DISTINCT p->>'source_class' FROM jsonb_array_elements(postings) p WHERE p->>'source_class' IS NOT NULL)
FROM (
  SELECT ${COLUMNS.map(([name, type]) => (type === 'jsonb' || type === 'timestamptz' ? `${name}::${type} AS ${name}` : name)).join(', ')},
         to_tsvector('${TS_CONFIG}', title) AS tt,
         to_tsvector('${TS_CONFIG}', description) AS dt
  FROM unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${ARRAY_TYPE[type]}`).join(', ')})
    AS u(${COLUMNS.map(([name]) => name).join(', ')})
  OFFSET 0
) s`;

const INDEX_SQL = [
  'CREATE INDEX jobs_document ON jobs USING gin (document)',
  'CREATE INDEX jobs_title_tsv ON jobs USING gin (title_tsv)',
  'CREATE INDEX jobs_description_tsv ON jobs USING gin (description_tsv)',
  'CREATE INDEX jobs_default_order ON jobs (currentness, job_updated_at DESC, job_id DESC)',
  'CREATE INDEX jobs_work_arrangement ON jobs (work_arrangement, currentness, job_updated_at DESC, job_id DESC)',
  'CREATE INDEX jobs_company_id ON jobs (company_id)',
  'CREATE INDEX jobs_employer ON jobs (lower(employer_name))',
  'CREATE INDEX jobs_countries ON jobs USING gin (countries)',
  'CREATE INDEX jobs_subdivisions ON jobs USING gin (subdivisions)',
  'CREATE INDEX jobs_employment_types ON jobs USING gin (employment_types)',
  'CREATE INDEX jobs_source_classes ON jobs USING gin (source_classes)',
];

// DuckDB renders each value as PostgreSQL reads it: nested values as JSON, instants in UTC.
const SELECT_SQL = (files: string[]) => `SELECT job_id, currentness, stale, company_id, employer_name, title, description, work_arrangement,
  to_json(locations)::VARCHAR, to_json(postings)::VARCHAR,
  job_first_seen_at::VARCHAR, curated_at::VARCHAR, job_updated_at::VARCHAR
FROM read_parquet([${files.map((f) => `'${f.replace(/'/g, "''")}'`).join(', ')}])`;

export interface LoadOptions {
  /** Rows per INSERT; default 1000. */
  batchSize?: number;
  /** Sessions inserting side by side (each in one transaction); default 2. */
  connections?: number;
  /** Run ANALYZE at the end; default true. */
  analyze?: boolean;
  /** Called after each batch with the rows loaded so far. */
  onProgress?: (rows: number) => void;
}

export interface LoadSummary {
  jobs: number;
  load_ms: number;
  index_ms: number;
}

/** Creates `jobs` (replacing it) in the database at `url` and fills it from the snapshot in `snapshotDir`. */
export async function loadSnapshotIntoPostgres(url: string, snapshotDir: string, options: LoadOptions = {}): Promise<LoadSummary> {
  const files = (await readdir(snapshotDir))
    .filter((f) => /^jobs(-\d+-of-\d+)?\.parquet$/.test(f))
    .sort()
    .map((f) => join(snapshotDir, f));
  if (files.length === 0) throw new Error(`${snapshotDir} has no jobs*.parquet`);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (const sql of CONFIG_SQL) await admin.query(sql);
    await admin.query('DROP TABLE IF EXISTS jobs');
    await admin.query(TABLE_SQL);
    const started = performance.now();
    const jobs = await insertAll(url, files, options);
    const loaded = performance.now();
    await admin.query("SET maintenance_work_mem = '512MB'");
    for (const sql of INDEX_SQL) await admin.query(sql);
    if (options.analyze ?? true) await admin.query('ANALYZE jobs');
    return { jobs, load_ms: Math.round(loaded - started), index_ms: Math.round(performance.now() - loaded) };
  } finally {
    await admin.end();
  }
}

/** Streams the rows from DuckDB into `connections` sessions, one batch in flight per session. */
async function insertAll(url: string, files: string[], options: LoadOptions): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  const sessions = await Promise.all(Array.from({ length: options.connections ?? 2 }, () => openSession(url)));
  const duck = await Duck.open({ threads: 1 });
  let rows = 0;
  let turn = 0;
  try {
    const result = await duck.connection.stream(SELECT_SQL(files));
    let batch: unknown[][] = COLUMNS.map(() => []);
    let size = 0;
    const flush = async () => {
      const session = sessions[turn++ % sessions.length]!;
      await settle(session);
      // Not awaited here, so that DuckDB reads the next batch while PostgreSQL inserts this one.
      session.pending = session.client.query(INSERT_SQL, batch).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
      rows += size;
      options.onProgress?.(rows);
      batch = COLUMNS.map(() => []);
      size = 0;
    };
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      for (const row of chunk.getRows()) {
        for (const [i, value] of row.entries()) batch[i]!.push(value);
        if (++size === batchSize) await flush();
      }
    }
    if (size > 0) await flush();
    for (const session of sessions) {
      await settle(session);
      await session.client.query('COMMIT');
    }
    return rows;
  } finally {
    duck.close();
    await Promise.all(sessions.map((s) => s.client.end()));
  }
}

interface Session {
  client: pg.Client;
  /** The batch in flight: resolves to its error, if any. */
  pending: Promise<Error | undefined>;
}

async function settle(session: Session): Promise<void> {
  const error = await session.pending;
  if (error !== undefined) throw error;
}

async function openSession(url: string): Promise<Session> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  return { client, pending: Promise.resolve(undefined) };
}
