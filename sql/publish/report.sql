-- The merge report: the published merge against the ground truth the corpus generator wrote.

-- name: truth
-- $paths: the delivery's postings files (one per line). A pay as one comparable text: currency, floor,
-- ceiling, interval.
CREATE OR REPLACE MACRO pay_key(p) AS p.currency || ' ' || coalesce(p.min::VARCHAR, '') || ' ' || coalesce(p.max::VARCHAR, '') || ' ' || p.interval;
CREATE OR REPLACE TABLE truth AS
SELECT uuid_from(source || chr(31) || board || chr(31) || source_posting_id) AS posting_id,
       any_value(opening_id) AS opening_id, any_value(truth_company_id) AS truth_company_id,
       any_value(truth_soc_code) AS truth_soc_code, any_value(truth_listed_by_employer) AS truth_listed_by_employer,
       any_value(truth_reposts) AS truth_reposts
FROM read_json(string_split($paths, chr(10)), format = 'newline_delimited',
               columns = {source: 'VARCHAR', board: 'VARCHAR', source_posting_id: 'VARCHAR', opening_id: 'VARCHAR', truth_company_id: 'VARCHAR',
                          truth_soc_code: 'VARCHAR', truth_listed_by_employer: 'BOOLEAN', truth_reposts: 'INTEGER'})
GROUP BY ALL;
-- What each posting's description states (its pay and the skills the generator wrote into it, with
-- the hash of its text as the publisher keeps it), from the latest delivery up to this day that carried
-- one: a posting not read today keeps its description (sql/publish/state.sql). $history: the postings
-- files of every day up to this one, one per line.
CREATE OR REPLACE TABLE text_truth AS
SELECT uuid_from(source || chr(31) || board || chr(31) || source_posting_id) AS posting_id,
       arg_max(pay_key(truth_description_pay), filename) AS truth_pay_key,
       arg_max(hash(nullif(coalesce(nullif(description_text, ''), html_text(description_html)), '')), filename) AS text_hash,
       arg_max(truth_skills, filename) AS truth_skills
FROM read_json(string_split($history, chr(10)), format = 'newline_delimited', filename = true,
               columns = {source: 'VARCHAR', board: 'VARCHAR', source_posting_id: 'VARCHAR', description_text: 'VARCHAR',
                          description_html: 'VARCHAR', truth_description_pay: 'STRUCT(currency VARCHAR, min DOUBLE, max DOUBLE, "interval" VARCHAR)',
                          truth_skills: 'VARCHAR[]'})
WHERE description_text IS NOT NULL OR description_html IS NOT NULL
GROUP BY ALL;

-- name: published
-- $dir: the snapshot folder of that day.
CREATE OR REPLACE TABLE published AS
SELECT p.posting_id, j.job_id, j.company_id, j.title, j.occupation.soc_code AS soc_code, p.pay IS NOT NULL AS posted_pay,
       pay_key({currency: j.description_pay.currency, min: j.description_pay.floor, max: j.description_pay.ceiling,
                "interval": j.description_pay.interval}) AS found_pay_key,
       hash(j.description) AS text_hash, j.skills, j.listed_by_employer, j.reposts
FROM read_parquet($dir || '/jobs*.parquet') j, unnest(j.postings) AS u(p);
CREATE OR REPLACE TABLE cells AS
SELECT t.opening_id, p.job_id, count(*)::DOUBLE AS n FROM truth t JOIN published p USING (posting_id) GROUP BY ALL;
-- Each job of the delivery with its occupation and the truth of its postings (the code most of them
-- carry; a delivery without truth codes has none).
CREATE OR REPLACE TABLE job_occupations AS
SELECT p.job_id, any_value(p.title) AS title, any_value(p.soc_code) AS soc_code, mode(t.truth_soc_code) AS truth
FROM truth t JOIN published p USING (posting_id) GROUP BY p.job_id;
-- Each job of the delivery with its posting reality and the truth of its postings' opening (of a job
-- merged from several openings, what most of its postings say).
CREATE OR REPLACE TABLE job_reality AS
SELECT p.job_id, any_value(p.listed_by_employer) AS listed, mode(t.truth_listed_by_employer) AS truth_listed,
       any_value(p.reposts) AS reposts, mode(t.truth_reposts) AS truth_reposts
FROM truth t JOIN published p USING (posting_id) GROUP BY p.job_id;
-- Each job of the delivery with the skills read in its description and those the generator wrote into
-- it: the truth of a posting whose text is the job's (the same text, the same truth).
CREATE OR REPLACE TABLE job_skills AS
SELECT p.job_id, any_value(p.skills) AS found, any_value(t.truth_skills) AS truth
FROM published p JOIN text_truth t ON t.posting_id = p.posting_id AND t.text_hash = p.text_hash
WHERE p.job_id IN (SELECT job_id FROM published SEMI JOIN truth USING (posting_id))
GROUP BY p.job_id;

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
-- Each job's occupation against its truth.
SELECT count(*)::BIGINT AS jobs,
  count(*) FILTER (WHERE soc_code = truth)::BIGINT AS detailed,
  count(*) FILTER (WHERE left(soc_code, 2) = left(truth, 2))::BIGINT AS major,
  count(*) FILTER (WHERE soc_code IS NULL)::BIGINT AS unclassified
FROM job_occupations WHERE truth IS NOT NULL;

-- name: described
-- The descriptions the occupation fallback is measured on (text_occupations, sql/publish/jobs.sql): of
-- every job with a truth code, read as if its title named none; a sample of 20,000 jobs at most (a
-- fixed seed), which bounds the report's time on a million jobs.
CREATE OR REPLACE TABLE texts_to_classify AS
SELECT job_id AS key, description AS text
FROM read_parquet($dir || '/jobs*.parquet') SEMI JOIN (SELECT job_id FROM job_occupations WHERE truth IS NOT NULL) USING (job_id)
WHERE description IS NOT NULL
USING SAMPLE reservoir(20000 ROWS) REPEATABLE (1);

-- name: described_occupations
-- The description's occupation against the job's truth.
SELECT count(*)::BIGINT AS jobs,
  count(*) FILTER (WHERE d.occupation.soc_code = j.truth)::BIGINT AS detailed,
  count(*) FILTER (WHERE left(d.occupation.soc_code, 2) = left(j.truth, 2))::BIGINT AS major,
  count(*) FILTER (WHERE d.occupation IS NULL)::BIGINT AS unclassified
FROM texts_to_classify t JOIN job_occupations j ON j.job_id = t.key LEFT JOIN text_occupations d ON d.key = t.key;

-- name: occupation_errors
-- The most frequent wrong codes, with a title that got one, for a person to look at.
SELECT truth, soc_code AS published, count(*)::BIGINT AS jobs, min(title) AS example
FROM job_occupations WHERE truth IS NOT NULL AND soc_code IS DISTINCT FROM truth
GROUP BY ALL ORDER BY jobs DESC, truth, published NULLS FIRST LIMIT $examples;

-- name: description_pay
-- Each job's description pay against the pay its postings' descriptions state (right: one of them);
-- alone: jobs none of whose postings publishes pay.
-- Jobs of the day's delivery, with the statements of all their postings.
WITH per_job AS (
  SELECT p.job_id, any_value(p.found_pay_key) AS found, list(DISTINCT t.truth_pay_key) FILTER (WHERE t.truth_pay_key IS NOT NULL) AS truths,
         NOT bool_or(p.posted_pay) AS alone
  FROM published p LEFT JOIN text_truth t USING (posting_id)
  WHERE p.job_id IN (SELECT job_id FROM published SEMI JOIN truth USING (posting_id))
  GROUP BY p.job_id
)
SELECT count(*) FILTER (WHERE len(truths) > 0)::BIGINT AS stated,
  count(*) FILTER (WHERE found IS NOT NULL)::BIGINT AS extracted,
  count(*) FILTER (WHERE list_contains(truths, found))::BIGINT AS right,
  count(*) FILTER (WHERE alone AND len(truths) > 0)::BIGINT AS stated_alone,
  count(*) FILTER (WHERE alone AND found IS NOT NULL)::BIGINT AS extracted_alone,
  count(*) FILTER (WHERE alone AND list_contains(truths, found))::BIGINT AS right_alone
FROM per_job;

-- name: skills
-- The skills read in the jobs' descriptions against those written into them.
SELECT count(*)::BIGINT AS jobs, coalesce(sum(len(truth)), 0)::BIGINT AS written, coalesce(sum(len(found)), 0)::BIGINT AS extracted,
       coalesce(sum(len(list_intersect(found, truth))), 0)::BIGINT AS right
FROM job_skills;

-- name: skill_errors
-- The skills most often read wrong, for a person to look at: read but not written (extra), or written
-- but not read (missed).
SELECT kind, skill, count(*)::BIGINT AS jobs FROM (
  SELECT 'extra' AS kind, unnest(list_filter(found, s -> NOT list_contains(truth, s))) AS skill FROM job_skills
  UNION ALL
  SELECT 'missed', unnest(list_filter(truth, s -> NOT list_contains(found, s))) FROM job_skills)
GROUP BY ALL ORDER BY jobs DESC, kind, skill LIMIT $examples;

-- name: reality
-- listed_by_employer against the truth: the ghost jobs (false) found and missed, and agreement on every
-- value (null: the employer never posts the opening on its own ATS or careers page); reposts alike.
SELECT count(*)::BIGINT AS jobs,
  count(*) FILTER (WHERE truth_listed = false)::BIGINT AS ghosts,
  count(*) FILTER (WHERE listed = false)::BIGINT AS flagged,
  count(*) FILTER (WHERE listed = false AND truth_listed = false)::BIGINT AS flagged_right,
  count(*) FILTER (WHERE listed IS NOT DISTINCT FROM truth_listed)::BIGINT AS listed_agree,
  count(*) FILTER (WHERE truth_reposts > 0)::BIGINT AS reposted,
  count(*) FILTER (WHERE reposts IS NOT DISTINCT FROM truth_reposts)::BIGINT AS reposts_agree
FROM job_reality;
