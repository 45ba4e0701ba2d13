-- Slots of the account's current window that the embedded store's server holds in its lease and has not
-- used yet (ADR 0013, "The window held whole"): counted in `used` like the slots of requests admitted, and
-- given back when a server starts after one that was killed, since only the server holding the store
-- can use them. A request admitted from the lease and taken in the store no longer counts as held.
ALTER TABLE rate_windows ADD COLUMN held integer NOT NULL DEFAULT 0;
