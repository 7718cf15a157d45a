// What the takeover test and bench share: a burst of paid Shopify orders
// sent to bridge processes (each delivery sent again until acknowledged, as a
// platform does), and what one instance still holds in a shared ledger.
import type pg from 'pg';
import { startCli, type RunningCli } from './cli-process.ts';
import { SANDBOX_CREDENTIALS } from './sandbox-server.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from './shopify.ts';

/** A bridge process on the shared database, calling the sandbox, with default lease settings: no WORKER_LEASE_SECONDS. */
export const startSharedBridge = (
  databaseUrl: string,
  sandboxUrl: string,
  secret = SHOPIFY_SECRET,
): Promise<RunningCli> =>
  startCli(['start'], {
    DATABASE_URL: databaseUrl,
    LOYALTY_BASE_URL: sandboxUrl,
    LOYALTY_API_KEY: SANDBOX_CREDENTIALS.apiKey,
    LOYALTY_BRAND_ID: SANDBOX_CREDENTIALS.brandId,
    LOYALTY_RATE_LIMIT_PER_MINUTE: '60000',
    RECONCILE_INTERVAL_MINUTES: '0',
    SHOPIFY_API_SECRET: secret,
    SHOPIFY_SHOPS: SHOP,
  });

const LANES = 8;

async function deliver(bridge: RunningCli, orderId: string, secret: string): Promise<boolean> {
  const body = shopifyOrderJson({ id: orderId, email: `takeover-${orderId}@example.com` });
  const response = await fetch(`${bridge.url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic: 'orders/paid', body, webhookId: `takeover-${orderId}`, secret }),
    body,
  }).catch(() => undefined);
  return response?.status === 200;
}

/** Sends each order's orders/paid delivery over 8 lanes until it is acknowledged; returns the acknowledged ids in order. */
export async function sendPaidOrders(orderIds: string[], to: RunningCli, secret = SHOPIFY_SECRET): Promise<string[]> {
  const acknowledged: string[] = [];
  await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      for (const orderId of orderIds.filter((_, n) => n % LANES === lane)) {
        // Not acknowledged (the target died): the platform sends it again.
        while (!(await deliver(to, orderId, secret))) await new Promise((resolve) => setTimeout(resolve, 20));
        acknowledged.push(orderId);
      }
    }),
  );
  return acknowledged;
}

/** The instance a bridge process said it is in its start-up line (its lease tokens start with it). */
export const instanceOf = (bridge: RunningCli): string =>
  /"instance":"([^"]+)"/.exec(bridge.output())?.[1] ?? 'unknown';

/** Orders and inbox entries whose lease is an instance's, expired or not: work it held and nobody has claimed since. */
export async function heldBy(db: pg.Client, instance: string): Promise<{ orders: number; inbox: number }> {
  const { rows } = await db.query<{ orders: string; inbox: string }>(
    'SELECT (SELECT count(*) FROM lb_orders WHERE starts_with(lease_owner, $1)) AS orders, (SELECT count(*) FROM lb_inbox WHERE starts_with(lease_owner, $1)) AS inbox',
    [`${instance}/`],
  );
  return { orders: Number(rows[0]?.orders), inbox: Number(rows[0]?.inbox) };
}
