-- Stage "merge": candidate pairs of postings that may be copies of one opening, for the clusterer.
--
-- Copies of one opening begin the same way: aggregators truncate from the end, rewording touches
-- lists further down, and the opening paragraph (team, place, what the role is) is what sets an
-- opening apart from the employer's other openings with the same title. So a candidate pair is two
-- postings of one employer and title core whose lead sentences (the first three of at least 30
-- characters) agree, or that share a specific listing or application URL.
-- Postings, employers and titles get dense integer numbers so that the joins stay cheap.

-- name: numbered
-- The employer of a posting is its normalised name; a company absorbed by another in the registry
-- (whose postings may show either name) counts as its acquirer.
CREATE OR REPLACE TABLE employers AS
SELECT p.posting_id, coalesce(a.acquirer_key, p.employer_key) AS employer
FROM postings p
LEFT JOIN (
  SELECT employer_key(r.name) AS alias_key, min(employer_key(c.name)) AS acquirer_key
  FROM registry_aliases r JOIN registry_companies c USING (company_id)
  GROUP BY 1
) a ON a.alias_key = p.employer_key
WHERE p.employer_key IS NOT NULL;
CREATE OR REPLACE TABLE employer_numbers AS
SELECT employer, row_number() OVER (ORDER BY employer) AS e FROM (SELECT DISTINCT employer FROM employers);
CREATE OR REPLACE TABLE core_numbers AS
SELECT title_core, row_number() OVER (ORDER BY title_core) AS c FROM (SELECT DISTINCT title_core FROM postings WHERE title_core <> '');
CREATE OR REPLACE TABLE live AS
SELECT row_number() OVER (ORDER BY hash(posting_id), posting_id) AS p, posting_id, e, c, title_key, source || '/' || board AS board_key,
       epoch_ms(first_seen_at) AS first_ms, epoch_ms(last_seen_at) AS last_ms,
       application_url_key, posting_url_key,
       list_distinct(list_filter(list_transform(locations, l ->
         CASE WHEN l.msa IS NOT NULL THEN 'm:' || l.msa.cbsa_code
              WHEN l.city IS NOT NULL THEN 'c:' || lower(l.city) || '|' || coalesce(l.country, '') END), k -> k IS NOT NULL)) AS places,
       list_distinct(list_filter(list_transform(locations, l -> l.country), x -> x IS NOT NULL)) AS countries
FROM postings JOIN employers USING (posting_id) JOIN employer_numbers USING (employer) JOIN core_numbers USING (title_core)
WHERE NOT withdrawn;

-- name: fingerprints
-- For the descriptions of postings that share their employer and title core with another (the others
-- have nobody to be compared with): the hashes of their whole sentences (a text cut short with "..."
-- loses its partial last one) and their lead, the first three of at least 30 characters.
CREATE OR REPLACE TABLE fingerprints AS
WITH shared_blocks AS (SELECT e, c FROM live GROUP BY e, c HAVING count(*) > 1),
split AS (
  SELECT l.p, ends_with(x.description, '...') OR ends_with(x.description, '…') AS cut, sentences(x.description) AS ss
  FROM live l SEMI JOIN shared_blocks USING (e, c) JOIN texts x USING (posting_id)
  WHERE x.description IS NOT NULL
),
whole AS (SELECT p, cut, list_transform(CASE WHEN cut THEN ss[:-2] ELSE ss END, s -> (hash(s) >> 32)::UINTEGER) AS hs, CASE WHEN cut THEN ss[:-2] ELSE ss END AS ws FROM split)
SELECT p, cut,
       list_transform(list_filter(ws, s -> strlen(s) >= 30)[1:3], s -> (hash(s) >> 32)::UINTEGER) AS lead,
       list_distinct(hs) AS hashes
FROM whole;

-- name: pairs
-- Candidates share their first lead sentence: every lead must agree in the end, and the later ones
-- ("Day to day, you will...") are often common to many openings, so joining on them only costs.
CREATE OR REPLACE TABLE lead_pairs AS
WITH leads AS (SELECT l.p, l.e, l.c, f.lead[1] AS h FROM live l JOIN fingerprints f USING (p) WHERE len(f.lead) > 0)
SELECT DISTINCT a.p AS a, b.p AS b
FROM leads a JOIN leads b ON a.e = b.e AND a.c = b.c AND a.h = b.h AND a.p < b.p;
-- A copy cut so short that no whole sentence is left: paired with its block, judged by its prefix.
CREATE OR REPLACE TABLE thin_pairs AS
WITH thin AS (
  SELECT l.p, l.e, l.c FROM live l LEFT JOIN fingerprints f USING (p)
  WHERE f.p IS NULL OR len(f.lead) = 0
),
blocks AS (SELECT e, c FROM live GROUP BY e, c HAVING count(*) BETWEEN 2 AND 30)
SELECT DISTINCT least(t.p, l.p) AS a, greatest(t.p, l.p) AS b
FROM thin t JOIN blocks USING (e, c) JOIN live l ON l.e = t.e AND l.c = t.c AND l.p <> t.p;
CREATE OR REPLACE TABLE url_pairs AS
WITH urls AS (
  SELECT p, e, k AS url FROM (SELECT p, e, unnest([application_url_key, posting_url_key]) AS k FROM live) WHERE k IS NOT NULL
),
specific AS (SELECT url FROM urls GROUP BY url HAVING count(DISTINCT p) BETWEEN 2 AND 6)
SELECT DISTINCT least(a.p, b.p) AS a, greatest(a.p, b.p) AS b
FROM urls a JOIN urls b ON a.url = b.url AND a.e = b.e AND a.p < b.p
WHERE a.url IN (SELECT url FROM specific);
-- lead_agrees: the lead of each complete text is found in the other, and the lead of a text cut short
-- is found in the other (a cut text need not hold the other's lead); NULL when a side has no lead.
-- overlap: the share of the shorter text's sentences the other has (worked out only where it counts);
-- shorter: how many whole sentences the shorter text has.
CREATE OR REPLACE TABLE pairs AS
WITH candidate AS (
  SELECT a, b, bool_or(url) AS url_match
  FROM (SELECT a, b, false AS url FROM lead_pairs UNION ALL SELECT a, b, false FROM thin_pairs UNION ALL SELECT a, b, true FROM url_pairs)
  GROUP BY a, b
),
judged AS (
  SELECT c.a, c.b, c.url_match, x.title_key = y.title_key AS same_title, fx.hashes AS hx, fy.hashes AS hy,
         CASE WHEN fx.p IS NULL OR fy.p IS NULL OR len(fx.lead) = 0 OR len(fy.lead) = 0 THEN NULL
              WHEN NOT fx.cut AND NOT fy.cut THEN list_has_all(fy.hashes, fx.lead) AND list_has_all(fx.hashes, fy.lead)
              WHEN fx.cut AND NOT fy.cut THEN list_has_all(fy.hashes, fx.lead)
              WHEN fy.cut AND NOT fx.cut THEN list_has_all(fx.hashes, fy.lead)
              WHEN len(fx.hashes) <= len(fy.hashes) THEN list_has_all(fy.hashes, fx.lead)
              ELSE list_has_all(fx.hashes, fy.lead) END AS lead_agrees
  FROM candidate c
  JOIN live x ON x.p = c.a JOIN live y ON y.p = c.b
  LEFT JOIN fingerprints fx ON fx.p = c.a LEFT JOIN fingerprints fy ON fy.p = c.b
  WHERE (len(x.places) = 0 OR len(y.places) = 0 OR len(list_intersect(x.places, y.places)) > 0)
    AND (len(x.countries) = 0 OR len(y.countries) = 0 OR len(list_intersect(x.countries, y.countries)) > 0)
)
SELECT a, b, url_match, same_title, lead_agrees,
       CASE WHEN lead_agrees OR url_match THEN coalesce(len(list_intersect(hx, hy))::DOUBLE / nullif(least(len(hx), len(hy)), 0), 0) ELSE 0 END AS overlap,
       coalesce(least(len(hx), len(hy)), 0) AS shorter,
       false AS prefix_match
FROM judged;

-- A truncated text (without its "...") that begins the other text word for word: looked at only for
-- the few pairs where one side has no whole sentence to compare.
UPDATE pairs SET prefix_match = true
FROM (
  SELECT t.a, t.b FROM thin_pairs t
  JOIN live x ON x.p = t.a JOIN live y ON y.p = t.b
  JOIN texts tx ON tx.posting_id = x.posting_id JOIN texts ty ON ty.posting_id = y.posting_id
  WHERE starts_with(prefix_form(tx.description), rtrim(prefix_form(ty.description), '.… '))
     OR starts_with(prefix_form(ty.description), rtrim(prefix_form(tx.description), '.… '))
) m
WHERE pairs.a = m.a AND pairs.b = m.b;

-- name: export_pairs
-- How strongly each pair says "same opening" (0: it does not). Copies start the same way, so their
-- lead sentences must agree; a title that differs beyond its core ("Banker, Retail Banking") asks
-- for more of the text to agree; one specific URL shared by both is evidence of its own when the
-- texts do not contradict it; a copy cut before its first whole sentence must begin the other.
COPY (
  SELECT a, b, round(strength, 4) AS s FROM (
    SELECT a, b, CASE
      WHEN url_match AND (lead_agrees OR (same_title AND no_lead)) THEN 3 + overlap
      WHEN prefix_match AND same_title THEN 1.5
      WHEN NOT lead_agrees THEN 0
      -- A copy cut after a sentence or two has nothing but its lead to compare.
      WHEN same_title AND (overlap >= 0.3 OR shorter < 3) THEN 2 + overlap
      WHEN overlap >= 0.5 THEN 1 + overlap
      ELSE 0 END AS strength
    FROM (SELECT * REPLACE (coalesce(lead_agrees, false) AS lead_agrees), lead_agrees IS NULL AS no_lead FROM pairs)
  ) WHERE strength > 0
) TO $pairs (FORMAT csv, HEADER false);
COPY (
  SELECT p AS id, board_key AS board, first_ms AS first, last_ms AS last
  FROM live WHERE p IN (SELECT a FROM pairs UNION SELECT b FROM pairs)
) TO $nodes (FORMAT csv, HEADER false);
DROP TABLE pairs;
DROP TABLE lead_pairs;
DROP TABLE url_pairs;
DROP TABLE thin_pairs;
DROP TABLE fingerprints;

-- name: load_clusters
CREATE OR REPLACE TABLE clusters AS
SELECT l.posting_id, r.posting_id AS cluster
FROM read_csv($file, header = false, delim = ',', auto_detect = false, columns = {p: 'BIGINT', root: 'BIGINT'}) c
JOIN live l ON l.p = c.p JOIN live r ON r.p = c.root;
DROP TABLE live;
DROP TABLE employers;
