-- API keys (API.md "Authentication and limits"): only the SHA-256 of a key is stored.
CREATE TABLE api_keys (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL,
  plan          TEXT NOT NULL CHECK (plan IN ('developer', 'pro', 'business')),
  key_hash      TEXT NOT NULL UNIQUE,
  key_prefix    TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  last_used_at  TEXT,
  revoked_at    TEXT
);
-- A name identifies one active key (keys revoke NAME); a revoked key's name may be reused.
CREATE UNIQUE INDEX api_keys_active_name ON api_keys (name) WHERE revoked_at IS NULL;

-- Requests per key and UTC day, added to in batches by the HTTP workers.
CREATE TABLE api_key_usage (
  key_id    INTEGER NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  day       TEXT NOT NULL,
  requests  INTEGER NOT NULL,
  PRIMARY KEY (key_id, day)
) WITHOUT ROWID;
