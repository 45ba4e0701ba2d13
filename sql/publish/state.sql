-- Stage "state": today's observations folded into the posting state carried between publications.
-- Descriptions stay in Parquet files (today's, and the carried ones of postings not read today)
-- behind the view `texts`; tables hold only what is small.

-- name: previous_state
-- $dir: the publisher's state folder of the previous publication.
CREATE OR REPLACE TABLE prev_postings AS SELECT * FROM read_parquet($dir || '/postings/*/*.parquet', hive_partitioning = false);
CREATE OR REPLACE TABLE prev_boards AS SELECT * FROM read_parquet($dir || '/boards.parquet');
CREATE OR REPLACE VIEW prev_texts AS SELECT * FROM read_parquet([$dir || '/texts.parquet', $dir || '/carried.parquet']);

-- name: first_state
-- Before the first publication: no postings, no boards (with the columns a real state has).
CREATE OR REPLACE TABLE prev_postings AS
SELECT o.* EXCLUDE (read_at, read_complete, reported_first_seen_at),
       []::STRUCT(city VARCHAR, state VARCHAR, country VARCHAR, msa STRUCT(cbsa_code VARCHAR, name VARCHAR))[] AS locations,
       false AS truncated, NULL::BIGINT AS text_length, NULL::UBIGINT AS text_hash,
       NULL::TIMESTAMPTZ AS first_seen_at, NULL::TIMESTAMPTZ AS last_seen_at, NULL::TIMESTAMPTZ AS listed_at,
       NULL::TIMESTAMPTZ AS last_fetch_at, NULL::VARCHAR AS status, false AS withdrawn, NULL::VARCHAR AS job_id
FROM observed o LIMIT 0;
CREATE OR REPLACE TABLE prev_boards (source VARCHAR, board VARCHAR, last_complete_read_at TIMESTAMPTZ, last_read_at TIMESTAMPTZ);
CREATE OR REPLACE VIEW prev_texts AS SELECT * FROM read_parquet($file) LIMIT 0;

-- name: today_texts
-- $file: today's descriptions, written while loading.
CREATE OR REPLACE VIEW texts_today AS SELECT * FROM read_parquet($file);
CREATE OR REPLACE TABLE text_meta AS SELECT posting_id, truncated, text_length, text_hash FROM texts_today;

-- name: boards
CREATE OR REPLACE TABLE boards AS
SELECT source, board, max(last_complete_read_at) AS last_complete_read_at, max(last_read_at) AS last_read_at
FROM (
  SELECT source, board, last_complete_read_at, last_read_at FROM prev_boards
  UNION ALL
  SELECT source, board, CASE WHEN complete THEN finished_at END, finished_at FROM reads
)
GROUP BY source, board;

-- name: withdrawn_postings
-- Postings named by today's withdrawals, and every posting of the jobs holding them.
CREATE OR REPLACE TABLE withdrawn_today AS
WITH named AS (
  SELECT p.posting_id, p.job_id FROM prev_postings p JOIN withdrawals w USING (source, source_posting_id)
  UNION
  SELECT o.posting_id, NULL FROM observed o JOIN withdrawals w USING (source, source_posting_id)
)
SELECT posting_id FROM named
UNION
SELECT p.posting_id FROM prev_postings p JOIN named n ON p.job_id = n.job_id;

-- name: postings
CREATE OR REPLACE TABLE postings AS
WITH content AS (
  SELECT o.* REPLACE (coalesce(o.work_arrangement, CASE WHEN l.says_remote THEN 'remote' END) AS work_arrangement),
         coalesce(l.locations, []) AS locations,
         coalesce(t.truncated, false) AS truncated, t.text_length, t.text_hash
  FROM observed o
  LEFT JOIN observed_locations l USING (posting_id)
  LEFT JOIN text_meta t USING (posting_id)
  UNION ALL BY NAME
  SELECT p.* EXCLUDE (first_seen_at, last_seen_at, listed_at, last_fetch_at, status, withdrawn, job_id),
         NULL::TIMESTAMPTZ AS read_at, NULL::BOOLEAN AS read_complete
  FROM prev_postings p ANTI JOIN observed o USING (posting_id)
)
SELECT c.* EXCLUDE (read_at, read_complete, reported_first_seen_at),
       c.read_at IS NOT NULL AS seen_today,
       -- A posting new to the catalog was first seen when the collectors say, never after today's read.
       coalesce(p.first_seen_at, least(c.reported_first_seen_at, c.read_at)) AS first_seen_at,
       coalesce(c.read_at, p.last_seen_at) AS last_seen_at,
       CASE WHEN c.read_complete THEN c.read_at ELSE p.listed_at END AS listed_at,
       b.last_complete_read_at AS last_fetch_at,
       CASE WHEN b.last_complete_read_at > coalesce(c.read_at, p.last_seen_at) THEN 'no_longer_listed' ELSE 'listed' END AS status,
       coalesce(p.withdrawn, false) OR w.posting_id IS NOT NULL AS withdrawn,
       p.job_id AS prev_job_id
FROM content c
LEFT JOIN prev_postings p ON p.posting_id = c.posting_id
LEFT JOIN boards b ON b.source = c.source AND b.board = c.board
LEFT JOIN withdrawn_today w ON w.posting_id = c.posting_id;
DROP TABLE observed;
DROP TABLE text_meta;
DROP TABLE prev_postings;

-- name: texts
-- Every description in play: today's file, and the carried descriptions of postings not read today
-- (written with the state for the next publication).
CREATE OR REPLACE TABLE carried_texts AS
SELECT t.* FROM prev_texts t SEMI JOIN (SELECT posting_id FROM postings WHERE NOT seen_today) s USING (posting_id);
CREATE OR REPLACE VIEW texts AS
SELECT posting_id, description FROM texts_today
UNION ALL
SELECT posting_id, description FROM carried_texts;
