-- The merge report: the published merge against the ground truth the corpus generator wrote.

-- name: truth
-- $paths: the delivery's postings files (one per line).
CREATE OR REPLACE TABLE truth AS
SELECT uuid_from(source || chr(31) || board || chr(31) || source_posting_id) AS posting_id,
       any_value(opening_id) AS opening_id, any_value(truth_company_id) AS truth_company_id,
       any_value(truth_soc_code) AS truth_soc_code
FROM read_json(string_split($paths, chr(10)), format = 'newline_delimited',
               columns = {source: 'VARCHAR', board: 'VARCHAR', source_posting_id: 'VARCHAR', opening_id: 'VARCHAR', truth_company_id: 'VARCHAR',
                          truth_soc_code: 'VARCHAR'})
GROUP BY ALL;

-- name: published
-- $dir: the snapshot folder of that day.
CREATE OR REPLACE TABLE published AS
SELECT p.posting_id, j.job_id, j.company_id, j.title, j.occupation.soc_code AS soc_code
FROM read_parquet($dir || '/jobs*.parquet') j, unnest(j.postings) AS u(p);
CREATE OR REPLACE TABLE cells AS
SELECT t.opening_id, p.job_id, count(*)::DOUBLE AS n FROM truth t JOIN published p USING (posting_id) GROUP BY ALL;

-- name: pairwise
SELECT
  (SELECT sum(n * (n - 1) / 2) FROM cells) AS true_positive,
  (SELECT sum(m * (m - 1) / 2) FROM (SELECT sum(n) AS m FROM cells GROUP BY job_id)) AS predicted,
  (SELECT sum(m * (m - 1) / 2) FROM (SELECT sum(n) AS m FROM cells GROUP BY opening_id)) AS actual,
  (SELECT count(DISTINCT job_id) FROM cells)::BIGINT AS jobs,
  (SELECT count(DISTINCT opening_id) FROM cells)::BIGINT AS openings,
  (SELECT sum(n) FROM cells)::BIGINT AS postings,
  (SELECT count(*) FROM truth)::BIGINT AS delivered;

-- name: company_links
SELECT
  count(*) FILTER (WHERE t.truth_company_id IS NOT NULL)::BIGINT AS linkable,
  count(*) FILTER (WHERE t.truth_company_id IS NOT NULL AND p.company_id = t.truth_company_id)::BIGINT AS linked_right,
  count(*) FILTER (WHERE p.company_id IS NOT NULL AND p.company_id IS DISTINCT FROM t.truth_company_id)::BIGINT AS linked_wrong
FROM truth t JOIN published p USING (posting_id);

-- name: worst_splits
-- Openings split over several jobs, for a person to look at.
SELECT opening_id, count(*)::BIGINT AS jobs, list(job_id ORDER BY n DESC) AS job_ids
FROM cells GROUP BY opening_id HAVING count(*) > 1 ORDER BY count(*) DESC, opening_id LIMIT $examples;

-- name: worst_merges
SELECT job_id, count(*)::BIGINT AS openings, list(opening_id ORDER BY n DESC) AS opening_ids
FROM cells GROUP BY job_id HAVING count(*) > 1 ORDER BY count(*) DESC, job_id LIMIT $examples;

-- name: occupations
-- Each job's occupation against the truth of its postings (the code most of them carry; a delivery
-- without truth codes gives no jobs).
WITH per_job AS (
  SELECT p.job_id, any_value(p.soc_code) AS soc_code, mode(t.truth_soc_code) AS truth
  FROM truth t JOIN published p USING (posting_id) GROUP BY p.job_id
)
SELECT count(*)::BIGINT AS jobs,
  count(*) FILTER (WHERE soc_code = truth)::BIGINT AS detailed,
  count(*) FILTER (WHERE left(soc_code, 2) = left(truth, 2))::BIGINT AS major,
  count(*) FILTER (WHERE soc_code IS NULL)::BIGINT AS unclassified
FROM per_job WHERE truth IS NOT NULL;

-- name: occupation_errors
-- The most frequent wrong codes, with a title that got one, for a person to look at.
WITH per_job AS (
  SELECT p.job_id, any_value(p.title) AS title, any_value(p.soc_code) AS soc_code, mode(t.truth_soc_code) AS truth
  FROM truth t JOIN published p USING (posting_id) GROUP BY p.job_id
)
SELECT truth, soc_code AS published, count(*)::BIGINT AS jobs, min(title) AS example
FROM per_job WHERE truth IS NOT NULL AND soc_code IS DISTINCT FROM truth
GROUP BY ALL ORDER BY jobs DESC, truth, published NULLS FIRST LIMIT $examples;
