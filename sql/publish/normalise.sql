-- Stage "normalise": each posting read today in canonical form. Titles, employer names and the short
-- coded values repeat a lot, so they are normalised once per distinct text and joined back.

-- name: location_map
CREATE OR REPLACE TABLE location_map (
  raw VARCHAR PRIMARY KEY, city VARCHAR, state VARCHAR, country VARCHAR,
  cbsa_code VARCHAR, msa_name VARCHAR, remote BOOLEAN);

-- name: place_names
CREATE OR REPLACE TABLE place_names (name VARCHAR);

-- name: dictionaries
-- A title ending in a place ("Operating Room Nurse - Vancouver") loses it: copies add or drop it.
CREATE OR REPLACE TABLE title_map AS
WITH cleaned AS (SELECT title AS raw, clean_title(title) AS t0 FROM (SELECT DISTINCT title FROM incoming WHERE title IS NOT NULL)),
split AS (SELECT raw, t0, regexp_extract(t0, '^(.*\S)(?:\s+[-–|]\s+|,\s*)([^,|–-]+)$', ['head', 'tail']) AS parts FROM cleaned),
placeless AS (
  SELECT raw, CASE WHEN parts.tail <> '' AND plain_words(parts.tail) IN (SELECT name FROM place_names) THEN parts.head ELSE t0 END AS title
  FROM split
)
SELECT raw, title, coalesce(title_words(title), '') AS title_key, coalesce(title_core(title), '') AS title_core FROM placeless;
CREATE OR REPLACE TABLE employer_map AS
SELECT employer_name AS raw, squash(employer_name) AS employer_name, employer_key(employer_name) AS employer_key
FROM (SELECT DISTINCT employer_name FROM incoming WHERE employer_name IS NOT NULL);
CREATE OR REPLACE TABLE code_map AS
SELECT 'work_arrangement' AS kind, v AS raw, work_arrangement_of(v) AS value FROM (SELECT DISTINCT work_arrangement AS v FROM incoming WHERE v IS NOT NULL)
UNION ALL
SELECT 'employment_type', v, employment_type_of(v) FROM (SELECT DISTINCT employment_type AS v FROM incoming WHERE v IS NOT NULL)
UNION ALL
SELECT 'pay_interval', v, pay_interval_of(v) FROM (SELECT DISTINCT pay."interval" AS v FROM incoming WHERE v IS NOT NULL);

-- name: observed
CREATE OR REPLACE TABLE observed AS
SELECT
  uuid_from(b.source || chr(31) || b.board || chr(31) || b.source_posting_id) AS posting_id,
  b.source, b.board, b.source_posting_id,
  coalesce(b.source_class, 'unknown') AS source_class,
  coalesce(b.source_data.source_type, b.source_type) AS source_type,
  em.employer_name, lower(b.employer_domain) AS employer_domain, em.employer_key,
  tm.title, coalesce(tm.title_key, '') AS title_key, coalesce(tm.title_core, '') AS title_core,
  coalesce(b.locations, []::VARCHAR[]) AS raw_locations,
  wa.value AS work_arrangement,
  et.value AS employment_type,
  CASE WHEN b.pay IS NULL OR (b.pay.min IS NULL AND b.pay.max IS NULL) OR b.pay.currency IS NULL THEN NULL
       ELSE {currency: upper(b.pay.currency), floor: b.pay.min, ceiling: b.pay.max, "interval": coalesce(pi.value, 'unknown')} END AS pay,
  TRY_CAST(b.posted_at AS TIMESTAMPTZ) AS posted_at,
  nullif(b.posting_url, '') AS posting_url,
  nullif(b.application_url, '') AS application_url,
  url_key(b.posting_url) AS posting_url_key,
  url_key(b.application_url) AS application_url_key,
  {required: coalesce(b.attribution.required, false), text: b.attribution.text, url: b.attribution.url} AS attribution,
  CASE WHEN b.application_check.result IN ('available', 'closed', 'broken', 'inconclusive')
       THEN {result: b.application_check.result, checked_at: TRY_CAST(b.application_check.checked_at AS TIMESTAMPTZ)} END AS application_check,
  {source_type: coalesce(b.source_data.source_type, b.source_type), department: b.source_data.department,
   requisition_id: b.source_data.requisition_id} AS source_data,
  r.finished_at AS read_at, r.complete AS read_complete,
  -- The collectors' own first sighting, which for a first delivery reaches back before it.
  TRY_CAST(b.first_seen_at AS TIMESTAMPTZ) AS reported_first_seen_at
FROM incoming b
JOIN reads r ON r.source = b.source AND r.board = b.board
LEFT JOIN title_map tm ON tm.raw = b.title
LEFT JOIN employer_map em ON em.raw = b.employer_name
LEFT JOIN code_map wa ON wa.kind = 'work_arrangement' AND wa.raw = b.work_arrangement
LEFT JOIN code_map et ON et.kind = 'employment_type' AND et.raw = b.employment_type
LEFT JOIN code_map pi ON pi.kind = 'pay_interval' AND pi.raw = b.pay."interval";

-- name: observed_locations
-- Parsed locations of each posting, without duplicates and without pure "Remote".
CREATE OR REPLACE TABLE observed_locations AS
SELECT posting_id,
       list(DISTINCT {city: m.city, state: m.state, country: m.country,
                      msa: CASE WHEN m.cbsa_code IS NULL THEN NULL ELSE {cbsa_code: m.cbsa_code, name: m.msa_name} END})
         FILTER (WHERE m.city IS NOT NULL OR m.state IS NOT NULL OR m.country IS NOT NULL) AS locations,
       bool_or(m.remote) AS says_remote
FROM (SELECT posting_id, unnest(raw_locations) AS raw FROM observed) o
JOIN location_map m USING (raw)
GROUP BY posting_id;

-- name: drop_incoming
DROP TABLE incoming;
