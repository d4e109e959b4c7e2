-- Dataset metadata: one row per dataset, describing its active version.
CREATE TABLE dataset (
  name        TEXT PRIMARY KEY,
  source      TEXT,
  version     TEXT,
  built_at    TEXT,
  loaded_at   TEXT,
  records     INTEGER,
  sha256      TEXT,
  last_error  TEXT,
  last_error_at TEXT,
  last_success_at TEXT
);
