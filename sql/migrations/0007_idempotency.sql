-- Idempotency keys (Stripe's semantics) of POST /v1/jobs/exports and PUT /v1/account/overage: the first
-- successful answer of a key, kept 24 hours and replayed for the same request.

CREATE TABLE idempotency_keys (
  account_id  text NOT NULL REFERENCES accounts (account_id),
  key         text NOT NULL,
  -- What the request was: its method, route and body, hashed; another request under the key is refused.
  fingerprint text NOT NULL,
  status      smallint NOT NULL,
  body        jsonb NOT NULL,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (account_id, key)
);
