-- Bulk exports (sql/migrations/0002_exports.sql): created by the API, run by the export runner.

-- name: insert
INSERT INTO exports (export_id, account_id, status, format, request, snapshot_watermark, max_records, reserved_records, reserved_month, created_at, request_id)
VALUES ($1, $2, 'queued', $3, $4::jsonb, $5, $6, $7, $8::date, $9, $10)
RETURNING *;

-- name: active
SELECT 1 FROM exports WHERE account_id = $1 AND status IN ('queued', 'running');

-- name: get
SELECT * FROM exports WHERE export_id = $1 AND account_id = $2;

-- name: list
SELECT * FROM exports WHERE account_id = $1 ORDER BY created_at DESC, export_id DESC LIMIT 20;

-- name: claim
-- The oldest export waiting for a runner: queued, or running under a lease that ran out (its runner
-- stopped). Taken with a new lease; concurrent runners skip each other's picks.
UPDATE exports SET status = 'running', started_at = coalesce(started_at, $1), lease_until = $2, runner = $3
WHERE export_id = (
  SELECT export_id FROM exports
  WHERE status = 'queued' OR (status = 'running' AND lease_until <= $1)
  ORDER BY created_at
  LIMIT 1
  FOR UPDATE SKIP LOCKED
)
RETURNING *;

-- name: renew
-- Runner $2 goes on with the export: its lease renewed, if it still holds it.
UPDATE exports SET lease_until = $3
WHERE export_id = $1 AND status = 'running' AND runner = $2
RETURNING export_id;

-- name: file_done
-- A file is whole in the object store: list it and renew the lease, if runner $2 still holds the export.
UPDATE exports SET files = files || $3::jsonb, lease_until = $4
WHERE export_id = $1 AND status = 'running' AND runner = $2
RETURNING export_id;

-- name: queued
-- Which of the exports $1 no runner has taken yet.
SELECT export_id FROM exports WHERE export_id = ANY($1::text[]) AND status = 'queued';

-- name: for_update
SELECT * FROM exports WHERE export_id = $1 FOR UPDATE;

-- name: complete
UPDATE exports SET status = 'completed', record_count = $2, completed_at = $3, expires_at = $4, reserved_records = 0, lease_until = NULL, runner = NULL
WHERE export_id = $1
RETURNING *;

-- name: fail
UPDATE exports SET status = 'failed', error = $2, completed_at = $3, reserved_records = 0, lease_until = NULL, runner = NULL
WHERE export_id = $1
RETURNING *;

-- name: due_to_expire
SELECT export_id FROM exports WHERE status = 'completed' AND expires_at <= $1;

-- name: expire
UPDATE exports SET status = 'expired' WHERE export_id = $1 AND status = 'completed';

-- name: release_leases
UPDATE exports SET lease_until = $1 WHERE status = 'running';
