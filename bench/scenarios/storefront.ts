// The storefront under live orders (issue 51): a Shopify bridge on its sandbox, a shop's trial account limited to
// `limitPerMinute` calls (the bridge's limiter and the sandbox alike), live orders/paid deliveries arriving at
// `ordersPerMinute`, and customers asking for their balance `readsPerSecond` times a second across `customers`
// customers, through the app proxy's route signed as Shopify signs it (test/helpers/shopify-proxy-signer.ts),
// their contacts read from the fake Shopify's Admin API. Measured: the balance's p50/p99, answered from what was
// kept and read anew; each live order's time from its delivery's answer to its earn at the sandbox; the
// storefront's share of the calls the service took (its transactions of all); 429s (the target is none).
// The bridge runs in this process (the fake Shopify is reached through the test helpers' address override).
import { shopifyCustomerNode } from '../../test/helpers/fake-shopify.ts';
import { shopifyHeaders, shopifyOrderJson } from '../../test/helpers/shopify.ts';
import {
  APP_SECRET,
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
} from '../../test/helpers/shopify-app-bridge.ts';
import { proxiedQuery } from '../../test/helpers/shopify-proxy-signer.ts';
import { tempDataDir } from '../../test/helpers/engine.ts';
import { percentile } from '../lib/stats.ts';

export interface StorefrontProfile {
  seconds: number;
  ordersPerMinute: number;
  readsPerSecond: number;
  customers: number;
  limitPerMinute: number;
}

const SHOP = 'bench-storefront.myshopify.com';
const FIRST_ORDER = 6_200_000_000;

const figures = (times: number[]) => ({
  count: times.length,
  p50Ms: Math.round(percentile(times, 50)),
  p99Ms: Math.round(percentile(times, 99)),
});

/** The bridge's own count of the calls the service took and refused, by operation, from /metrics. */
async function upstreamCalls(url: string): Promise<{ byOperation: Record<string, number>; rateLimited: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const byOperation: Record<string, number> = {};
  let rateLimited = 0;
  for (const match of text.matchAll(/^loyalty_bridge_upstream_calls_total\{([^}]*)\} (\d+)/gm)) {
    const operation = /operation="([^"]+)"/.exec(match[1]!)?.[1] ?? '?';
    const outcome = /outcome="([^"]+)"/.exec(match[1]!)?.[1] ?? '?';
    const count = Number(match[2]);
    if (outcome === 'rate_limited') rateLimited += count;
    else byOperation[operation] = (byOperation[operation] ?? 0) + count;
  }
  return { byOperation, rateLimited };
}

export async function storefrontScenario(profile: StorefrontProfile) {
  const fake = await startFakeShopifyForApp();
  fake.install(SHOP);
  fake.scopes = 'read_orders,read_customers';
  for (let n = 0; n < profile.customers; n++)
    fake
      .shop(SHOP)
      .customers.set(String(9_000 + n), shopifyCustomerNode(String(9_000 + n), { email: `c${n}@example.com` }));
  const limit = String(profile.limitPerMinute);
  const running = await startShopifyAppBridge(fake, {
    DATA_DIR: tempDataDir(),
    SHOPIFY_SHOPS: '',
    SHOPIFY_OPEN_INSTALLS: 'true',
    ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
    SANDBOX_RATE_LIMIT_PER_MINUTE: limit,
    LOYALTY_RATE_LIMIT_PER_MINUTE: limit,
  });
  try {
    const made = await asShop(running, SHOP).post('/account', { sandbox: true });
    if (made.status !== 201) throw new Error(`the trial account was not made: ${made.text}`);
    const brandId = made.body.account.brandId as string;
    // The trial's limit, as the bridge holds it (LOYALTY_RATE_LIMIT_PER_MINUTE; the sandbox's is its own setting).
    const accountLimit = made.body.account.rateLimitPerMinute as number;
    const on = await asShop(running, SHOP).put('/storefront', { on: true });
    if (on.status !== 200) throw new Error(`the storefront did not turn on: ${on.text}`);
    const sandboxAccount = () => running.bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brandId);

    const sentAt = new Map<string, number>();
    const earnedAfter: number[] = [];
    const cached: number[] = [];
    const fresh: number[] = [];
    const unanswered: number[] = [];
    let failures = 0;
    const waits: Array<Promise<void>> = [];
    // Each live order's earn, as the sandbox records it, watched from the start (the bridge is not asked).
    const seen = new Set<string>();
    const watch = setInterval(() => {
      for (const { orderId } of sandboxAccount()?.store.snapshot().earnings ?? [])
        if (orderId !== null && !seen.has(orderId) && sentAt.has(orderId)) {
          seen.add(orderId);
          earnedAfter.push(performance.now() - sentAt.get(orderId)!);
        }
    }, 50);
    const started = performance.now();
    let ordersSent = 0;
    let readsSent = 0;

    const sendOrder = async (n: number) => {
      const id = String(FIRST_ORDER + n);
      const body = shopifyOrderJson({ id, email: `c${n % profile.customers}@example.com` });
      const answer = await fetch(`${running.url}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic: 'orders/paid', body, shop: SHOP, secret: APP_SECRET }),
        body,
      });
      if (answer.status !== 200) failures++;
      sentAt.set(id, performance.now());
    };
    const read = async (n: number) => {
      const customer = String(9_000 + ((n * 7919) % profile.customers));
      const asked = Date.now();
      const at = performance.now();
      const answer = await fetch(
        `${running.url}/shopify/storefront/points?${proxiedQuery({ shop: SHOP, customerId: customer }, APP_SECRET)}`,
      );
      const took = performance.now() - at;
      const body = (await answer.json().catch(() => ({}))) as { balance?: { asOf: string } };
      if (answer.status !== 200) failures++;
      else if (!body.balance) unanswered.push(took);
      // Read before this request was asked: kept; at or after: read anew for it (or a read it joined).
      else (Date.parse(body.balance.asOf) < asked - 5 ? cached : fresh).push(took);
    };
    // Both arrivals on their own clocks, for `seconds`.
    const orderEveryMs = 60_000 / profile.ordersPerMinute;
    const readEveryMs = 1_000 / profile.readsPerSecond;
    while (performance.now() - started < profile.seconds * 1_000) {
      const elapsed = performance.now() - started;
      while (ordersSent * orderEveryMs <= elapsed) waits.push(sendOrder(ordersSent++));
      while (readsSent * readEveryMs <= elapsed) waits.push(read(readsSent++));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(waits);
    // Every live order earned (or the wait given up), then the watch ends.
    const deadline = performance.now() + 120_000;
    while (seen.size < sentAt.size && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    clearInterval(watch);
    const calls = await upstreamCalls(running.url);
    const total = Object.values(calls.byOperation).reduce((sum, count) => sum + count, 0);
    return {
      seconds: profile.seconds,
      limitPerMinute: accountLimit,
      ordersPerMinute: profile.ordersPerMinute,
      readsPerSecond: profile.readsPerSecond,
      customers: profile.customers,
      balance: { cached: figures(cached), read: figures(fresh), tryAgain: figures(unanswered) },
      liveEarn: { ...figures(earnedAfter), notEarned: sentAt.size - seen.size },
      calls: calls.byOperation,
      storefrontShare: total === 0 ? 0 : Number(((calls.byOperation.transactions ?? 0) / total).toFixed(3)),
      rateLimited: calls.rateLimited + running.bridge.sandbox!.refusedForRate,
      failures,
    };
  } finally {
    await running.stop();
    await stopFakeShopifyForApp(fake);
  }
}

/** Its rows of the bench's table. */
export function storefrontTable(run: Awaited<ReturnType<typeof storefrontScenario>>): string[] {
  const cell = (figures: { count: number; p50Ms: number; p99Ms: number }) =>
    figures.count === 0 ? 'none' : `${figures.p50Ms} / ${figures.p99Ms} (${figures.count})`;
  return [
    '',
    `| storefront (${run.readsPerSecond} reads/s across ${run.customers} customers, live orders ${run.ordersPerMinute}/min, limit ${run.limitPerMinute}/min, ${run.seconds} s) | balance kept p50/p99 ms (n) | balance read p50/p99 ms (n) | "try again" p50/p99 ms (n) | live earn p50/p99 ms (n) | storefront's share of calls | 429s |`,
    '|---|---|---|---|---|---|---|',
    `| storefront | ${cell(run.balance.cached)} | ${cell(run.balance.read)} | ${cell(run.balance.tryAgain)} | ${cell(run.liveEarn)}${run.liveEarn.notEarned ? `, ${run.liveEarn.notEarned} NOT earned` : ''} | ${run.storefrontShare} | ${run.rateLimited} |`,
  ];
}
