-- Metering (spec 8, DESIGN.md 6): request windows, monthly requests with carry-over, the request ledger.
--
-- Every admission and every charge of an account runs as one call of a function below. The first thing
-- an admission does is lock the account's window row, so the admissions of one account pass one at a
-- time on every replica, and what they read and write next is exact under concurrency.

-- The account's current fixed request window (spec 8.1): all keys together.
CREATE TABLE rate_windows (
  account_id   text PRIMARY KEY REFERENCES accounts (account_id),
  window_start timestamptz NOT NULL,
  used         integer NOT NULL
);

-- Monthly requests (spec 8.3). Each month grants the plan's requests; a request draws one from the
-- oldest month of the last 12 (and this one) whose grant is not used up, so unused requests carry over
-- for 12 months, oldest first. requests_used counts the requests made in the month.
ALTER TABLE usage_months ADD COLUMN requests_granted bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_months ADD COLUMN requests_drawn bigint NOT NULL DEFAULT 0;

-- The request-based model (spec 8.4): free and paid request units per API key and UTC day.
CREATE TABLE key_days (
  key_id     text NOT NULL,
  day        date NOT NULL,
  free_units bigint NOT NULL DEFAULT 0,
  paid_units bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, day)
);
-- Paid requests of the month, for the volume discounts, and what they cost.
ALTER TABLE usage_months ADD COLUMN paid_units bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_months ADD COLUMN paid_micros bigint NOT NULL DEFAULT 0;
-- Prepaid balance of the request-based model, in micro-USD; paid requests draw from it before overage.
ALTER TABLE accounts ADD COLUMN prepaid_micros bigint NOT NULL DEFAULT 0 CHECK (prepaid_micros >= 0);

-- One row per admitted request (spec 2.6), written at admission (pending) and settled when it is
-- answered: included, overage or not_charged. Settled rows are moved to Parquet by the compactor.
CREATE TABLE ledger (
  seq               bigserial NOT NULL UNIQUE,
  request_id        text PRIMARY KEY,
  account_id        text NOT NULL,
  api_key_id        text NOT NULL,
  occurred_at       timestamptz NOT NULL,
  method            text NOT NULL,
  route             text NOT NULL,
  route_class       text NOT NULL,
  -- NULL while pending.
  status            smallint,
  records_charged   bigint NOT NULL DEFAULT 0,
  -- What this request billed as overage, in micro-USD.
  overage_micros    bigint NOT NULL DEFAULT 0,
  settlement_status text NOT NULL CHECK (settlement_status IN ('pending', 'included', 'overage', 'not_charged')),
  -- The month whose requests grant this request drew from (NULL: it drew none); returned on a 429.
  drawn_month       date,
  -- The compaction segment the row is being written to; the row is deleted once that segment is durable.
  segment_id        bigint
);
CREATE INDEX ledger_by_account ON ledger (account_id, seq DESC);
CREATE INDEX ledger_settled ON ledger (seq) WHERE settlement_status <> 'pending' AND segment_id IS NULL;

-- Parquet segments of the ledger under data/ledger/day=<day>/: written while 'writing', read once 'durable'.
CREATE TABLE ledger_segments (
  segment_id  bigserial PRIMARY KEY,
  day         date NOT NULL,
  state       text NOT NULL CHECK (state IN ('writing', 'durable')),
  rows        bigint NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- The POST that created an export: its ledger row stays pending until the export completes or fails.
ALTER TABLE exports ADD COLUMN request_id text;
