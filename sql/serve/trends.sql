-- Opening a publication's versions (its trends/ folder, written by the publisher: sql/publish/trends.sql)
-- for serving GET /v1/jobs/trends. The versions get the serving tables of sql/serve/catalog.sql (postings,
-- locations, codes, masks, jobs: the same statements, under their own prefix {p}), so a trend filters them
-- with the very SQL of a count; this file adds their numbering and their spans.
-- {files}: the versions file; {publications}: the publications file; {latest}: the prefix of the
-- publication's own serving tables.

-- name: ordered
-- The versions' doc numbers. First those whose text is their job's in the publication, in the order of
-- that job's document there, so that the versions a text filter matches are runs of docs, one a matching
-- document; then those with their own text, in the file's order, which is the trends/ text index's.
CREATE TABLE {p}ordered AS
SELECT r.file_row_number AS file_row,
       (row_number() OVER (ORDER BY r.own_text, CASE WHEN NOT r.own_text THEN l.doc END, r.file_row_number) - 1)::INTEGER AS doc
FROM (SELECT file_row_number, own_text, job_id FROM read_parquet({files}, file_row_number = true)) r
LEFT JOIN (SELECT job_id, doc FROM {latest}jobs) l USING (job_id);

-- name: numbered
-- The versions with their doc numbers ({p}ordered). A version keeps its description only where it is not
-- its job's in this publication (own_text); has_description says whether it had one.
CREATE VIEW {p}numbered AS
SELECT o.doc,
       r.* EXCLUDE (file_row_number, description, has_description),
       CASE WHEN r.has_description THEN coalesce(r.description, ' ') END AS description
FROM read_parquet({files}, file_row_number = true) r JOIN {p}ordered o ON o.file_row = r.file_row_number;

-- name: spans
-- Each version's points: the first publication it holds at and the first it no longer does, as places
-- in the publications (oldest 0; the number of publications when it still holds). A version born before
-- the oldest publication holds from 0.
CREATE TABLE {p}spans AS
WITH pubs AS (SELECT (row_number() OVER (ORDER BY watermark) - 1)::INTEGER AS point, watermark FROM read_parquet({publications}))
SELECT n.doc, n.job_id, n.own_text,
       coalesce(f.point, 0)::INTEGER AS first_point,
       coalesce(u.point, (SELECT count(*) FROM pubs))::INTEGER AS end_point
FROM {p}numbered n
LEFT JOIN pubs f ON f.watermark = n.valid_from
LEFT JOIN pubs u ON u.watermark = n.valid_until;

-- name: spanned
-- The versions' jobs table with their spans, which a trend groups by. {name}: the prefix without its
-- database (a table is renamed within its own).
CREATE TABLE {p}spanned AS SELECT j.*, s.first_point, s.end_point FROM {p}jobs j JOIN {p}spans s USING (doc) ORDER BY j.doc;
DROP TABLE {p}jobs;
ALTER TABLE {p}spanned RENAME TO {name}jobs;

-- name: publications
SELECT strftime(watermark, '%Y-%m-%dT%H:%M:%S.%gZ') FROM read_parquet({publications}) ORDER BY watermark;

-- name: texts
-- Per version in doc order: its spans and where its text is indexed: its job's document in the
-- publication (>= 0, never decreasing: {p}ordered), or -1 - its place among the own texts (the trends/
-- text index, in doc order).
-- A plain equi-join on job_id (a job is once in the publication): a condition on the version in the ON
-- clause would make it a nested loop.
SELECT s.first_point, s.end_point,
       CASE WHEN s.own_text THEN -row_number() OVER (PARTITION BY s.own_text ORDER BY s.doc) ELSE l.doc END::INTEGER
FROM {p}spans s LEFT JOIN (SELECT job_id, doc FROM {latest}jobs) l USING (job_id)
ORDER BY s.doc;

-- name: own_texts
-- The title and description of the versions whose text is their own, in doc order: what the trends/ text
-- index holds (the publisher builds it; a server reads it). Those of the file's rows {from} .. {to} - 1:
-- the publisher indexes the file in parts.
SELECT title, description FROM read_parquet({files}, file_row_number = true)
WHERE own_text AND file_row_number >= {from} AND file_row_number < {to} ORDER BY file_row_number;
