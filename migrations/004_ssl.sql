-- ssl lookup: every certificate the daemon observed per target, and the CT log list (dataset "ct_logs").

CREATE TABLE ssl_history (
  domain       TEXT NOT NULL,
  port         INTEGER NOT NULL,
  fingerprint  TEXT NOT NULL,           -- SHA-256, upper-case colon hex
  serial       TEXT NOT NULL,           -- upper-case colon hex
  issuer       TEXT NOT NULL,           -- RFC 4514 DN
  valid_from   TEXT NOT NULL,           -- ISO 8601 UTC
  expires_at   TEXT NOT NULL,
  first_seen   TEXT NOT NULL,
  last_seen    TEXT NOT NULL,
  PRIMARY KEY (domain, port, fingerprint)
) WITHOUT ROWID;

CREATE INDEX ssl_history_recent ON ssl_history (domain, port, last_seen DESC);

-- Logs of the active CT log list version (replaced as a whole on import).
CREATE TABLE ct_log (
  log_id       TEXT PRIMARY KEY,        -- base64 of the 32-byte log id
  description  TEXT NOT NULL,
  operator     TEXT NOT NULL,
  url          TEXT,
  state        TEXT                     -- usable, qualified, readonly, retired, rejected, pending
) WITHOUT ROWID;
