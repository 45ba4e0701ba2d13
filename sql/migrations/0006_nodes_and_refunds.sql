-- The servers sharing the state store, and what each request's charge drew, so that nothing is taken
-- for an answer that was never delivered (docs/usage-and-limits.md, "When an answer is not delivered").

-- Each server process registers when it starts and renews seen_at while it runs. A request left
-- pending by a server that stopped renewing was never answered: another server settles it
-- (src/metering/nodes.ts).
CREATE TABLE nodes (
  node_id    text PRIMARY KEY,
  host       text NOT NULL,
  pid        integer NOT NULL,
  started_at timestamptz NOT NULL,
  seen_at    timestamptz NOT NULL
);

-- The server that admitted the request (NULL: admitted before servers registered).
ALTER TABLE ledger ADD COLUMN node_id text;
-- Whether the request counts one monthly request (requests_used, and requests_drawn when it drew
-- one): false for a request that uses none (a 429 gives its request back; so does one never answered).
ALTER TABLE ledger ADD COLUMN counted boolean NOT NULL DEFAULT true;
-- What the charge drew, to give it back exactly when the answer is cut off: records past the
-- allowance (records model); request units, those paid, and the prepaid balance drawn (requests model).
ALTER TABLE ledger ADD COLUMN overage_records bigint NOT NULL DEFAULT 0;
ALTER TABLE ledger ADD COLUMN units bigint NOT NULL DEFAULT 0;
ALTER TABLE ledger ADD COLUMN paid_units bigint NOT NULL DEFAULT 0;
ALTER TABLE ledger ADD COLUMN prepaid_micros bigint NOT NULL DEFAULT 0;
