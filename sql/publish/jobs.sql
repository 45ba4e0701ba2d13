-- Stage "jobs": one record per job from its postings, with currentness, stale and change tracking.
-- The postings are read back from the state file just written (so the large posting table is gone
-- by then) and the jobs are built and written in parts (by a hash of job_id), so memory holds one
-- part at a time however large the catalog.

-- name: job_postings
-- Which job each live posting belongs to, its rank among the job's postings (prio: the best first),
-- which posting gives the job's text (text_prio: the fullest description first), and its part.
-- $parts: how many parts the jobs are built in.
CREATE OR REPLACE TABLE job_postings AS
WITH ranked AS (
  SELECT p.posting_id, j.job_id, p.status, p.first_seen_at, p.truncated, p.text_length,
         CASE p.source_class WHEN 'ats' THEN 1 WHEN 'employer-site' THEN 2 WHEN 'government-exchange' THEN 3
              WHEN 'staffing-network' THEN 4 WHEN 'aggregator' THEN 5 ELSE 6 END AS rank,
         coalesce(cd.company_id, cn.company_id) AS linked_company_id
  FROM postings p
  JOIN clustered c USING (posting_id)
  JOIN job_ids j USING (cluster)
  LEFT JOIN company_by_domain cd ON cd.domain = p.employer_domain
  LEFT JOIN company_by_name cn ON cn.name_key = p.employer_key
  WHERE NOT p.withdrawn
)
SELECT posting_id, job_id, linked_company_id, hash(job_id) % $parts AS part,
       row_number() OVER (PARTITION BY job_id ORDER BY status <> 'listed', rank, first_seen_at, posting_id) AS prio,
       row_number() OVER (PARTITION BY job_id ORDER BY text_length IS NULL, truncated, rank, text_length DESC, posting_id) AS text_prio
FROM ranked;
CREATE OR REPLACE TABLE job_index (job_id VARCHAR, currentness VARCHAR, job_updated_at TIMESTAMPTZ, content_hash UBIGINT);

-- name: soc_lexicon
-- The occupation classifier's lexicon (src/catalog/reference/soc.ts): title phrases with their SOC 2018
-- detailed code and its title, filled by the publisher, then keyed as titles are (title_words).
CREATE OR REPLACE TABLE soc_lexicon (phrase VARCHAR, soc_code VARCHAR, soc_title VARCHAR);

-- name: soc_phrases
CREATE OR REPLACE TABLE soc_lexicon AS SELECT DISTINCT title_words(phrase) AS phrase, soc_code, soc_title FROM soc_lexicon;

-- name: state_titles
-- The posting titles of the state folder $dir, to classify.
CREATE OR REPLACE TABLE titles_to_classify AS
SELECT DISTINCT title FROM read_parquet($dir || '/postings/*/*.parquet', hive_partitioning = false) WHERE title IS NOT NULL;

-- name: title_tokens
-- The words of every title of titles_to_classify, for lexicon_hits.
CREATE OR REPLACE TABLE words_to_match AS
SELECT title AS key, unnest(w) AS word, generate_subscripts(w, 1) AS i
FROM (SELECT title, string_split(title_words(title), ' ') AS w FROM titles_to_classify);

-- name: lexicon_hits
-- The lexicon's phrases (one to five words) found in the texts whose words, keyed as titles are, table
-- words_to_match holds (key, i, word), into lexicon_hits (key; i, where the phrase starts; n, its words;
-- its code and title). Only the phrases starting at a word that begins some lexicon phrase are built.
CREATE OR REPLACE TABLE lexicon_hits AS
WITH firsts AS (SELECT DISTINCT split_part(phrase, ' ', 1) AS word FROM soc_lexicon),
starts AS (
  SELECT key, i, word, [word, lead(word, 1) OVER w, lead(word, 2) OVER w, lead(word, 3) OVER w, lead(word, 4) OVER w] AS next
  FROM words_to_match WINDOW w AS (PARTITION BY key ORDER BY i)
),
grams AS (
  SELECT key, i, n, array_to_string(next[1:n], ' ') AS phrase
  FROM starts SEMI JOIN firsts USING (word), range(1, 6) r(n)
  WHERE next[n] IS NOT NULL
)
SELECT g.key, g.i, g.n, l.soc_code, l.soc_title FROM grams g JOIN soc_lexicon l USING (phrase);

-- name: title_occupations
-- Each title's occupation, from its lexicon_hits: the phrase within its core (before the first qualifier:
-- "Data Engineer - Payments") first, then the longest, then the last (the head of an English noun phrase:
-- "Principal Software Engineer"). A title without one has none.
CREATE OR REPLACE TABLE title_occupations AS
SELECT h.key AS title, arg_max({soc_code: h.soc_code, title: h.soc_title}, ((h.i + h.n - 1 <= c.core)::INTEGER * 10 + h.n) * 1000 + h.i) AS occupation
FROM lexicon_hits h JOIN (SELECT title, len(string_split(title_core(title), ' ')) AS core FROM titles_to_classify) c ON c.title = h.key
GROUP BY h.key;

-- name: job_texts
-- $out: a folder of the work directory. The description each job will show (its text_prio 1
-- posting's), written in the parts the jobs are built in, so that building a part joins its own jobs'
-- texts only. Joined to every description in play instead, each part held all of them in one hash
-- table: on day 14 of the 30-day million-job corpus that ran out of memory.
COPY (
  SELECT jp.part, jp.job_id, t.posting_id, t.description
  FROM job_postings jp JOIN texts t USING (posting_id)
  WHERE jp.text_prio = 1
) TO $out (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (part));

-- name: empty_texts
-- $file: the texts file of a part none of whose jobs has a description.
COPY (SELECT NULL::VARCHAR AS job_id, NULL::VARCHAR AS posting_id, NULL::VARCHAR AS description LIMIT 0) TO $file (FORMAT parquet);

-- name: untitled_texts
-- $dir: the state folder just written; $texts: the jobs' texts (job_texts). The text of each job whose
-- title names no occupation the lexicon knows ("Team Member", "Associate II"): the description the
-- job will show, keyed by its posting, for text_occupations.
CREATE OR REPLACE TABLE texts_to_classify AS
WITH untitled AS (
  SELECT jp.job_id
  FROM job_postings jp JOIN read_parquet($dir || '/postings/*/*.parquet', hive_partitioning = false) p USING (posting_id)
  LEFT JOIN title_occupations o USING (title)
  WHERE jp.prio = 1 AND o.title IS NULL
)
SELECT t.posting_id AS key, t.description AS text
FROM read_parquet($texts || '/*/*.parquet', hive_partitioning = false) t SEMI JOIN untitled USING (job_id)
WHERE t.description IS NOT NULL;

-- name: text_tokens
-- The words of every text of texts_to_classify (key, text), for lexicon_hits.
CREATE OR REPLACE TABLE words_to_match AS
SELECT key, unnest(w) AS word, generate_subscripts(w, 1) AS i
FROM (SELECT key, string_split(title_words(text), ' ') AS w FROM texts_to_classify);

-- name: text_occupations
-- The occupation each text names, from its lexicon_hits, into text_occupations: each occupation scored by
-- the words its phrases cover ("is adding a Diesel Mechanic ... experience as a Diesel Mechanic"); the
-- highest wins, then the earliest named. An occupation covering a single word ("work with our drivers")
-- is a mention, not the role: a text naming none twice or in two words has none.
CREATE OR REPLACE TABLE text_occupations AS
WITH scored AS (
  SELECT key, soc_code, any_value(soc_title) AS soc_title, sum(n) AS covered, min(i) AS first
  FROM lexicon_hits GROUP BY key, soc_code
)
SELECT key, arg_max({soc_code: soc_code, title: soc_title}, {covered: covered, earliest: -first, soc_code: soc_code}) AS occupation
FROM scored WHERE covered >= 2 GROUP BY key;

-- name: skill_vocabulary
-- The skills vocabulary (src/catalog/reference/skills.ts), filled by the publisher.
CREATE OR REPLACE TABLE skill_vocabulary (skill VARCHAR);

-- name: skill_reader
-- skills_in(text): the vocabulary's skills a text names, as the vocabulary spells them, sorted. A skill
-- stands as a word of its own ("C" is not one in "C++", nor "SQL" in "PL/SQL"), the longest first
-- ("SQL Server" over "SQL"); one spelt in lower case matches in any case ("Forklift"), others exactly
-- ("Go", "R"). Two expressions, each the alternation of its skills, built once: the lower-case skills
-- over the text in lower case, the others over the text as written. Each match is taken whole (group 0)
-- with the character on each side that ends the word, then trimmed: RE2 finds whole matches with its
-- DFA, while a capture group needs its NFA, which is several times slower over a million descriptions.
SET VARIABLE skill_any_case = (
  SELECT '(?:^|[^\w+#&/-])(?:' || string_agg(regexp_escape(skill), '|' ORDER BY strlen(skill) DESC, skill) || ')(?:[^\w+#&/-]|$)'
  FROM skill_vocabulary WHERE skill = lower(skill));
SET VARIABLE skill_as_spelt = (
  SELECT '(?:^|[^\w+#&/-])(?:' || string_agg(regexp_escape(skill), '|' ORDER BY strlen(skill) DESC, skill) || ')(?:[^\w+#&/-]|$)'
  FROM skill_vocabulary WHERE skill <> lower(skill));
CREATE OR REPLACE MACRO skill_word(m) AS regexp_replace(m, '^[^[:alnum:]]|[^[:alnum:]+#é]$', '', 'g');
CREATE OR REPLACE MACRO skills_in(txt) AS CASE WHEN txt IS NOT NULL THEN list_sort(list_distinct(list_concat(
  list_transform(regexp_extract_all(lower(txt), getvariable('skill_any_case'), 0), m -> skill_word(m)),
  list_transform(regexp_extract_all(txt, getvariable('skill_as_spelt'), 0), m -> skill_word(m))))) END;

-- name: job_part
-- $dir: the state folder just written; $texts: the jobs' texts (job_texts); $part: which part; $watermark: this publication's data
-- cut-off. A job is not_current when every posting is no longer listed or a posting's latest
-- application check found it closed; current when a completed read of its source listed it within
-- 31 days; uncertain otherwise. Stale: current for more than 60 days since first seen.
CREATE OR REPLACE TABLE job_part AS
WITH agg AS (
  SELECT jp.job_id,
    arg_min(p.posting_id, jp.text_prio) AS text_posting,
    arg_min(p.text_hash, jp.text_prio) AS text_hash,
    arg_min(p.title, jp.prio) AS title,
    arg_min(p.employer_name, jp.prio) AS employer_name,
    arg_min(jp.linked_company_id, jp.prio) FILTER (WHERE jp.linked_company_id IS NOT NULL) AS company_id,
    arg_min(p.work_arrangement, jp.prio) FILTER (WHERE p.work_arrangement IS NOT NULL) AS work_arrangement,
    list_sort(list_distinct(flatten(list(p.locations)))) AS locations,
    min(p.first_seen_at) AS job_first_seen_at,
    bool_and(p.status = 'no_longer_listed') OR bool_or(p.application_check.result = 'closed') AS closed,
    bool_or(p.status = 'listed' AND p.listed_at >= $watermark::TIMESTAMPTZ - INTERVAL 31 DAY) AS recently_listed,
    -- Posting reality: the employer's own postings (its ATS, its careers page) beyond the first of each
    -- source are reposts; whether one of them is still listed and was delivered by a read of the last two
    -- days (a board read only in part for days says nothing of a posting gone; none of them: unknown); the latest
    -- complete read that listed the job, and the days from its first sign to then.
    (count(*) FILTER (WHERE employer_own(p.source_class))
      - count(DISTINCT p.source) FILTER (WHERE employer_own(p.source_class)))::INTEGER AS reposts,
    CASE WHEN bool_or(employer_own(p.source_class))
         THEN bool_or(employer_own(p.source_class) AND p.status = 'listed'
                      AND p.last_seen_at >= $watermark::TIMESTAMPTZ - INTERVAL 2 DAY) END AS listed_by_employer,
    max(p.listed_at) AS last_verified_at,
    least(min(p.posted_at), min(p.first_seen_at)) AS opened_at,
    -- Sorting the list afterwards is much cheaper than an ordered aggregate; prio leads the struct.
    list_transform(list_sort(list({
      prio: jp.prio, posting_id: p.posting_id, source: p.source, source_class: p.source_class,
      source_posting_id: p.source_posting_id, posting_url: p.posting_url, application_url: p.application_url,
      attribution: p.attribution, status: p.status, employment_type: p.employment_type, posted_at: p.posted_at,
      first_seen_at: p.first_seen_at, last_fetch_at: p.last_fetch_at, pay: p.pay,
      application_check: p.application_check, source_data: p.source_data
    })), x -> struct_extract_postings(x)) AS postings
  FROM job_postings jp JOIN read_parquet($dir || '/postings/part=' || $part || '/*.parquet', hive_partitioning = false) p USING (posting_id)
  WHERE jp.part = $part
  GROUP BY jp.job_id
),
shaped AS (
  SELECT job_id, CASE WHEN closed THEN 'not_current' WHEN recently_listed THEN 'current' ELSE 'uncertain' END AS currentness,
         company_id, employer_name, title, coalesce(o.occupation, d.occupation) AS occupation, text_posting, text_hash, work_arrangement, locations, job_first_seen_at,
         reposts, listed_by_employer, last_verified_at,
         greatest(floor((epoch(last_verified_at) - epoch(opened_at)) / 86400), 0)::INTEGER AS days_open,
         postings
  FROM agg LEFT JOIN title_occupations o USING (title) LEFT JOIN text_occupations d ON d.key = agg.text_posting
),
staled AS (
  SELECT *, currentness = 'current' AND $watermark::TIMESTAMPTZ - job_first_seen_at > INTERVAL 60 DAY AS stale FROM shaped
),
-- What a change means: anything the job says, except read and check timestamps, which advance
-- with every read (postings[].last_fetch_at, postings[].application_check.checked_at).
hashed AS (
  SELECT *, hash({
    currentness: currentness, stale: stale, company_id: company_id, employer_name: employer_name, title: title,
    occupation: occupation.soc_code, description: text_hash, work_arrangement: work_arrangement, locations: locations, job_first_seen_at: job_first_seen_at,
    postings: list_transform(postings, p -> {
      posting_id: p.posting_id, source_posting_id: p.source_posting_id, posting_url: p.posting_url,
      application_url: p.application_url, attribution: p.attribution, status: p.status,
      employment_type: p.employment_type, posted_at: p.posted_at, first_seen_at: p.first_seen_at, pay: p.pay,
      check_result: p.application_check.result, source_data: p.source_data})
  }) AS content_hash
  FROM staled
)
SELECT h.job_id, h.currentness, h.stale, h.company_id, h.employer_name, h.title, h.occupation, t.description,
       stated_pay(t.description) AS description_pay, coalesce(skills_in(t.description), []) AS skills, h.work_arrangement, h.locations, h.job_first_seen_at,
       coalesce(pj.curated_at, $watermark::TIMESTAMPTZ) AS curated_at,
       CASE WHEN pj.content_hash = h.content_hash THEN pj.job_updated_at ELSE $watermark::TIMESTAMPTZ END AS job_updated_at,
       h.postings, h.content_hash, h.reposts, h.days_open, h.last_verified_at, h.listed_by_employer
FROM hashed h
LEFT JOIN prev_job_times pj USING (job_id)
LEFT JOIN read_parquet($texts || '/part=' || $part || '/*.parquet', hive_partitioning = false) t ON t.posting_id = h.text_posting;

-- name: write_part
-- $out: this part's file in the snapshot being written.
INSERT INTO job_index SELECT job_id, currentness, job_updated_at, content_hash FROM job_part;
COPY (SELECT * FROM job_part ORDER BY job_updated_at DESC, job_id DESC) TO $out (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000);
DROP TABLE job_part;
