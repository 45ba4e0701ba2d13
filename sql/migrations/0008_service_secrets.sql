-- Secrets every server of one service shares, made once by the first server that needs one: the key that
-- signs cursors, so that a cursor made by one replica is good on every other (issue 19). A server that
-- finds data/cursor-secret from before this migration offers it first, so earlier cursors stay good.

CREATE TABLE service_secrets (
  name       text PRIMARY KEY,
  value      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
