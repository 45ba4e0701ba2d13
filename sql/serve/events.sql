-- The change feed's serving cache: one publication's events as the feed returns them, written once into
-- data/feed/<watermark>/ and read by offset (src/feed/segment.ts). {dir} is the publication's snapshot
-- folder, {files} its jobs files, {out} the file written. Every statement writes the events in seq order.
--
-- An event's job is that publication's row for it (events.parquet leaves `job` empty for those), or,
-- for a job gone (merged away, withdrawn), its last published state carried in the event itself
-- (`job` of the other events holds a struct of nulls, so it is told apart by job.job_id). A gone job is
-- in no jobs file, so the joins are plain equi-joins on job_id: a condition on e.job in the ON clause
-- turns them into nested loops (over ten minutes at a million events, against 0.4 s). The
-- job_document and api_time macros are those of serve/catalog.sql.

-- name: lines
COPY (
  SELECT e.event_id, e.type, api_time(e.occurred_at) AS occurred_at, e.job_id,
         job_document(CASE WHEN e.job.job_id IS NULL THEN published ELSE e.job END) AS job
  FROM read_parquet({dir} || '/events.parquet') e
  LEFT JOIN read_parquet({files}) published ON published.job_id = e.job_id
  ORDER BY e.seq
) TO {out} (FORMAT json);

-- name: heads
-- The same lines without the job where the publication has it ("job":null): the publisher completes
-- them with the job's line of the publication's documents.jsonl (src/feed/segment.ts), which the same
-- job_document macro wrote, rather than serialising every job a second time.
COPY (
  SELECT e.event_id, e.type, api_time(e.occurred_at) AS occurred_at, e.job_id,
         CASE WHEN e.job.job_id IS NULL THEN NULL ELSE job_document(e.job) END AS job
  FROM read_parquet({dir} || '/events.parquet') e
  ORDER BY e.seq
) TO {out} (FORMAT json);

-- name: source_data
-- For include=source_data: per event, the source_data of its job's postings, in posting order.
COPY (
  SELECT list_transform(CASE WHEN e.job.job_id IS NULL THEN published.postings ELSE e.job.postings END, p -> p.source_data) AS s
  FROM read_parquet({dir} || '/events.parquet') e
  LEFT JOIN (SELECT job_id, postings FROM read_parquet({files})) published ON published.job_id = e.job_id
  ORDER BY e.seq
) TO {out} (FORMAT json);

-- name: index
-- What a page is filtered by, per event: its type and its job's company.
COPY (
  SELECT e.seq, e.type, CASE WHEN e.job.job_id IS NULL THEN published.company_id ELSE e.job.company_id END AS company_id
  FROM read_parquet({dir} || '/events.parquet') e
  LEFT JOIN (SELECT job_id, company_id FROM read_parquet({files})) published ON published.job_id = e.job_id
  ORDER BY e.seq
) TO {out} (FORMAT parquet);
