-- Stage "events": the change events of this publication, exactly the differences between the two
-- catalogs for the set of current and uncertain jobs. Each job has at most one event.

-- name: published_jobs
-- The jobs as published: the description joined back from texts.
CREATE OR REPLACE VIEW published_jobs AS
SELECT j.job_id, j.currentness, j.stale, j.company_id, j.employer_name, j.title, t.description, j.work_arrangement,
       j.locations, j.job_first_seen_at, j.curated_at, j.job_updated_at, j.postings, j.content_hash
FROM jobs j LEFT JOIN texts t ON t.posting_id = j.text_posting;

-- name: prev_jobs_first
CREATE OR REPLACE VIEW prev_jobs AS SELECT * FROM published_jobs LIMIT 0;

-- name: prev_jobs
CREATE OR REPLACE VIEW prev_jobs AS SELECT * FROM read_parquet($dir || '/jobs.parquet');

-- name: events
-- A job that left the set because it is gone (merged away or withdrawn) carries its last published
-- state from the previous snapshot (gone = true); every other event carries the job as published now.
CREATE OR REPLACE TABLE events AS
WITH changes AS (
  SELECT n.job_id,
         CASE WHEN p.job_id IS NULL OR p.currentness NOT IN ('current', 'uncertain') THEN 'created'
              WHEN p.content_hash <> n.content_hash THEN 'updated' END AS type,
         false AS gone
  FROM jobs n LEFT JOIN prev_job_times p USING (job_id)
  WHERE n.currentness IN ('current', 'uncertain')
  UNION ALL
  SELECT p.job_id, 'expired', n.job_id IS NULL
  FROM prev_job_times p LEFT JOIN jobs n USING (job_id)
  WHERE p.currentness IN ('current', 'uncertain') AND (n.job_id IS NULL OR n.currentness = 'not_current')
)
SELECT $last_seq::BIGINT + row_number() OVER (ORDER BY job_id) AS seq, type, $published_at::TIMESTAMPTZ AS occurred_at, job_id, gone
FROM changes WHERE type IS NOT NULL;
