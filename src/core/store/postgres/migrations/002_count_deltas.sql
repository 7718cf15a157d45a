-- Up Migration
-- Order counts without a hot row (issue 17). The trigger of 001 updated one
-- row per (state, platform, reason) in every transaction that created or moved
-- an order: every new order of every instance queued on the same row, and two
-- orders moving between two states in opposite directions deadlocked. Now each
-- change appends delta rows, which never wait on one another; reads add them to
-- lb_order_counts, and a compaction folds them in now and then.
CREATE TABLE lb_order_count_deltas (
  state text NOT NULL,
  platform text NOT NULL,
  reason text NOT NULL DEFAULT '',
  delta integer NOT NULL
);

CREATE OR REPLACE FUNCTION lb_count_orders() RETURNS trigger AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO lb_order_count_deltas (state, platform, reason, delta) VALUES (OLD.state, OLD.platform, coalesce(OLD.reason, ''), -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO lb_order_count_deltas (state, platform, reason, delta) VALUES (NEW.state, NEW.platform, coalesce(NEW.reason, ''), 1);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
