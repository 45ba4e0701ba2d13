-- The monthly records allowance (spec 8.2): what a month has used, reserved and billed as overage.

-- name: month_for_update
-- The account's row for the month, created when missing, locked until the transaction ends.
INSERT INTO usage_months (account_id, month) VALUES ($1, $2::date)
ON CONFLICT (account_id, month) DO UPDATE SET account_id = EXCLUDED.account_id
RETURNING records_used, records_reserved, overage_records, overage_used_micros;

-- name: reserve
UPDATE usage_months SET records_reserved = records_reserved + $3
WHERE account_id = $1 AND month = $2::date;

-- name: release
UPDATE usage_months SET records_reserved = greatest(0, records_reserved - $3)
WHERE account_id = $1 AND month = $2::date;

-- name: charge
UPDATE usage_months SET records_used = records_used + $3, overage_records = overage_records + $4, overage_used_micros = overage_used_micros + $5
WHERE account_id = $1 AND month = $2::date;
