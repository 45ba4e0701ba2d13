-- MCP sessions over HTTP and their saved files (sql/migrations/0009_mcp_sessions.sql). Idle time is
-- measured on the store's clock, so every replica decides it the same.

-- name: lock_key
-- Sessions of one key open one at a time, so that its limit holds whichever replicas open them.
SELECT key_id FROM api_keys WHERE key_id = $1 FOR NO KEY UPDATE;

-- name: open
INSERT INTO mcp_sessions (session_id, key_id, created_at, last_used_at) VALUES ($1, $2, now(), now());

-- name: evict_sessions
-- The key's sessions past its $3 most recently used, other than $2 (the one just opened).
DELETE FROM mcp_sessions
WHERE session_id IN (
  SELECT session_id FROM mcp_sessions
  WHERE key_id = $1 AND session_id <> $2
  ORDER BY last_used_at DESC, created_at DESC
  OFFSET $3
)
RETURNING session_id;

-- name: touch
-- The session, if it belongs to key $2 and was used in the last $3 milliseconds; marked used now.
UPDATE mcp_sessions SET last_used_at = now()
WHERE session_id = $1 AND key_id = $2 AND last_used_at > now() - $3::double precision * interval '1 millisecond'
RETURNING confirmation_level;

-- name: end
DELETE FROM mcp_sessions WHERE session_id = $1;

-- name: expire
-- Sessions unused for $1 milliseconds (their files' rows go with them).
DELETE FROM mcp_sessions WHERE last_used_at <= now() - $1::double precision * interval '1 millisecond' RETURNING session_id;

-- name: set_level
UPDATE mcp_sessions SET confirmation_level = $2 WHERE session_id = $1;

-- name: add_file
-- Nothing when the session has ended meanwhile.
INSERT INTO mcp_files (session_id, file_id, jobs, snapshot_watermark, created_at, offsets)
SELECT session_id, $2, $3, $4, $5, $6 FROM mcp_sessions WHERE session_id = $1
RETURNING file_id;

-- name: drop_file
DELETE FROM mcp_files WHERE session_id = $1 AND file_id = $2;

-- name: evict_files
-- The session's files past its $2 newest.
DELETE FROM mcp_files
WHERE session_id = $1 AND file_id IN (SELECT file_id FROM mcp_files WHERE session_id = $1 ORDER BY seq DESC OFFSET $2)
RETURNING file_id;

-- name: file_range
-- A saved file and the bytes of its jobs $3 (from 0) up to $4 (excluded, at most the file's end).
SELECT jobs, snapshot_watermark, created_at, offsets[$3::integer + 1] AS start_byte, offsets[least($4::integer, jobs) + 1] AS end_byte
FROM mcp_files WHERE session_id = $1 AND file_id = $2;

-- name: known_files
SELECT file_id FROM mcp_files WHERE file_id = ANY($1::text[]);
