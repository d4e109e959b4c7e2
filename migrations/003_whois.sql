-- WHOIS/RDAP registration store (issue 6) and the active RDAP bootstrap registry.

-- One row per registrable domain (ASCII form): the normalised record plus the raw answers.
CREATE TABLE whois_cache (
  domain         TEXT PRIMARY KEY,
  unicode_domain TEXT NOT NULL,
  source_type    TEXT NOT NULL CHECK (source_type IN ('rdap', 'whois')),
  registered     INTEGER NOT NULL CHECK (registered IN (0, 1)),
  -- JSON: {"registration": {...} | null, "servers": {...}, "bootstrap": {...} | null}
  record         TEXT NOT NULL,
  -- JSON-encoded raw answers: RDAP JSON or WHOIS text; raw_related is the registrar's answer.
  raw            TEXT,
  raw_related    TEXT,
  -- Unix milliseconds; import keeps whichever copy is newer.
  fetched_at_ms  INTEGER NOT NULL
) WITHOUT ROWID;

-- The active IANA dns.json (RFC 9224); its metadata lives in the dataset row "rdap_bootstrap".
CREATE TABLE rdap_bootstrap (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  json   TEXT NOT NULL,
  sha256 TEXT NOT NULL
);
