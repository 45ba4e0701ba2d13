-- The request ledger (sql/migrations/0003_metering.sql): the usage routes and the compactor.

-- name: high_water
-- The last ledger seq handed out: a usage cursor lists rows up to it.
SELECT last_value AS seq FROM ledger_seq_seq;

-- name: page
-- Rows of an account still in the store, newest first, after a cursor position ($3: seq below).
SELECT seq, request_id, occurred_at, method, route, route_class, status, api_key_id, records_charged, settlement_status
FROM ledger
WHERE account_id = $1 AND seq <= $2 AND seq < $3 AND occurred_at <= $4
  AND ($5::timestamptz IS NULL OR occurred_at >= $5) AND ($6::timestamptz IS NULL OR occurred_at < $6)
  AND ($7::text IS NULL OR route_class = $7) AND ($8::text IS NULL OR api_key_id = $8) AND request_id <> $10
ORDER BY seq DESC
LIMIT $9;

-- name: durable_segments
SELECT segment_id, to_char(day, 'YYYY-MM-DD') AS day FROM ledger_segments
WHERE state = 'durable' AND day BETWEEN $1::date AND $2::date
ORDER BY segment_id;

-- name: daily
-- Per UTC day (and group) of an account's rows still in the store: what analytics adds to the segments.
SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date,
       CASE $4::text WHEN 'route_class' THEN route_class WHEN 'api_key_id' THEN api_key_id END AS grp,
       count(*) AS requests, coalesce(sum(records_charged), 0) AS records,
       count(*) FILTER (WHERE status >= 400) AS errors, coalesce(sum(overage_micros), 0) AS overage_micros
FROM ledger
WHERE account_id = $1 AND occurred_at >= $2 AND occurred_at < $3
GROUP BY 1, 2;

-- name: begin_segments
-- Claims the settled rows of the oldest day that has any for one new segment (at most $1 rows).
WITH day AS (
  SELECT (occurred_at AT TIME ZONE 'UTC')::date AS day FROM ledger
  WHERE settlement_status <> 'pending' AND segment_id IS NULL
  ORDER BY seq LIMIT 1
), segment AS (
  INSERT INTO ledger_segments (day, state, rows) SELECT day, 'writing', 0 FROM day
  RETURNING segment_id, day
), claimed AS (
  UPDATE ledger l SET segment_id = s.segment_id
  FROM segment s
  WHERE l.seq IN (
    SELECT seq FROM ledger, segment
    WHERE settlement_status <> 'pending' AND ledger.segment_id IS NULL
      AND occurred_at >= segment.day::timestamp AT TIME ZONE 'UTC' AND occurred_at < (segment.day + 1)::timestamp AT TIME ZONE 'UTC'
    ORDER BY seq LIMIT $1
  )
  RETURNING l.seq
)
SELECT s.segment_id, (SELECT count(*) FROM claimed) AS rows FROM segment s;

-- name: set_rows
UPDATE ledger_segments SET rows = $2 WHERE segment_id = $1;

-- name: writing
SELECT segment_id, to_char(day, 'YYYY-MM-DD') AS day FROM ledger_segments WHERE state = 'writing' ORDER BY segment_id;

-- name: segment_rows
SELECT seq, request_id, account_id, api_key_id, occurred_at, method, route, route_class, status, records_charged,
       overage_micros, settlement_status
FROM ledger WHERE segment_id = $1 ORDER BY seq;

-- name: finish_segment
-- In one transaction: the segment is durable and its rows leave the store.
-- Only once: a second finish of the same segment changes nothing.
WITH gone AS (DELETE FROM ledger WHERE segment_id = $1 RETURNING 1)
UPDATE ledger_segments SET state = 'durable', rows = (SELECT count(*) FROM gone) WHERE segment_id = $1 AND state = 'writing'
RETURNING rows;
