-- Requests refused at admission (429 rate_limited: the request window, the monthly requests, or the
-- day's free request units of the requests model), per account, UTC day, route class and key. A refused
-- request uses nothing and has no ledger row (spec 8.1 rule 2, 8.3 rule 2); GET /v1/usage/analytics
-- reports these counts (refused), so that an account can see the 429s it met.
CREATE TABLE refusals (
  account_id  text NOT NULL,
  day         date NOT NULL,
  route_class text NOT NULL,
  api_key_id  text NOT NULL,
  refused     bigint NOT NULL,
  PRIMARY KEY (account_id, day, route_class, api_key_id)
);
