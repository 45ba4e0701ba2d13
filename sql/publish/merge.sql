-- Stage "merge": candidate pairs of postings that may be copies of one opening, for the clusterer.
--
-- Copies of one opening begin the same way: aggregators truncate from the end, rewording touches
-- lists further down, and the opening paragraph (team, place, what the role is) is what sets an
-- opening apart from the employer's other openings with the same title. So a candidate pair is two
-- postings of one employer and title core that share one of their lead sentences (the first two
-- sentences of at least 30 characters), or that share a specific listing or application URL.
-- Postings, employers and titles get dense integer numbers so that the joins stay cheap.

-- name: numbered
-- The employer of a posting is its registry company when it links to one (so that a company known
-- under an old name after an acquisition is one employer), else its normalised name.
CREATE OR REPLACE TABLE employers AS
SELECT p.posting_id, coalesce('c:' || coalesce(cd.company_id, cn.company_id), 'k:' || p.employer_key) AS employer
FROM postings p
LEFT JOIN company_by_domain cd ON cd.domain = p.employer_domain
LEFT JOIN company_by_name cn ON cn.name_key = p.employer_key
WHERE p.employer_key IS NOT NULL;
CREATE OR REPLACE TABLE employer_numbers AS
SELECT employer, row_number() OVER (ORDER BY employer) AS e FROM (SELECT DISTINCT employer FROM employers);
CREATE OR REPLACE TABLE core_numbers AS
SELECT title_core, row_number() OVER (ORDER BY title_core) AS c FROM (SELECT DISTINCT title_core FROM postings WHERE title_core <> '');
CREATE OR REPLACE TABLE live AS
SELECT row_number() OVER (ORDER BY posting_id) AS p, posting_id, e, c, title_key, source || '/' || board AS board_key,
       epoch_ms(first_seen_at) AS first_ms, epoch_ms(last_seen_at) AS last_ms,
       application_url_key, posting_url_key,
       list_distinct(list_filter(list_transform(locations, l ->
         CASE WHEN l.msa IS NOT NULL THEN 'm:' || l.msa.cbsa_code
              WHEN l.city IS NOT NULL THEN 'c:' || lower(l.city) || '|' || coalesce(l.country, '') END), k -> k IS NOT NULL)) AS places,
       list_distinct(list_filter(list_transform(locations, l -> l.country), x -> x IS NOT NULL)) AS countries
FROM postings JOIN employers USING (posting_id) JOIN employer_numbers USING (employer) JOIN core_numbers USING (title_core)
WHERE NOT withdrawn;

-- name: fingerprints
-- The lead sentences and all sentence hashes of each live posting's description.
CREATE OR REPLACE TABLE fingerprints AS
SELECT l.p,
       list_transform(list_filter(sentences(x.description), s -> strlen(s) >= 30)[1:2], s -> (hash(s) >> 32)::UINTEGER) AS lead,
       sentence_hashes(x.description) AS hashes
FROM live l JOIN texts x USING (posting_id)
WHERE x.description IS NOT NULL;

-- name: pairs
CREATE OR REPLACE TABLE lead_pairs AS
WITH leads AS (SELECT l.p, l.e, l.c, unnest(f.lead) AS h FROM live l JOIN fingerprints f USING (p))
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
-- lead_shared: how many of the lead sentences of the shorter text the other text has;
-- overlap: the share of the shorter text's sentences the other text has.
CREATE OR REPLACE TABLE pairs AS
WITH candidate AS (
  SELECT a, b, bool_or(url) AS url_match
  FROM (SELECT a, b, false AS url FROM lead_pairs UNION ALL SELECT a, b, false FROM thin_pairs UNION ALL SELECT a, b, true FROM url_pairs)
  GROUP BY a, b
)
SELECT c.a, c.b, c.url_match, x.title_key = y.title_key AS same_title,
       CASE WHEN len(fx.hashes) <= len(fy.hashes) THEN len(list_intersect(fx.lead, fy.hashes)) ELSE len(list_intersect(fy.lead, fx.hashes)) END AS lead_shared,
       CASE WHEN fx.p IS NULL OR fy.p IS NULL THEN 0 ELSE least(len(fx.lead), len(fy.lead)) END AS lead_count,
       coalesce(len(list_intersect(fx.hashes, fy.hashes))::DOUBLE / nullif(least(len(fx.hashes), len(fy.hashes)), 0), 0) AS overlap,
       coalesce(least(len(fx.hashes), len(fy.hashes)), 0) AS shorter,
       -- A truncated text (without its "...") that begins the other text word for word.
       CASE WHEN coalesce(len(fx.lead), 0) = 0 OR coalesce(len(fy.lead), 0) = 0 THEN
         coalesce(starts_with(prefix_form(tx.description), rtrim(prefix_form(ty.description), '.… '))
               OR starts_with(prefix_form(ty.description), rtrim(prefix_form(tx.description), '.… ')), false)
       ELSE false END AS prefix_match
FROM candidate c
JOIN live x ON x.p = c.a JOIN live y ON y.p = c.b
LEFT JOIN fingerprints fx ON fx.p = c.a LEFT JOIN fingerprints fy ON fy.p = c.b
LEFT JOIN texts tx ON tx.posting_id = x.posting_id LEFT JOIN texts ty ON ty.posting_id = y.posting_id
WHERE (len(x.places) = 0 OR len(y.places) = 0 OR len(list_intersect(x.places, y.places)) > 0)
  AND (len(x.countries) = 0 OR len(y.countries) = 0 OR len(list_intersect(x.countries, y.countries)) > 0);

-- name: export_pairs
COPY (SELECT a, b, url_match, same_title, coalesce(lead_shared, 0) AS lead_shared, coalesce(lead_count, 0) AS lead_count, overlap, shorter, prefix_match FROM pairs) TO $file (FORMAT json);

-- name: export_nodes
COPY (
  SELECT p AS id, board_key AS board, first_ms AS first, last_ms AS last
  FROM live WHERE p IN (SELECT a FROM pairs UNION SELECT b FROM pairs)
) TO $file (FORMAT json);

-- name: load_clusters
CREATE OR REPLACE TABLE clusters AS
SELECT l.posting_id, r.posting_id AS cluster
FROM read_json($file, format = 'newline_delimited', columns = {p: 'BIGINT', root: 'BIGINT'}) c
JOIN live l ON l.p = c.p JOIN live r ON r.p = c.root;
