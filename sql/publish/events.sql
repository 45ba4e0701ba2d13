-- Stage "events": the change events of this publication, exactly the differences between the two
-- catalogs for the set of current and uncertain jobs. Each job has at most one event.

-- name: prev_jobs_first
CREATE OR REPLACE VIEW prev_jobs AS SELECT * FROM read_parquet($file) LIMIT 0;

-- name: prev_jobs
CREATE OR REPLACE VIEW prev_jobs AS SELECT * FROM read_parquet($dir || '/jobs*.parquet');

-- name: prev_jobs_format1
-- A previous snapshot of format jps-catalog/1 has no occupation, description pay, skills or posting reality: its jobs take
-- null ones, where the jobs of this format have them (a gone job's event carries its row as this format's).
CREATE OR REPLACE VIEW prev_jobs AS
SELECT job_id, currentness, stale, company_id, employer_name, title, NULL::STRUCT(soc_code VARCHAR, title VARCHAR) AS occupation,
       description, NULL::STRUCT(currency VARCHAR, floor DOUBLE, ceiling DOUBLE, "interval" VARCHAR) AS description_pay,
       NULL::VARCHAR[] AS skills,
       COLUMNS(c -> c NOT IN ('job_id', 'currentness', 'stale', 'company_id', 'employer_name', 'title', 'description')),
       NULL::INTEGER AS reposts, NULL::INTEGER AS days_open, NULL::TIMESTAMPTZ AS last_verified_at, NULL::BOOLEAN AS listed_by_employer
FROM read_parquet($dir || '/jobs*.parquet');

-- name: prev_jobs_format2
-- A previous snapshot of format jps-catalog/2 has no skills and no posting reality: its jobs take none,
-- in this format's places.
CREATE OR REPLACE VIEW prev_jobs AS
SELECT COLUMNS(c -> c IN ('job_id', 'currentness', 'stale', 'company_id', 'employer_name', 'title', 'occupation', 'description', 'description_pay')),
       NULL::VARCHAR[] AS skills,
       COLUMNS(c -> c NOT IN ('job_id', 'currentness', 'stale', 'company_id', 'employer_name', 'title', 'occupation', 'description', 'description_pay')),
       NULL::INTEGER AS reposts, NULL::INTEGER AS days_open, NULL::TIMESTAMPTZ AS last_verified_at, NULL::BOOLEAN AS listed_by_employer
FROM read_parquet($dir || '/jobs*.parquet');

-- name: events
-- A job that left the set because it is gone (merged away or withdrawn) carries its last published
-- state from the previous snapshot (gone = true); every other event's job is this snapshot's row.
CREATE OR REPLACE TABLE events AS
WITH changes AS (
  SELECT n.job_id,
         CASE WHEN p.job_id IS NULL OR p.currentness NOT IN ('current', 'uncertain') THEN 'created'
              WHEN p.content_hash <> n.content_hash THEN 'updated' END AS type,
         false AS gone
  FROM job_index n LEFT JOIN prev_job_times p USING (job_id)
  WHERE n.currentness IN ('current', 'uncertain')
  UNION ALL
  SELECT p.job_id, 'expired', n.job_id IS NULL
  FROM prev_job_times p LEFT JOIN job_index n USING (job_id)
  WHERE p.currentness IN ('current', 'uncertain') AND (n.job_id IS NULL OR n.currentness = 'not_current')
)
SELECT $last_seq::BIGINT + row_number() OVER (ORDER BY job_id) AS seq, type, $published_at::TIMESTAMPTZ AS occurred_at, job_id, gone
FROM changes WHERE type IS NOT NULL;
