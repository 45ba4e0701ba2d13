-- Stage "load": a day's delivery (reads, postings, withdrawals) into typed tables. Unknown keys
-- of the delivery (raw collector payloads, ground truth) are never read.

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
  description_text: 'VARCHAR', description_html: 'VARCHAR', locations: 'VARCHAR[]',
  work_arrangement: 'VARCHAR', employment_type: 'VARCHAR',
  pay: 'STRUCT(currency VARCHAR, min DOUBLE, max DOUBLE, "interval" VARCHAR)',
  posted_at: 'VARCHAR', posting_url: 'VARCHAR', application_url: 'VARCHAR',
  attribution: 'STRUCT(required BOOLEAN, text VARCHAR, url VARCHAR)',
  application_check: 'STRUCT(result VARCHAR, checked_at VARCHAR)',
  source_data: 'STRUCT(source_type VARCHAR, department VARCHAR, requisition_id VARCHAR)'
});

-- name: incoming_counts
SELECT filename, count(*)::BIGINT AS rows FROM incoming GROUP BY filename;

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
