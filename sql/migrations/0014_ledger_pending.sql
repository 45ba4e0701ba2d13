-- The ledger's pending rows: every server looks for those a stopped server left (sql/state/nodes.sql,
-- left_pending) at each heartbeat, which read the whole table before (0.3-0.7 s of the embedded store
-- on a ledger of a few hundred megabytes, every 10 s). Rows settled when written (the common path:
-- leases, the journal) never enter this index; a pending row leaves it when settled.
CREATE INDEX ledger_pending ON ledger (seq) WHERE settlement_status = 'pending';
