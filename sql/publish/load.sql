-- Stage "load": a day's delivery into typed tables. The postings are read twice, each time only the
-- columns needed: once without their descriptions (into memory), once for the descriptions alone
-- (streamed to a Parquet file in the work folder), so the largest column never sits in memory.
-- Unknown keys of the delivery (raw collector payloads, ground truth) are never read.

-- name: reads
CREATE OR REPLACE TABLE reads AS
SELECT source, board, source_class, started_at::TIMESTAMPTZ AS started_at,
       finished_at::TIMESTAMPTZ AS finished_at, coalesce(complete, false) AS complete
FROM read_json($path, format = 'newline_delimited', columns = {
  source: 'VARCHAR', board: 'VARCHAR', source_class: 'VARCHAR', started_at: 'VARCHAR',
  finished_at: 'VARCHAR', complete: 'BOOLEAN'
});

-- name: incoming
-- $paths: the postings files, one path per line.
CREATE OR REPLACE TABLE incoming AS
SELECT * FROM read_json(string_split($paths, chr(10)), format = 'newline_delimited', filename = true, columns = {
  source: 'VARCHAR', board: 'VARCHAR', source_posting_id: 'VARCHAR', source_class: 'VARCHAR',
  source_type: 'VARCHAR', employer_name: 'VARCHAR', employer_domain: 'VARCHAR', title: 'VARCHAR',
  locations: 'VARCHAR[]', work_arrangement: 'VARCHAR', employment_type: 'VARCHAR',
  pay: 'STRUCT(currency VARCHAR, min DOUBLE, max DOUBLE, "interval" VARCHAR)',
  posted_at: 'VARCHAR', first_seen_at: 'VARCHAR', posting_url: 'VARCHAR', application_url: 'VARCHAR',
  attribution: 'STRUCT(required BOOLEAN, text VARCHAR, url VARCHAR)',
  application_check: 'STRUCT(result VARCHAR, checked_at VARCHAR)',
  source_data: 'STRUCT(source_type VARCHAR, department VARCHAR, requisition_id VARCHAR)'
});

-- name: incoming_counts
SELECT filename, count(*)::BIGINT AS rows FROM incoming GROUP BY filename;

-- name: duplicates
-- A delivery lists each posting once a day; more is an error of the collector, named here.
SELECT source, board, source_posting_id, count(*)::BIGINT AS times
FROM incoming GROUP BY ALL HAVING count(*) > 1 ORDER BY ALL LIMIT 3;

-- name: texts_today
-- $paths: the postings files; $file: the Parquet file written. HTML becomes text here, and what the
-- merge and the job records need to know of a text (cut short? how long? changed?) is noted beside it.
COPY (
  SELECT posting_id, description,
         ends_with(coalesce(description, ''), '...') OR ends_with(coalesce(description, ''), '…') AS truncated,
         strlen(description) AS text_length,
         hash(description) AS text_hash
  FROM (
    SELECT uuid_from(source || chr(31) || board || chr(31) || source_posting_id) AS posting_id,
           -- (coalesce is several times cheaper than CASE over long texts)
           nullif(coalesce(nullif(description_text, ''), html_text(description_html)), '') AS description
    FROM read_json(string_split($paths, chr(10)), format = 'newline_delimited', columns = {
      source: 'VARCHAR', board: 'VARCHAR', source_posting_id: 'VARCHAR', description_text: 'VARCHAR', description_html: 'VARCHAR'
    })
  )
) TO $file (FORMAT parquet, COMPRESSION lz4_raw);

-- name: withdrawals
CREATE OR REPLACE TABLE withdrawals AS
SELECT source, source_posting_id, reason, requested_at::TIMESTAMPTZ AS requested_at
FROM read_json($path, format = 'newline_delimited', columns = {
  source: 'VARCHAR', source_posting_id: 'VARCHAR', reason: 'VARCHAR', requested_at: 'VARCHAR'
});

-- name: no_withdrawals
CREATE OR REPLACE TABLE withdrawals (source VARCHAR, source_posting_id VARCHAR, reason VARCHAR, requested_at TIMESTAMPTZ);

-- name: raw_locations
SELECT DISTINCT unnest(locations) AS raw FROM incoming WHERE locations IS NOT NULL;
