-- MCP sessions over Streamable HTTP, shared by every replica (docs/mcp.md, "Sessions"): any replica
-- continues a session another opened. The files a session saved (search_jobs save_to_file) are objects
-- mcp/<session_id>/<file_id>.jsonl of the data store; a row here makes one readable.

CREATE TABLE mcp_sessions (
  -- The Mcp-Session-Id: any text a client sends is looked up, so text rather than uuid.
  session_id         text PRIMARY KEY,
  -- The key that opened it: to every other key it does not exist.
  key_id             text NOT NULL REFERENCES api_keys (key_id),
  confirmation_level text NOT NULL DEFAULT 'paid_only' CHECK (confirmation_level IN ('always', 'paid_only', 'never')),
  created_at         timestamptz NOT NULL,
  -- The store's clock, not a replica's: idle expiry is decided the same on every replica.
  last_used_at       timestamptz NOT NULL
);
CREATE INDEX mcp_sessions_key ON mcp_sessions (key_id, last_used_at);
CREATE INDEX mcp_sessions_idle ON mcp_sessions (last_used_at);

CREATE TABLE mcp_files (
  session_id         text NOT NULL REFERENCES mcp_sessions (session_id) ON DELETE CASCADE,
  file_id            text NOT NULL,
  -- Save order: a session keeps its newest files.
  seq                bigint GENERATED ALWAYS AS IDENTITY,
  jobs               integer NOT NULL,
  snapshot_watermark text NOT NULL,
  created_at         timestamptz NOT NULL,
  -- Byte offset of each job's line in the object, then its size: jobs i to j are one ranged read.
  offsets            integer[] NOT NULL,
  PRIMARY KEY (session_id, file_id)
);
CREATE INDEX mcp_files_file ON mcp_files (file_id);
