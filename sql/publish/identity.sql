-- Stage "identity": clusters become jobs. A job keeps its id while its cluster lives; when clusters
-- merge, the job first seen survives and the others redirect to it; new clusters get new ids.

-- name: clustered
CREATE OR REPLACE TABLE clustered AS
SELECT p.posting_id, p.prev_job_id, p.first_seen_at, p.withdrawn, coalesce(c.cluster, p.posting_id) AS cluster
FROM postings p LEFT JOIN clusters c USING (posting_id);

-- name: claims
-- Each previous job claims the cluster holding most of its postings.
CREATE OR REPLACE TABLE claims AS
SELECT prev_job_id, cluster FROM (
  SELECT prev_job_id, cluster, count(*) AS n, min(first_seen_at) AS fs
  FROM clustered WHERE prev_job_id IS NOT NULL AND NOT withdrawn GROUP BY ALL
)
QUALIFY row_number() OVER (PARTITION BY prev_job_id ORDER BY n DESC, fs, cluster) = 1;

-- name: job_ids
CREATE OR REPLACE TABLE job_ids AS
WITH live AS (SELECT cluster, min(posting_id) AS seed FROM clustered WHERE NOT withdrawn GROUP BY cluster),
ranked AS (
  SELECT c.cluster, c.prev_job_id,
         row_number() OVER (PARTITION BY c.cluster ORDER BY pj.job_first_seen_at NULLS LAST, c.prev_job_id) AS r
  FROM claims c LEFT JOIN prev_job_times pj ON pj.job_id = c.prev_job_id
)
SELECT l.cluster, coalesce(r.prev_job_id, uuid_from('job' || chr(31) || l.seed || chr(31) || $watermark)) AS job_id
FROM live l LEFT JOIN ranked r ON r.cluster = l.cluster AND r.r = 1;

-- name: redirects
-- Absorbed ids point at the survivor; older redirects to an id absorbed now are re-pointed, so
-- every redirect leads to a live job in one step.
CREATE OR REPLACE TABLE redirects AS
WITH fresh AS (
  SELECT c.prev_job_id AS from_job_id, j.job_id AS to_job_id, $watermark::TIMESTAMPTZ AS merged_at
  FROM claims c JOIN job_ids j USING (cluster) WHERE c.prev_job_id <> j.job_id
)
SELECT r.from_job_id, coalesce(f.to_job_id, r.to_job_id) AS to_job_id, r.merged_at
FROM prev_redirects r LEFT JOIN fresh f ON f.from_job_id = r.to_job_id
UNION ALL
SELECT * FROM fresh;

-- name: withdrawn_jobs
CREATE OR REPLACE TABLE withdrawn_jobs AS
SELECT job_id, withdrawn_at, reason FROM prev_withdrawn
UNION ALL
SELECT p.prev_job_id, $watermark::TIMESTAMPTZ, coalesce(min(w.reason), 'takedown')
FROM postings p
JOIN withdrawn_today t USING (posting_id)
LEFT JOIN withdrawals w USING (source, source_posting_id)
WHERE p.prev_job_id IS NOT NULL AND p.prev_job_id NOT IN (SELECT job_id FROM prev_withdrawn)
GROUP BY p.prev_job_id;

-- name: first_publication
-- What the first publication's predecessor had: no jobs, no redirects, nothing withdrawn.
CREATE OR REPLACE TABLE prev_redirects (from_job_id VARCHAR, to_job_id VARCHAR, merged_at TIMESTAMPTZ);
CREATE OR REPLACE TABLE prev_withdrawn (job_id VARCHAR, withdrawn_at TIMESTAMPTZ, reason VARCHAR);
CREATE OR REPLACE TABLE prev_job_times (job_id VARCHAR, job_first_seen_at TIMESTAMPTZ, curated_at TIMESTAMPTZ,
  job_updated_at TIMESTAMPTZ, currentness VARCHAR, content_hash UBIGINT);

-- name: previous_publication
-- $dir: the previous snapshot folder.
CREATE OR REPLACE TABLE prev_redirects AS SELECT * FROM read_parquet($dir || '/redirects.parquet');
CREATE OR REPLACE TABLE prev_withdrawn AS SELECT * FROM read_parquet($dir || '/withdrawn.parquet');
CREATE OR REPLACE TABLE prev_job_times AS
SELECT job_id, job_first_seen_at, curated_at, job_updated_at, currentness, content_hash FROM read_parquet($dir || '/jobs*.parquet');
