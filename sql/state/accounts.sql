-- Accounts and API keys.

-- name: insert_account
INSERT INTO accounts (account_id, name, plan, billing_model, subscription_status)
VALUES ($1, $2, $3, $4, $5)
RETURNING *;

-- name: get_account
SELECT * FROM accounts WHERE account_id = $1;

-- name: list_accounts
SELECT * FROM accounts ORDER BY created_at, account_id;

-- name: update_account
-- A NULL argument keeps the stored value; $6 true clears the overage price item.
UPDATE accounts SET
  name = coalesce($2, name),
  plan = coalesce($3, plan),
  billing_model = coalesce($4, billing_model),
  subscription_status = coalesce($5, subscription_status),
  overage_price_micros = CASE WHEN $6::boolean THEN NULL ELSE coalesce($7::bigint, overage_price_micros) END,
  prepaid_micros = coalesce($8::bigint, prepaid_micros),
  updated_at = now()
WHERE account_id = $1
RETURNING *;

-- name: insert_key
INSERT INTO api_keys (key_id, account_id, prefix, secret_hash, name, created_at)
VALUES ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()))
RETURNING key_id, account_id, prefix, name, created_at, revoked_at;

-- name: list_keys
SELECT key_id, account_id, prefix, name, created_at, revoked_at
FROM api_keys
WHERE $1::text IS NULL OR account_id = $1
ORDER BY created_at, key_id;

-- name: revoke_key
UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
WHERE key_id = $1
RETURNING key_id, account_id, prefix, name, created_at, revoked_at;

-- name: key_for_auth
SELECT k.key_id, k.prefix, k.secret_hash, k.revoked_at, a.*
FROM api_keys k JOIN accounts a USING (account_id)
WHERE k.key_id = $1;

-- name: set_overage
UPDATE accounts SET
  overage_enabled = $2,
  overage_limit_cents = $3,
  overage_price_micros = $4,
  updated_at = now()
WHERE account_id = $1
RETURNING *;

-- name: overage_used
SELECT coalesce(sum(overage_used_micros), 0)::bigint AS micros
FROM usage_months
WHERE account_id = $1 AND month = $2::date;
