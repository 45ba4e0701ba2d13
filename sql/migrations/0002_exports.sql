-- Bulk exports (spec 4.8, DESIGN.md 5) and the records they hold back until they complete.

-- Records set aside for exports not yet complete: an export's matching count is reserved when it is
-- created and charged (moved to records_used) once, when it completes; a failed export releases it.
ALTER TABLE usage_months ADD COLUMN records_reserved bigint NOT NULL DEFAULT 0;

CREATE TABLE exports (
  export_id          text PRIMARY KEY,
  account_id         text NOT NULL REFERENCES accounts (account_id),
  status             text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'expired')),
  format             text NOT NULL CHECK (format IN ('jsonl', 'parquet')),
  -- The normalised filters and options; the export reads this catalog snapshot only.
  request            jsonb NOT NULL,
  snapshot_watermark text NOT NULL,
  max_records        integer NOT NULL CHECK (max_records BETWEEN 1 AND 100000),
  -- What creation reserved, in which month (usage_months.records_reserved); 0 once charged or released.
  reserved_records   bigint NOT NULL,
  reserved_month     date NOT NULL,
  record_count       bigint,
  -- The files written so far, in order: [{n, records, bytes, sha256}]. A file is listed once it is complete.
  files              jsonb NOT NULL DEFAULT '[]',
  error              text,
  -- A runner holds a running export until lease_until and renews it while it works; past it, another may take over.
  lease_until        timestamptz,
  runner             text,
  created_at         timestamptz NOT NULL,
  started_at         timestamptz,
  completed_at       timestamptz,
  expires_at         timestamptz
);
-- One queued or running export per account (409 export_in_progress).
CREATE UNIQUE INDEX exports_one_active ON exports (account_id) WHERE status IN ('queued', 'running');
CREATE INDEX exports_by_account ON exports (account_id, created_at DESC);
CREATE INDEX exports_pending ON exports (created_at) WHERE status IN ('queued', 'running');
