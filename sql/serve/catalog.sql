-- Opening a catalog snapshot for serving: narrow in-memory tables that the filters of the read API
-- run over, and the job documents as JSON Lines in the serving cache. Every table is named with the
-- snapshot's prefix ($p is inlined: table names cannot be parameters), so two snapshots can be open
-- at once while the server switches.
--
-- doc: the job's number in the documents file (the order of the snapshot's jobs files);
-- ord: its place in the default order, job_updated_at desc, job_id desc.

-- name: files
-- Where each jobs file starts in the doc numbering (row counts come from the Parquet footers).
CREATE TABLE {p}files AS
SELECT filename, (sum(n) OVER (ORDER BY filename) - n)::INTEGER AS base
FROM (SELECT filename, count(*) AS n FROM read_parquet({files}, filename = true) GROUP BY filename);

-- name: numbered
-- The jobs files' rows with their doc numbers: the one definition of the numbering.
-- {added}: the columns a snapshot of an older format lacks, as nulls (src/jobs/snapshot.ts).
CREATE VIEW {p}numbered AS
SELECT (f.base + r.file_row_number)::INTEGER AS doc, r.* EXCLUDE (filename, file_row_number){added}
FROM read_parquet({files}, filename = true, file_row_number = true) r JOIN {p}files f ON f.filename = r.filename;

-- name: postings
-- One row per posting; pay per year where its interval says how to get there (per_year; unknown: NULL).
-- described_*: the pay the job's description states, on every posting of a job whose postings state
-- no yearly pay (what the pay filters read with pay_source=description).
CREATE TABLE {p}postings AS
SELECT
  doc,
  p.posting_id,
  lower(p.source) AS source,
  p.source_class,
  lower(p.source_data.source_type) AS source_type,
  p.source_posting_id,
  p.status,
  lower(p.employment_type) AS employment_type,
  p.posted_at,
  p.last_fetch_at,
  p.pay IS NOT NULL AS has_pay,
  p.posting_url IS NOT NULL AS has_posting_url,
  p.application_url IS NOT NULL AS has_application_url,
  p.pay.currency AS pay_currency,
  p.pay.floor * per_year(p.pay.interval) AS pay_floor_year,
  p.pay.ceiling * per_year(p.pay.interval) AS pay_ceiling_year,
  p.application_check.result AS check_result,
  p.application_check.checked_at AS checked_at,
  described.currency AS described_currency,
  described.floor AS described_floor_year,
  described.ceiling AS described_ceiling_year
FROM (SELECT doc, unnest(postings) AS p,
             CASE WHEN description_pay IS NULL THEN NULL WHEN annual_pay(postings) IS NULL THEN described_pay(description_pay) END AS described
      FROM {p}numbered)
ORDER BY doc;

-- name: locations
CREATE TABLE {p}locations AS
SELECT
  doc,
  lower(l.city) AS city,
  upper(l.state) AS state,
  upper(l.country) AS country,
  l.msa.cbsa_code AS cbsa_code,
  lower(concat_ws(', ', l.city, l.state, l.country, l.msa.name)) AS text
FROM (SELECT doc, unnest(locations) AS l FROM {p}numbered)
ORDER BY doc;

-- name: codes
-- Small numbers for the values of the low-cardinality posting and location columns. The first 62
-- values of each kind get a bit in the jobs' masks below; a filter on a value with no bit (a
-- catalog with more distinct values) falls back to a join with the postings or locations.
CREATE TABLE {p}codes AS
SELECT kind, value, (row_number() OVER (PARTITION BY kind ORDER BY value) - 1)::INTEGER AS code
FROM (
  SELECT DISTINCT 'source' AS kind, source AS value FROM {p}postings
  UNION SELECT DISTINCT 'source_class', source_class FROM {p}postings
  UNION SELECT DISTINCT 'source_type', source_type FROM {p}postings
  UNION SELECT DISTINCT 'status', status FROM {p}postings
  UNION SELECT DISTINCT 'employment_type', employment_type FROM {p}postings
  UNION SELECT DISTINCT 'pay_currency', pay_currency FROM {p}postings
  UNION SELECT DISTINCT 'check_result', check_result FROM {p}postings
  UNION SELECT DISTINCT 'country', country FROM {p}locations
  UNION SELECT DISTINCT 'subdivision', country || '-' || state FROM {p}locations
  UNION SELECT DISTINCT 'msa', cbsa_code FROM {p}locations
)
WHERE value IS NOT NULL;

-- name: masks
-- Per job, one bit per value some posting (or location) of it has: "a posting from greenhouse" is
-- (source_mask & bit) <> 0 without touching the postings. has_* masks: bit 0 a posting has it,
-- bit 1 a posting lacks it. Subdivisions (country-state) and metros have more values: three masks
-- of 62 bits each (block = code / 62). The *_codes lists: the distinct codes of the values a group
-- counts the job in, -1 for none (a posting or location without one), so a group unnests the job's
-- own row instead of joining its postings or locations.
CREATE TABLE {p}masks AS
WITH bits AS (
  SELECT kind, value, code, code // 62 AS block,
         CASE WHEN code < (CASE WHEN kind IN ('subdivision', 'msa') THEN 186 ELSE 62 END) THEN (1::BIGINT << (code % 62)) ELSE 0::BIGINT END AS bit
  FROM {p}codes
),
posting_masks AS (
  SELECT p.doc,
    bit_or(coalesce(s.bit, 0)) AS source_mask,
    bit_or(coalesce(c.bit, 0)) AS class_mask,
    bit_or(coalesce(t.bit, 0)) AS type_mask,
    bit_or(coalesce(st.bit, 0)) AS status_mask,
    bit_or(coalesce(e.bit, 0)) AS employment_mask,
    bit_or(coalesce(cu.bit, 0)) AS currency_mask,
    bit_or(coalesce(ck.bit, 0)) AS check_mask,
    bit_or(CASE WHEN p.has_pay THEN 1 ELSE 2 END)::BIGINT AS pay_mask,
    bit_or(CASE WHEN p.has_posting_url THEN 1 ELSE 2 END)::BIGINT AS posting_url_mask,
    bit_or(CASE WHEN p.has_application_url THEN 1 ELSE 2 END)::BIGINT AS application_url_mask,
    list(DISTINCT coalesce(e.code, -1)) AS employment_codes,
    list(DISTINCT coalesce(c.code, -1)) AS class_codes
  FROM {p}postings p
  LEFT JOIN bits s ON s.kind = 'source' AND s.value = p.source
  LEFT JOIN bits c ON c.kind = 'source_class' AND c.value = p.source_class
  LEFT JOIN bits t ON t.kind = 'source_type' AND t.value = p.source_type
  LEFT JOIN bits st ON st.kind = 'status' AND st.value = p.status
  LEFT JOIN bits e ON e.kind = 'employment_type' AND e.value = p.employment_type
  LEFT JOIN bits cu ON cu.kind = 'pay_currency' AND cu.value = p.pay_currency
  LEFT JOIN bits ck ON ck.kind = 'check_result' AND ck.value = p.check_result
  GROUP BY p.doc
),
location_masks AS (
  SELECT l.doc,
    bit_or(coalesce(b.bit, 0)) AS country_mask,
    bit_or(CASE WHEN sd.block = 0 THEN sd.bit ELSE 0 END) AS subdivision_mask0,
    bit_or(CASE WHEN sd.block = 1 THEN sd.bit ELSE 0 END) AS subdivision_mask1,
    bit_or(CASE WHEN sd.block = 2 THEN sd.bit ELSE 0 END) AS subdivision_mask2,
    bit_or(CASE WHEN m.block = 0 THEN m.bit ELSE 0 END) AS msa_mask0,
    bit_or(CASE WHEN m.block = 1 THEN m.bit ELSE 0 END) AS msa_mask1,
    bit_or(CASE WHEN m.block = 2 THEN m.bit ELSE 0 END) AS msa_mask2,
    list(DISTINCT coalesce(b.code, -1)) AS country_codes,
    list(DISTINCT coalesce(sd.code, -1)) AS subdivision_codes,
    list(DISTINCT coalesce(m.code, -1)) AS msa_codes
  FROM {p}locations l
  LEFT JOIN bits b ON b.kind = 'country' AND b.value = l.country
  LEFT JOIN bits sd ON sd.kind = 'subdivision' AND sd.value = l.country || '-' || l.state
  LEFT JOIN bits m ON m.kind = 'msa' AND m.value = l.cbsa_code
  GROUP BY l.doc
)
SELECT * FROM posting_masks FULL JOIN location_masks USING (doc);

-- name: jobs
-- Coded columns: currentness 0 current, 1 uncertain, 2 not_current; work_arrangement 0 unstated,
-- 1 remote, 2 hybrid, 3 in_person. Sorted by ord: the default listing reads it in order.
CREATE TABLE {p}jobs AS
SELECT
  j.doc,
  (row_number() OVER (ORDER BY job_updated_at DESC, job_id DESC) - 1)::INTEGER AS ord,
  job_id,
  CASE currentness WHEN 'current' THEN 0 WHEN 'uncertain' THEN 1 ELSE 2 END::UTINYINT AS currentness,
  stale,
  company_id,
  lower(employer_name) AS employer_lc,
  employer_name,
  CASE work_arrangement WHEN 'remote' THEN 1 WHEN 'hybrid' THEN 2 WHEN 'in_person' THEN 3 ELSE 0 END::UTINYINT AS work_arrangement,
  description IS NOT NULL AND description <> '' AS has_description,
  len(list_filter(locations, l -> l.city IS NOT NULL OR l.state IS NOT NULL OR l.country IS NOT NULL OR l.msa IS NOT NULL)) > 0 AS has_location,
  job_first_seen_at,
  curated_at,
  job_updated_at,
  coalesce(m.source_mask, 0) AS source_mask,
  coalesce(m.class_mask, 0) AS class_mask,
  coalesce(m.type_mask, 0) AS type_mask,
  coalesce(m.status_mask, 0) AS status_mask,
  coalesce(m.employment_mask, 0) AS employment_mask,
  coalesce(m.currency_mask, 0) AS currency_mask,
  coalesce(m.check_mask, 0) AS check_mask,
  coalesce(m.pay_mask, 0) AS pay_mask,
  coalesce(m.posting_url_mask, 0) AS posting_url_mask,
  coalesce(m.application_url_mask, 0) AS application_url_mask,
  coalesce(m.country_mask, 0) AS country_mask,
  coalesce(m.subdivision_mask0, 0) AS subdivision_mask0,
  coalesce(m.subdivision_mask1, 0) AS subdivision_mask1,
  coalesce(m.subdivision_mask2, 0) AS subdivision_mask2,
  coalesce(m.msa_mask0, 0) AS msa_mask0,
  coalesce(m.msa_mask1, 0) AS msa_mask1,
  coalesce(m.msa_mask2, 0) AS msa_mask2,
  coalesce(m.country_codes, [-1]) AS country_codes,
  coalesce(m.subdivision_codes, [-1]) AS subdivision_codes,
  coalesce(m.msa_codes, [-1]) AS msa_codes,
  coalesce(m.employment_codes, [-1]) AS employment_codes,
  coalesce(m.class_codes, [-1]) AS class_codes,
  pay.band AS pay_band,
  CASE pay.source WHEN 'posted' THEN 1 WHEN 'description' THEN 2 ELSE 0 END::UTINYINT AS pay_source,
  occupation.soc_code AS soc_code,
  skills,
  listed_by_employer,
  reposts,
  days_open,
  last_verified_at
FROM (SELECT *, list_transform([job_pay(postings, description_pay)], y -> {band: pay_band(y), source: y.source})[1] AS pay
      FROM {p}numbered) j
LEFT JOIN {p}masks m USING (doc)
ORDER BY ord;

-- name: redirects
CREATE TABLE {p}redirects AS SELECT from_job_id, to_job_id FROM read_parquet({dir} || '/redirects.parquet');

-- name: withdrawn
CREATE TABLE {p}withdrawn AS SELECT job_id FROM read_parquet({dir} || '/withdrawn.parquet');

-- name: macros
-- A job as the API returns it by default (timestamps RFC 3339 in UTC with milliseconds), from a row of
-- a jobs file: the documents file below and the change feed's events (sql/serve/events.sql) both write
-- it. The postings' source_data is written apart, for include=source_data.
CREATE OR REPLACE MACRO api_time(t) AS strftime(t, '%Y-%m-%dT%H:%M:%S.%gZ');
-- Pay per year: hourly x 2,080, daily x 260, weekly x 52, monthly x 12 (spec 4.2); an unknown interval has none.
CREATE OR REPLACE MACRO per_year(pay_interval) AS CASE pay_interval WHEN 'hour' THEN 2080 WHEN 'day' THEN 260
  WHEN 'week' THEN 52 WHEN 'month' THEN 12 WHEN 'year' THEN 1 END;
-- A posting's pay as a yearly range in its own currency, or NULL when its interval is unknown.
CREATE OR REPLACE MACRO annual(pay) AS CASE WHEN per_year(pay.interval) IS NULL THEN NULL ELSE struct_pack(
  floor := round(pay.floor * per_year(pay.interval), 2), ceiling := round(pay.ceiling * per_year(pay.interval), 2)) END;
-- The yearly ranges of the postings that state pay with a known interval, with their currencies.
CREATE OR REPLACE MACRO annual_ranges(postings) AS list_filter(
  list_transform(postings, p -> struct_insert(annual(p.pay), currency := p.pay.currency)),
  r -> r.floor IS NOT NULL OR r.ceiling IS NOT NULL);
-- The currency most of `ranges` are in; of two as common, the first in alphabetical order.
CREATE OR REPLACE MACRO main_currency(ranges) AS list_sort(list_transform(
  list_distinct(list_transform(ranges, r -> r.currency)),
  c -> struct_pack(n := -len(list_filter(ranges, r -> r.currency = c)), c := c)))[1].c;
-- From the lowest floor to the highest ceiling of `ranges` in `in_currency`.
CREATE OR REPLACE MACRO range_in(ranges, in_currency) AS CASE WHEN in_currency IS NULL THEN NULL ELSE struct_pack(
  currency := in_currency,
  floor := list_min(list_transform(list_filter(ranges, r -> r.currency = in_currency), r -> r.floor)),
  ceiling := list_max(list_transform(list_filter(ranges, r -> r.currency = in_currency), r -> r.ceiling)),
  source := 'posted') END;
-- The yearly range of its postings in their main currency (the lambda computes the ranges once).
CREATE OR REPLACE MACRO annual_pay(postings) AS list_transform([annual_ranges(postings)], rs -> range_in(rs, main_currency(rs)))[1];
-- The yearly range a job's description states (description_pay: what the publisher read in it), or NULL.
CREATE OR REPLACE MACRO described_pay(stated) AS list_transform([annual(stated)], y -> CASE WHEN y IS NULL THEN NULL ELSE
  struct_pack(currency := stated.currency, floor := y.floor, ceiling := y.ceiling, source := 'description') END)[1];
-- A job's yearly pay: its postings', or when none states one with a known interval, its description's.
CREATE OR REPLACE MACRO job_pay(postings, stated) AS coalesce(annual_pay(postings), described_pay(stated));
-- The bands of group_by=pay_band, from and to per year in each currency (openapi.yaml names them).
CREATE OR REPLACE MACRO band_edges(currency) AS CASE currency
  WHEN 'INR' THEN [0, 300000, 600000, 1000000, 1500000, 2500000, 4000000]
  WHEN 'BRL' THEN [0, 30000, 60000, 100000, 150000, 250000, 400000]
  ELSE [0, 25000, 50000, 75000, 100000, 150000, 200000] END;
-- The band of the middle of a yearly range ('USD 50000-75000': from 50,000 up to, not including, 75,000;
-- 'USD 200000+' above the last edge); NULL without one.
CREATE OR REPLACE MACRO band_of(currency, middle) AS list_transform([band_edges(currency)], edges -> list_transform(
  [len(list_filter(edges, e -> e <= middle))], i -> currency || ' ' || edges[i] || coalesce('-' || edges[i + 1], '+'))[1])[1];
CREATE OR REPLACE MACRO pay_band(yearly) AS list_transform([yearly], y -> CASE WHEN coalesce(y.floor, y.ceiling) IS NULL THEN NULL
  ELSE band_of(y.currency, (coalesce(y.floor, y.ceiling) + coalesce(y.ceiling, y.floor)) / 2) END)[1];
CREATE OR REPLACE MACRO job_document(job_row) AS struct_pack(
  job_id := job_row.job_id, currentness := job_row.currentness, stale := job_row.stale, company_id := job_row.company_id,
  employer_name := job_row.employer_name, title := job_row.title, description := job_row.description,
  work_arrangement := job_row.work_arrangement, locations := job_row.locations,
  annual_pay := job_pay(job_row.postings, job_row.description_pay),
  occupation := job_row.occupation,
  skills := coalesce(job_row.skills, []),
  reposts := job_row.reposts,
  days_open := job_row.days_open,
  last_verified_at := api_time(job_row.last_verified_at),
  listed_by_employer := job_row.listed_by_employer,
  job_first_seen_at := api_time(job_row.job_first_seen_at),
  curated_at := api_time(job_row.curated_at),
  job_updated_at := api_time(job_row.job_updated_at),
  postings := list_transform(job_row.postings, p -> struct_pack(
    posting_id := p.posting_id, source := p.source, source_class := p.source_class,
    source_posting_id := p.source_posting_id, posting_url := p.posting_url, application_url := p.application_url,
    attribution := p.attribution, status := p.status, employment_type := p.employment_type,
    posted_at := api_time(p.posted_at),
    first_seen_at := api_time(p.first_seen_at),
    last_fetch_at := api_time(p.last_fetch_at),
    pay := CASE WHEN p.pay IS NULL THEN NULL ELSE struct_pack(
      currency := p.pay.currency, floor := p.pay.floor, ceiling := p.pay.ceiling, "interval" := p.pay.interval,
      annual := annual(p.pay)) END,
    application_check := CASE WHEN p.application_check IS NULL THEN NULL ELSE struct_pack(
      result := p.application_check.result,
      checked_at := api_time(p.application_check.checked_at)) END
  ))
);

-- name: documents
-- Each job as the API returns it by default, one per line, in doc order: the order of the rows in the
-- jobs files read in the order of their names, which a COPY from one table function keeps (DuckDB's
-- order preservation), without sorting gigabytes of JSON by doc.
COPY (SELECT unnest(job_document(job_row)) FROM read_parquet({files}) job_row) TO {out} (FORMAT json);

-- name: source_data
-- For include=source_data: per job, the source_data of its postings in posting order, in doc order (as
-- the documents).
COPY (SELECT list_transform(postings, p -> p.source_data) AS s FROM read_parquet({files})) TO {out} (FORMAT json);

-- name: texts
-- Title and description of every job in doc order, for the text index.
SELECT title, description FROM read_parquet({files}, filename = true, file_row_number = true) ORDER BY filename, file_row_number;
