-- The servers sharing the state store (sql/migrations/0006_nodes_and_refunds.sql): registration, the
-- heartbeat, and the requests a stopped server left pending.

-- name: register
INSERT INTO nodes (node_id, host, pid, started_at, seen_at) VALUES ($1, $2, $3, $4, $4);

-- name: heartbeat
UPDATE nodes SET seen_at = $2 WHERE node_id = $1;

-- name: deregister
DELETE FROM nodes WHERE node_id = $1;

-- name: dead
-- Servers other than $1 not seen since $2.
SELECT node_id FROM nodes WHERE node_id <> $1 AND seen_at < $2 ORDER BY seen_at;

-- name: left_pending
-- Requests a stopped server ($1; NULL: admitted before servers registered, up to $2) left pending. An
-- export's request stays pending until the export completes: the export runner settles it.
SELECT request_id FROM ledger l
WHERE l.settlement_status = 'pending'
  AND CASE WHEN $1::text IS NULL THEN l.node_id IS NULL AND l.occurred_at < $2 ELSE l.node_id = $1 END
  AND NOT EXISTS (SELECT 1 FROM exports e WHERE e.request_id = l.request_id)
ORDER BY l.seq
LIMIT 1000;

-- name: abandon
SELECT meter_abandon($1) AS abandoned;
