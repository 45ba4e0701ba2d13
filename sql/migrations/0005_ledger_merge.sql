-- Ledger segments merged per day and per month (issue 17): compaction writes a small segment a minute,
-- and a usage call read every one of them. A merge writes durable segments into one 'merging' segment,
-- then one transaction makes it durable and retires its inputs, whose files stay for readers that
-- listed them before and are deleted after a grace period.

ALTER TABLE ledger_segments DROP CONSTRAINT ledger_segments_state_check;
ALTER TABLE ledger_segments ADD CONSTRAINT ledger_segments_state_check CHECK (state IN ('writing', 'merging', 'durable', 'retired'));
-- 0: written by compaction; 1: a day's segments merged; 2: a month's, from the month's first day (day).
ALTER TABLE ledger_segments ADD COLUMN level smallint NOT NULL DEFAULT 0;
-- The seq range of the segment's rows: a listing reads the segments newest first and stops once it has
-- its page. NULL for segments written before this migration: they are read first.
ALTER TABLE ledger_segments ADD COLUMN min_seq bigint;
ALTER TABLE ledger_segments ADD COLUMN max_seq bigint;
-- The 'merging' segment this durable segment is being merged into; it is retired when that one is durable.
ALTER TABLE ledger_segments ADD COLUMN merged_into bigint;
ALTER TABLE ledger_segments ADD COLUMN retired_at timestamptz;
CREATE INDEX ledger_segments_durable ON ledger_segments (day) WHERE state = 'durable';
CREATE INDEX ledger_segments_inputs ON ledger_segments (merged_into) WHERE merged_into IS NOT NULL;

-- Who runs the ledger's background work (compaction, merging, deleting retired files): one server at a
-- time, renewing its lease as it goes; another takes over once the lease has lapsed.
CREATE TABLE ledger_lease (
  name        text PRIMARY KEY,
  holder      text NOT NULL,
  expires_at  timestamptz NOT NULL
);
