-- Writing: the publisher's state (first, so that the jobs can be built from it) and the rest of the
-- snapshot. $dir is the folder being written (renamed into place at the commit).

-- name: write_state
-- The publisher's own state for the next publication (never published: it holds board ids). Today's
-- descriptions are moved in as texts.parquet; carried.parquet holds those kept from earlier days.
-- Written in the parts the jobs are built in (postings/part=K/), so that building part K reads
-- only its own postings.
COPY (
  SELECT p.* EXCLUDE (prev_job_id, seen_today),
         CASE WHEN p.withdrawn THEN p.prev_job_id ELSE j.job_id END AS job_id,
         coalesce(jp.part, -1) AS part
  FROM postings p LEFT JOIN clustered c USING (posting_id) LEFT JOIN job_ids j USING (cluster)
  LEFT JOIN job_postings jp USING (posting_id)
) TO ($dir || '/postings') (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (part));
COPY carried_texts TO ($dir || '/carried.parquet') (FORMAT parquet, COMPRESSION zstd);
COPY boards TO ($dir || '/boards.parquet') (FORMAT parquet, COMPRESSION zstd);

-- name: empty_part
COPY (SELECT p.* EXCLUDE (prev_job_id, seen_today), NULL::VARCHAR AS job_id FROM postings p LIMIT 0) TO $file (FORMAT parquet);

-- name: drop_postings
DROP TABLE postings;

-- name: write_snapshot
-- An event's job is this snapshot's row for it (all of them lead their jobs file: they changed now,
-- so their job_updated_at is this watermark), except for a job that is gone (merged away or
-- withdrawn): its last published state is carried in the event itself.
COPY (
  SELECT e.seq, e.seq::VARCHAR AS event_id, e.type, e.occurred_at, e.job_id, p AS job
  FROM events e
  LEFT JOIN (SELECT * FROM prev_jobs WHERE job_id IN (SELECT job_id FROM events WHERE gone)) p ON p.job_id = e.job_id AND e.gone
  ORDER BY e.seq
) TO ($dir || '/events.parquet') (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM redirects ORDER BY from_job_id) TO ($dir || '/redirects.parquet') (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM withdrawn_jobs ORDER BY job_id) TO ($dir || '/withdrawn.parquet') (FORMAT parquet, COMPRESSION zstd);

-- name: counts
SELECT
  (SELECT count(*) FROM job_index)::BIGINT AS jobs,
  (SELECT count(*) FROM job_postings)::BIGINT AS postings,
  (SELECT count(*) FROM job_index WHERE currentness = 'current')::BIGINT AS current,
  (SELECT count(*) FROM job_index WHERE currentness = 'uncertain')::BIGINT AS uncertain,
  (SELECT count(*) FROM job_index WHERE currentness = 'not_current')::BIGINT AS not_current,
  (SELECT count(*) FROM events WHERE type = 'created')::BIGINT AS created,
  (SELECT count(*) FROM events WHERE type = 'updated')::BIGINT AS updated,
  (SELECT count(*) FROM events WHERE type = 'expired')::BIGINT AS expired,
  (SELECT count(*) FROM redirects)::BIGINT AS redirects,
  (SELECT count(*) FROM redirects WHERE merged_at = $watermark::TIMESTAMPTZ)::BIGINT AS merged,
  (SELECT count(*) FROM withdrawn_jobs)::BIGINT AS withdrawn,
  (SELECT coalesce(max(seq), $last_seq::BIGINT) FROM events)::BIGINT AS last_seq;
