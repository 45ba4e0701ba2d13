-- Idempotency keys (sql/migrations/0007_idempotency.sql), used inside the transaction of the action.

-- name: expire
-- The account's keys older than $2: a key lives 24 hours.
DELETE FROM idempotency_keys WHERE account_id = $1 AND created_at < $2;

-- name: claim
-- Claims the key for this transaction; a concurrent transaction claiming it waits here until this one
-- ends, then finds it taken (or free again, if this one rolled back).
INSERT INTO idempotency_keys (account_id, key, fingerprint, status, body, created_at)
VALUES ($1, $2, $3, 0, 'null', $4)
ON CONFLICT (account_id, key) DO NOTHING
RETURNING key;

-- name: answered
SELECT fingerprint, status, body FROM idempotency_keys WHERE account_id = $1 AND key = $2;

-- name: answer
UPDATE idempotency_keys SET status = $3, body = $4::jsonb WHERE account_id = $1 AND key = $2;
