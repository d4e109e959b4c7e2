-- Local datasets (src/datasets). Each dataset owns its tables; an import fills a staging copy of the
-- table (same DDL, read from sqlite_master) and swaps it in by rename, so readers never see half an import.

-- IEEE registries (MA-L, MA-M, MA-S, IAB, CID). prefix = upper-case hex of the assignment (6, 7 or 9 digits).
CREATE TABLE oui (
  prefix   TEXT PRIMARY KEY,
  bits     INTEGER NOT NULL,
  registry TEXT NOT NULL,
  vendor   TEXT NOT NULL,
  address  TEXT,
  country  TEXT
) WITHOUT ROWID;

-- AS names (asn.txt): one row per AS number.
CREATE TABLE asn (
  number      INTEGER PRIMARY KEY,
  name        TEXT,
  description TEXT,
  country     TEXT
);

-- RIR delegated-extended ASN rows: a block of `count` numbers from `start`. Kept as blocks because
-- the registries publish "available"/"reserved" pools of millions of numbers.
CREATE TABLE asn_rir (
  start     INTEGER PRIMARY KEY,
  count     INTEGER NOT NULL,
  rir       TEXT NOT NULL,
  country   TEXT,
  allocated TEXT,
  status    TEXT NOT NULL
);

-- Announced ranges → origin AS. family 4: start/end INTEGER; family 6: 16-byte big-endian BLOB.
-- Inclusive bounds; ranges may nest (pfx2as). An AS-set or multi-origin prefix keeps its first origin.
CREATE TABLE asn_prefix (
  family INTEGER NOT NULL,
  start  ANY NOT NULL,
  end    ANY NOT NULL,
  asn    INTEGER NOT NULL,
  org    TEXT
);

-- The active mmdb files under <dataDir>/geo/.
CREATE TABLE geo_file (
  file          TEXT PRIMARY KEY,
  ip_version    INTEGER NOT NULL,
  database_type TEXT NOT NULL,
  build_epoch   TEXT,
  node_count    INTEGER NOT NULL,
  size          INTEGER NOT NULL,
  sha256        TEXT NOT NULL
);
