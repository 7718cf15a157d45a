-- Up Migration
-- The ledger in PostgreSQL, shared by every bridge behind one address.

-- Acknowledged deliveries waiting to be translated and folded into orders.
CREATE TABLE lb_inbox (
  key text PRIMARY KEY,
  aliases text[] NOT NULL DEFAULT '{}',
  received_at timestamptz NOT NULL,
  entry jsonb NOT NULL,
  retry jsonb,
  due_at timestamptz NOT NULL,
  lease_owner text,
  lease_until timestamptz
);
CREATE INDEX lb_inbox_due ON lb_inbox (due_at);

-- Every key a delivery was accepted under, for dedupe within the window.
CREATE TABLE lb_seen (
  key text PRIMARY KEY,
  received_at timestamptz NOT NULL
);
CREATE INDEX lb_seen_received ON lb_seen (received_at);

-- One row per order. fold is written by folding events, progress by the worker:
-- neither overwrites the other. The columns beside them are for querying.
CREATE TABLE lb_orders (
  key text PRIMARY KEY,
  platform text NOT NULL,
  shop text NOT NULL,
  order_id text NOT NULL,
  order_name text NOT NULL DEFAULT '',
  state text NOT NULL DEFAULT 'new',
  reason text,
  upstream text NOT NULL DEFAULT 'none',
  email text,
  mobile text,
  updated_at timestamptz NOT NULL,
  due_at timestamptz,
  lease_owner text,
  lease_until timestamptz,
  version bigint NOT NULL DEFAULT 0,
  fold_version bigint NOT NULL DEFAULT 0,
  fold jsonb NOT NULL,
  progress jsonb NOT NULL
);
CREATE INDEX lb_orders_due ON lb_orders (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX lb_orders_updated ON lb_orders (updated_at DESC, key);
CREATE INDEX lb_orders_state ON lb_orders (state, updated_at DESC);
CREATE INDEX lb_orders_shop ON lb_orders (platform, shop);
CREATE INDEX lb_orders_email ON lb_orders (lower(email));
CREATE INDEX lb_orders_mobile ON lb_orders (mobile) WHERE mobile IS NOT NULL;

-- Orders by state, platform and skip reason, kept by a trigger so that the
-- status page does not count a million rows on every look.
CREATE TABLE lb_order_counts (
  state text NOT NULL,
  platform text NOT NULL,
  reason text NOT NULL DEFAULT '',
  count bigint NOT NULL,
  PRIMARY KEY (state, platform, reason)
);

CREATE FUNCTION lb_count_orders() RETURNS trigger AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE lb_order_counts SET count = count - 1
     WHERE state = OLD.state AND platform = OLD.platform AND reason = coalesce(OLD.reason, '');
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO lb_order_counts (state, platform, reason, count) VALUES (NEW.state, NEW.platform, coalesce(NEW.reason, ''), 1)
      ON CONFLICT (state, platform, reason) DO UPDATE SET count = lb_order_counts.count + 1;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER lb_orders_count_insert_delete AFTER INSERT OR DELETE ON lb_orders
  FOR EACH ROW EXECUTE FUNCTION lb_count_orders();
CREATE TRIGGER lb_orders_count_update AFTER UPDATE OF state, platform, reason ON lb_orders
  FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.platform IS DISTINCT FROM NEW.platform OR OLD.reason IS DISTINCT FROM NEW.reason)
  EXECUTE FUNCTION lb_count_orders();

CREATE TABLE lb_dead_letters (
  id text PRIMARY KEY,
  created_at timestamptz NOT NULL,
  platform text,
  shop text,
  order_key text,
  letter jsonb NOT NULL
);
CREATE INDEX lb_dead_letters_created ON lb_dead_letters (created_at);

-- Small collections by kind: shops, sessions (access tokens), reconciliation,
-- adjustments, resync jobs, privacy requests, platform health.
CREATE TABLE lb_records (
  kind text NOT NULL,
  id text NOT NULL,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, id)
);

-- Which order each lp_orderid sent to the loyalty service belongs to.
CREATE TABLE lb_lp_order_ids (
  lp_order_id text PRIMARY KEY,
  order_key text NOT NULL
);
CREATE INDEX lb_lp_order_ids_owner ON lb_lp_order_ids (order_key);

-- The loyalty API's rate limit, shared by every instance (rate-limiter-flexible's table).
CREATE TABLE lb_rate_limit (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
