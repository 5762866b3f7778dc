-- Bookkeeping tables of xiaochong, created by `dedup init-db` and on first use (IF NOT EXISTS).
-- The archive of removed rows, <table>_removed, is created from the source table itself
-- (all its columns, plus dedup_run_id, dedup_rule, dedup_kept_id, dedup_score, dedup_removed_at),
-- so that it works for any source table; see ArchiveTables in the dedup module.

-- One row per applied `dedup run` (a dry run writes nothing); a restore updates its run's row.
CREATE TABLE IF NOT EXISTS dedup_run (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  source_table VARCHAR(64) NOT NULL,
  method VARCHAR(255) NOT NULL,           -- the run's fingerprint methods, comma-separated, in run order
  applied BOOLEAN NOT NULL,
  status VARCHAR(16) NOT NULL,           -- planned | applying | applied | restoring | restored
  config_digest CHAR(32) NOT NULL,       -- MD5 of the effective config (password excluded)
  window_since DATETIME NULL,
  window_until DATETIME NULL,
  records_read BIGINT NOT NULL DEFAULT 0,
  started_at DATETIME(3) NOT NULL,
  finished_at DATETIME(3) NULL,
  message VARCHAR(1024) NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- The rows an applied run removed, per fingerprint method (one row per method of the run). A run log
-- with the older exact_removed/near_removed columns is moved here by the next command that ensures
-- these tables: run --apply, restore, stats, init-db (RunLogMigration).
CREATE TABLE IF NOT EXISTS dedup_run_removed (
  run_id BIGINT NOT NULL,
  method VARCHAR(16) NOT NULL,
  removed BIGINT NOT NULL,
  PRIMARY KEY (run_id, method)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Child rows that a merge (apply.referenced=merge) re-pointed from a removed row to its kept row, one
-- row each, so that `restore` puts them back (only where they still point to the kept row); deleted as
-- they are put back. child_key is a JSON array of the child row's primary key values (child_key_columns),
-- each as {"hex": the hex of its bytes} (records of older versions hold the values themselves).
CREATE TABLE IF NOT EXISTS dedup_repoint (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  run_id BIGINT NOT NULL,
  child_schema VARCHAR(64) NOT NULL,
  child_table VARCHAR(64) NOT NULL,
  child_column VARCHAR(64) NOT NULL,
  child_key_columns VARCHAR(1024) NOT NULL,
  child_key TEXT NOT NULL,
  old_id BIGINT NOT NULL,                -- the removed row the child row pointed to
  new_id BIGINT NOT NULL,                -- the kept row it points to since the merge
  KEY (run_id, old_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- The decisions of a run (each committed before the row it names is touched), so that an interrupted --apply can be
-- finished (replay is idempotent: it only moves rows still present in the source table).
CREATE TABLE IF NOT EXISTS dedup_plan (
  run_id BIGINT NOT NULL,
  seq INT NOT NULL,
  removed_id BIGINT NOT NULL,
  kept_id BIGINT NOT NULL,
  rule VARCHAR(16) NOT NULL,
  score DOUBLE NOT NULL,
  skipped BOOLEAN NOT NULL DEFAULT 0,    -- left in place: 1 the rows changed since the plan (apply re-check),
                                         -- 2 rows of other tables reference it (apply.referenced)
  removed_time DATETIME(3) NULL,         -- what the index held of the removed row when the pass decided:
  removed_crc BIGINT NOT NULL DEFAULT -1, -- its time and row checksum (-1: unknown, the apply decides again)
  kept_time DATETIME(3) NULL,            -- the same of the kept row
  kept_crc BIGINT NOT NULL DEFAULT -1,
  PRIMARY KEY (run_id, seq)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Pairs of rows a person decided are not duplicates: no run, `check` or apply removes one of them in
-- favour of the other. `dedup apart add` adds one by hand ('manual'); `dedup apart remove` forgets one.
-- (Before groups, `restore` added one per pair of rows it put back, reason 'restore': the next
-- `run --apply` or `restore` moves those into groups.)
CREATE TABLE IF NOT EXISTS dedup_apart (
  source_table VARCHAR(64) NOT NULL,
  id_a BIGINT NOT NULL,                  -- the smaller id of the pair
  id_b BIGINT NOT NULL,                  -- the larger
  reason VARCHAR(16) NOT NULL,           -- manual (restore: not migrated yet)
  run_id BIGINT NULL,                    -- the run whose restore made the mark (NULL: manual)
  created_at DATETIME(3) NOT NULL,
  PRIMARY KEY (source_table, id_a, id_b)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Groups of rows a person decided are not duplicates of each other: no run, `check` or apply removes
-- a row of a group in favour of another row of it. `restore` makes one per kept row of the run it puts
-- back: the kept row and the rows that had been removed for it. A row a later run keeps in favour of
-- the group's kept row (or of such a twin) joins the group, so the restored rows stay apart from it too. One row per group and one per member: the marks grow with the rows, never with their pairs.
CREATE TABLE IF NOT EXISTS dedup_apart_group (
  id BIGINT NOT NULL AUTO_INCREMENT,
  source_table VARCHAR(64) NOT NULL,
  reason VARCHAR(16) NOT NULL,           -- restore
  run_id BIGINT NOT NULL,                -- the run whose restore made the group
  anchor_id BIGINT NOT NULL,             -- the row the group's rows had been removed for
                                         -- (a group migrated from pairs: its smallest id)
  created_at DATETIME(3) NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY (source_table, run_id, anchor_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS dedup_apart_member (
  group_id BIGINT NOT NULL,              -- dedup_apart_group.id
  source_table VARCHAR(64) NOT NULL,
  row_id BIGINT NOT NULL,                -- a row of the source table or of its archive
  role VARCHAR(8) NOT NULL,              -- kept: the row the others had been removed for; restored;
                                         -- twin: a row a later run kept for the kept row or a twin
  PRIMARY KEY (group_id, row_id),
  KEY (source_table, row_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
