-- Accounts, their plan and subscription, and their API keys (only a hash of each secret is kept).

CREATE TABLE accounts (
  account_id           text PRIMARY KEY,
  name                 text NOT NULL DEFAULT '',
  plan                 text NOT NULL CHECK (plan IN ('free', 'paid-5k', 'paid-25k', 'paid-100k', 'paid-250k', 'paid-500k')),
  billing_model        text NOT NULL DEFAULT 'records' CHECK (billing_model IN ('records', 'requests')),
  subscription_status  text NOT NULL DEFAULT 'none' CHECK (subscription_status IN ('active', 'none', 'canceled')),
  -- The overage price item the subscription carries, in micro-USD per record; NULL while none is attached.
  overage_price_micros bigint CHECK (overage_price_micros > 0),
  overage_enabled      boolean NOT NULL DEFAULT false,
  -- NULL: no ceiling. Stored in cents so that the two-decimal rule is exact.
  overage_limit_cents  bigint CHECK (overage_limit_cents > 0 AND overage_limit_cents <= 10000000),
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  key_id       text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts (account_id),
  prefix       text NOT NULL CHECK (prefix IN ('jps_live_', 'jp_live_')),
  secret_hash  bytea NOT NULL,
  name         text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id);

-- One row per account and calendar month (UTC): what the month has used so far.
CREATE TABLE usage_months (
  account_id          text NOT NULL REFERENCES accounts (account_id),
  month               date NOT NULL,
  records_used        bigint NOT NULL DEFAULT 0,
  requests_used       bigint NOT NULL DEFAULT 0,
  overage_records     bigint NOT NULL DEFAULT 0,
  overage_used_micros bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, month)
);
