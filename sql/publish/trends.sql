-- Stage "trends": the versions of every job over the publications a trend can read
-- (docs/adr/0012-trends.md). A version is one job's published row, held from the publication
-- valid_from up to, not including, valid_until (NULL: it holds in this publication). The previous
-- publication's versions are carried, closed where the job's row changed or the job is gone, and this
-- publication's changed rows open new ones. What a read restamps without a change (each posting's
-- last_fetch_at and application_check.checked_at, the job's last_verified_at and days_open) is left out
-- of a version, so it does not split one.
-- A description is kept only where it is not the job's description in this publication ("own text"):
-- the publication's text index answers the others.

-- name: current
-- This publication's rows as versions: without the read stamps, without the description (has_description,
-- text_key and version_key say what the versions need of it). The keys are 64-bit hashes: a job's version
-- is only ever compared with its own previous one, so two differing rows are taken as equal with a chance
-- of 2^-64 per job and publication.
CREATE OR REPLACE TABLE trend_current AS
SELECT c.*, hash(c) AS version_key
FROM (
  SELECT j.* EXCLUDE (description) REPLACE (
           list_transform(j.postings, p -> struct_update(p, last_fetch_at := NULL::TIMESTAMPTZ,
             application_check := CASE WHEN p.application_check IS NULL THEN NULL
                                       ELSE struct_update(p.application_check, checked_at := NULL::TIMESTAMPTZ) END)) AS postings,
           NULL::TIMESTAMPTZ AS last_verified_at, NULL::INTEGER AS days_open),
         j.description IS NOT NULL AND j.description <> '' AS has_description,
         hash(j.title, j.description) AS text_key
  FROM read_parquet($files) j
) c;

-- name: no_previous
-- The first publication a history starts from: no versions before it.
CREATE OR REPLACE VIEW trend_prev AS
SELECT *, NULL::TIMESTAMPTZ AS valid_from, NULL::TIMESTAMPTZ AS valid_until, NULL::VARCHAR AS description, NULL::BOOLEAN AS own_text
FROM trend_current LIMIT 0;
CREATE OR REPLACE VIEW trend_prev_jobs AS SELECT NULL::VARCHAR AS job_id, NULL::VARCHAR AS description LIMIT 0;

-- name: previous_versions
-- Read where used (the wide rows once, by the COPY of the step).
CREATE OR REPLACE VIEW trend_prev AS SELECT * FROM read_parquet($file);

-- name: previous_jobs
-- The previous publication's descriptions: those of its versions that were its jobs' own then.
CREATE OR REPLACE VIEW trend_prev_jobs AS SELECT job_id, description FROM read_parquet($files);

-- name: step
-- The versions after this publication, within the window ($oldest: its first publication), written to $out.
-- The jobs whose open version holds on (same row) are found on narrow columns; the wide rows of the
-- previous versions are read once, by the COPY.
CREATE OR REPLACE TABLE trend_same AS
SELECT job_id FROM (SELECT job_id, version_key FROM trend_prev WHERE valid_until IS NULL)
JOIN (SELECT job_id, version_key FROM trend_current) USING (job_id, version_key);
CREATE OR REPLACE TABLE trend_texts AS SELECT job_id, text_key FROM trend_current;
-- The previous publication's descriptions of the versions whose text stops being their job's today.
CREATE OR REPLACE TABLE trend_gone_texts AS
SELECT job_id, description FROM trend_prev_jobs
WHERE job_id IN (SELECT p.job_id FROM trend_prev p LEFT JOIN trend_texts c USING (job_id)
                 WHERE NOT coalesce(p.own_text, false) AND c.text_key IS DISTINCT FROM p.text_key);
-- A version's own text: kept from before, or the previous publication's description of its job when that
-- was its text then; none when it is its job's text in this publication.
COPY (
WITH kept AS (
  SELECT p.* REPLACE (CASE WHEN p.valid_until IS NULL AND p.job_id NOT IN (SELECT job_id FROM trend_same)
                           THEN $watermark::TIMESTAMPTZ ELSE p.valid_until END AS valid_until)
  FROM trend_prev p WHERE p.valid_until IS NULL OR p.valid_until > $oldest::TIMESTAMPTZ
),
born AS (
  SELECT c.*, $watermark::TIMESTAMPTZ AS valid_from, NULL::TIMESTAMPTZ AS valid_until, NULL::VARCHAR AS description, false AS own_text
  FROM trend_current c WHERE c.job_id NOT IN (SELECT job_id FROM trend_same)
),
carried AS (
  SELECT k.* EXCLUDE (description, own_text),
         NOT coalesce(t.text_key = k.text_key, false) AS own_text,
         CASE WHEN coalesce(t.text_key = k.text_key, false) THEN NULL WHEN k.own_text THEN k.description ELSE g.description END AS description
  FROM kept k LEFT JOIN trend_texts t USING (job_id) LEFT JOIN trend_gone_texts g USING (job_id)
)
SELECT * FROM carried UNION ALL BY NAME SELECT * FROM born
) TO $out (FORMAT parquet, COMPRESSION zstd);
DROP TABLE trend_same;
DROP TABLE trend_texts;
DROP TABLE trend_gone_texts;

-- name: write
COPY (SELECT unnest($publications::TIMESTAMPTZ[]) AS watermark) TO ($dir || '/publications.parquet') (FORMAT parquet);

-- name: drop
DROP VIEW IF EXISTS trend_prev;
DROP TABLE IF EXISTS trend_current;
DROP VIEW IF EXISTS trend_prev_jobs;
