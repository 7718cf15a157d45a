-- Up Migration
-- The ledger's format (src/core/store/format/ledger-format.ts): one row with
-- the newest format written here and the release that wrote it. An instance
-- refuses a ledger of a newer format than it reads, and raises the format
-- only while no instance of an older one is connected (open-postgres.ts).
CREATE TABLE lb_ledger_format (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  format integer NOT NULL,
  written_by text NOT NULL,
  at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE lb_ledger_format;
