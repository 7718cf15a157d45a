-- Up Migration
-- Two lanes of due work (issue 22): live work (webhooks, a person's action on
-- one order) is claimed before backfill (resyncs, reconciliation, bulk
-- retries), and within a lane shops take turns. An order's lane lives beside
-- its due time; rows from before are live, as everything was.
ALTER TABLE lb_orders ADD COLUMN lane text NOT NULL DEFAULT 'live';
-- Per shop, oldest due first, for the claim; and per lane, for the counts and the oldest waiting order.
CREATE INDEX lb_orders_lane_shop_due ON lb_orders (lane, platform, shop, due_at) WHERE due_at IS NOT NULL;
CREATE INDEX lb_orders_lane_due ON lb_orders (lane, due_at) WHERE due_at IS NOT NULL;

-- Down Migration
DROP INDEX lb_orders_lane_due;
DROP INDEX lb_orders_lane_shop_due;
ALTER TABLE lb_orders DROP COLUMN lane;
