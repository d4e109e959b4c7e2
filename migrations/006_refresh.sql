-- Dataset refresh (src/datasets/refresh): what was last fetched from each configured source, so the
-- next refresh can send a conditional GET. Written only after the version built from these files was
-- activated: a failed import must not turn the next attempt into a "not modified".
CREATE TABLE dataset_source (
  dataset       TEXT NOT NULL,   -- the import name: geo, oui, rir, asnames, prefixes, rdap-bootstrap, ct-logs
  source        TEXT NOT NULL,   -- URL or file path, as configured
  file          TEXT NOT NULL,   -- retained copy under <data dir>/sources/<dataset>/
  etag          TEXT,
  last_modified TEXT,            -- HTTP Last-Modified as sent; for a file path, its mtime
  sha256        TEXT NOT NULL,   -- of the bytes as fetched (gzip stays gzip)
  size          INTEGER NOT NULL,
  fetched_at    TEXT NOT NULL,
  PRIMARY KEY (dataset, source)
) WITHOUT ROWID;
