-- The request ledger (sql/migrations/0003_metering.sql, 0005_ledger_merge.sql): the usage routes, the
-- compactor, the merger and the lease that lets one server at a time run them.

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

-- name: event_segments
-- Durable segments holding days of $1 to $2 (a month segment, level 2, holds its month from its first
-- day) that can hold a row at or below seq $3, newest rows first: a listing reads them in this order and
-- stops once it has its page. Segments without a seq range (written before 0005) are read first.
SELECT segment_id, to_char(day, 'YYYY-MM-DD') AS day, level, max_seq FROM ledger_segments
WHERE state = 'durable' AND day BETWEEN date_trunc('month', $1::date::timestamp)::date AND $2::date AND (level = 2 OR day >= $1::date)
  AND (min_seq IS NULL OR min_seq <= $3)
ORDER BY max_seq DESC NULLS FIRST, segment_id DESC;

-- name: durable_segments
-- Durable segments holding days of $1 to $2, as event_segments.
SELECT segment_id, to_char(day, 'YYYY-MM-DD') AS day, level FROM ledger_segments
WHERE state = 'durable' AND day BETWEEN date_trunc('month', $1::date::timestamp)::date AND $2::date AND (level = 2 OR day >= $1::date)
ORDER BY segment_id;

-- name: daily
-- Per UTC day (and group) of an account's rows still in the store: what analytics adds to the segments.
-- requests: those that used a monthly request (not the 429s, nor the requests never answered). refused:
-- the 429s, those answered data_limit_exceeded (in the ledger) and those refused at admission (refusals).
SELECT date, grp, sum(requests) AS requests, sum(records) AS records, sum(errors) AS errors, sum(refused) AS refused,
       sum(overage_micros) AS overage_micros
FROM (
  SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date,
         CASE $4::text WHEN 'route_class' THEN route_class WHEN 'api_key_id' THEN api_key_id END AS grp,
         count(*) FILTER (WHERE counted) AS requests, coalesce(sum(records_charged), 0) AS records,
         count(*) FILTER (WHERE status >= 400) AS errors, count(*) FILTER (WHERE status = 429) AS refused,
         coalesce(sum(overage_micros), 0) AS overage_micros
  FROM ledger
  WHERE account_id = $1 AND occurred_at >= $2 AND occurred_at < $3
  GROUP BY 1, 2
  UNION ALL
  SELECT to_char(day, 'YYYY-MM-DD'), CASE $4::text WHEN 'route_class' THEN route_class WHEN 'api_key_id' THEN api_key_id END,
         0, 0, 0, sum(refused), 0
  FROM refusals
  WHERE account_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date AND day < ($3::timestamptz AT TIME ZONE 'UTC')::date
  GROUP BY 1, 2
) AS days
GROUP BY 1, 2;

-- name: begin_segment
-- A new segment for the settled rows of the oldest day that has any, leaving rows that occurred at or
-- after $1 (NULL: none) in the store: a response whose client left mid-body is refunded there, by
-- updating its row. claim_rows then gives it its rows.
INSERT INTO ledger_segments (day, state, rows)
SELECT (occurred_at AT TIME ZONE 'UTC')::date, 'writing', 0 FROM ledger
WHERE settlement_status <> 'pending' AND segment_id IS NULL AND ($1::timestamptz IS NULL OR occurred_at < $1)
ORDER BY seq LIMIT 1
RETURNING segment_id, to_char(day, 'YYYY-MM-DD') AS day;

-- name: claim_rows
-- Claims for the writing segment $1 at most $2 more of its day's settled rows, the first by seq, leaving
-- rows that occurred at or after $3 (NULL: none) in the store; answers how many it claimed and how many
-- the segment holds now. The claim is one pass over the table whatever the planner thinks of the rows'
-- number: the last seq claimed first, then every row up to it (a join on seq, which has no index of its
-- own, was a nested loop over the table for each row claimed: 94-130 s for 20,000 rows of 125,000).
WITH segment AS (
  SELECT segment_id, day FROM ledger_segments WHERE segment_id = $1 AND state = 'writing'
), bound AS (
  SELECT s.segment_id, s.day, (
    SELECT max(first.seq) FROM (
      SELECT ledger.seq FROM ledger
      WHERE ledger.settlement_status <> 'pending' AND ledger.segment_id IS NULL AND ($3::timestamptz IS NULL OR ledger.occurred_at < $3)
        AND ledger.occurred_at >= s.day::timestamp AT TIME ZONE 'UTC' AND ledger.occurred_at < (s.day + 1)::timestamp AT TIME ZONE 'UTC'
      ORDER BY ledger.seq LIMIT $2
    ) AS first
  ) AS last_seq
  FROM segment s
), claimed AS (
  UPDATE ledger l SET segment_id = b.segment_id
  FROM bound b
  WHERE l.settlement_status <> 'pending' AND l.segment_id IS NULL AND ($3::timestamptz IS NULL OR l.occurred_at < $3)
    AND l.occurred_at >= b.day::timestamp AT TIME ZONE 'UTC' AND l.occurred_at < (b.day + 1)::timestamp AT TIME ZONE 'UTC'
    AND l.seq <= b.last_seq
  RETURNING l.seq
)
UPDATE ledger_segments SET rows = rows + (SELECT count(*) FROM claimed) WHERE segment_id = $1
RETURNING (SELECT count(*) FROM claimed) AS claimed, rows;

-- name: set_rows
UPDATE ledger_segments SET rows = $2 WHERE segment_id = $1;

-- name: writing
SELECT segment_id, to_char(day, 'YYYY-MM-DD') AS day, level FROM ledger_segments WHERE state = 'writing' ORDER BY segment_id;

-- name: segment_next
-- The first seq of segment $1's rows in the store after $2 (none: NULL).
SELECT min(seq) AS seq FROM ledger WHERE segment_id = $1 AND seq > $2;

-- name: segment_rows
-- Segment $1's rows with a seq after $2, up to $3: one JSON array of arrays, each the columns of a
-- segment file in order (the store builds it about five times faster than it returns as many rows). A
-- range of seq rather than a number of rows in seq order: one pass, nothing sorted (the file is).
SELECT json_agg(json_build_array(seq, request_id, account_id, api_key_id, occurred_at, method, route, route_class, status,
                                 records_charged, overage_micros, settlement_status, counted))::text AS rows
FROM ledger WHERE segment_id = $1 AND seq > $2 AND seq <= $3;

-- name: finish_segment
-- In one transaction: the segment is durable and its rows leave the store.
-- Only once: a second finish of the same segment changes nothing.
WITH gone AS (DELETE FROM ledger WHERE segment_id = $1 RETURNING seq)
UPDATE ledger_segments SET state = 'durable', rows = (SELECT count(*) FROM gone), min_seq = (SELECT min(seq) FROM gone), max_seq = (SELECT max(seq) FROM gone)
WHERE segment_id = $1 AND state = 'writing'
RETURNING rows;

-- name: take_lease
-- The ledger's background work runs on one server at a time: holder $1 takes or renews the lease for $2
-- ms; another holder gets it only once it has lapsed (its holder died or stopped), or at once when $3
-- (the embedded store, which belongs to one process: a holder before it is a process that died).
INSERT INTO ledger_lease (name, holder, expires_at) VALUES ('maintenance', $1, now() + $2::bigint * interval '1 millisecond')
ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
WHERE ledger_lease.holder = excluded.holder OR ledger_lease.expires_at < now() OR $3::boolean
RETURNING holder;

-- name: release_lease
DELETE FROM ledger_lease WHERE name = 'maintenance' AND holder = $1;

-- name: merge_target
-- What to merge next, oldest first ($1: the open day):
--  'month': a month closed $3 days ago or more (when $4), with more than one segment, into one (level 2);
--  'day': a closed day of any other month with more than one segment, into one (level 1);
--  'open': the open day's compaction segments once there are $2 (level 1), so that it too is read in
--  few files.
-- A month waits $3 days after it closes, for the rows of its last days that settle late (exports).
WITH segments AS (
  SELECT day, level, date_trunc('month', day::timestamp)::date AS month FROM ledger_segments
  WHERE state = 'durable' AND merged_into IS NULL
), candidates AS (
  SELECT month AS day, 'month' AS scope FROM segments
  WHERE $4::boolean AND (month + interval '1 month')::date + $3::int <= $1::date
  GROUP BY month HAVING count(*) > 1
  UNION ALL
  SELECT day, 'day' FROM segments
  WHERE level < 2 AND day < $1::date AND NOT ($4::boolean AND (month + interval '1 month')::date + $3::int <= $1::date)
  GROUP BY day HAVING count(*) > 1
  UNION ALL
  SELECT day, 'open' FROM segments
  WHERE level = 0 AND day >= $1::date
  GROUP BY day HAVING count(*) >= $2
)
SELECT to_char(day, 'YYYY-MM-DD') AS day, scope FROM candidates ORDER BY day, scope LIMIT 1;

-- name: begin_merge
-- A new 'merging' segment claims the durable segments not claimed yet of merge_target's $1 and $2: the
-- whole month from its first day $1 ('month'), the segments of day $1 but a month's ('day'), or its
-- compaction segments ('open'). They stay durable, and read, until the merged segment is.
WITH merged AS (
  INSERT INTO ledger_segments (day, state, rows, level) VALUES ($1::date, 'merging', 0, CASE $2::text WHEN 'month' THEN 2 ELSE 1 END)
  RETURNING segment_id
), inputs AS (
  UPDATE ledger_segments s SET merged_into = m.segment_id
  FROM merged m
  WHERE s.state = 'durable' AND s.merged_into IS NULL
    AND CASE $2::text
          WHEN 'month' THEN date_trunc('month', s.day::timestamp)::date = $1::date
          WHEN 'day' THEN s.day = $1::date AND s.level < 2
          ELSE s.day = $1::date AND s.level = 0
        END
  RETURNING s.rows
)
SELECT segment_id, (SELECT coalesce(sum(rows), 0) FROM inputs) AS rows FROM merged;

-- name: merging
SELECT segment_id, to_char(day, 'YYYY-MM-DD') AS day, level, rows FROM ledger_segments WHERE state = 'merging' ORDER BY segment_id;

-- name: merge_inputs
-- In day order: a month is written as its days' files one after the other.
SELECT segment_id, to_char(day, 'YYYY-MM-DD') AS day, level FROM ledger_segments WHERE merged_into = $1 AND state = 'durable' ORDER BY day, segment_id;

-- name: finish_merge
-- In one transaction: the merged segment is durable and its inputs are retired, so a reader lists either
-- the inputs or the merged segment. The inputs' files stay until retired_due finds them.
WITH done AS (
  UPDATE ledger_segments SET state = 'durable', min_seq = $2, max_seq = $3 WHERE segment_id = $1 AND state = 'merging'
  RETURNING segment_id
)
UPDATE ledger_segments SET state = 'retired', retired_at = now()
WHERE merged_into = $1 AND state = 'durable' AND EXISTS (SELECT 1 FROM done)
RETURNING segment_id;

-- name: retired_due
-- Retired segments past the grace period ($1 ms) that readers listing them before the merge had to read them.
SELECT segment_id, to_char(day, 'YYYY-MM-DD') AS day, level FROM ledger_segments
WHERE state = 'retired' AND retired_at <= now() - $1::bigint * interval '1 millisecond'
ORDER BY segment_id
LIMIT $2;

-- name: forget_segment
DELETE FROM ledger_segments WHERE segment_id = $1 AND state = 'retired';

-- name: known_segments
-- Every segment the store still holds (until forget_segment): a node's cached copies of others are pruned.
SELECT segment_id FROM ledger_segments;

-- name: vacuum_due
-- Whether the ledger's rows compaction removed since its last vacuum ($1) call for one on the embedded
-- store, where nothing else vacuums: as PostgreSQL's autovacuum decides (50 rows and a fifth of the table).
SELECT $1::bigint >= 50 + 0.2 * greatest(c.reltuples, 0) AS due FROM pg_class c WHERE c.oid = 'ledger'::regclass;

-- name: vacuum
VACUUM (ANALYZE) ledger;
