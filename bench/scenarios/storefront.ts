// The storefront under live orders (issue 51), on each platform the storefront runs on (issue 53): a bridge set up
// as the platform's app beside its fake (bench/lib/storefront-<platform>.ts, the StorefrontPlatform driver), a
// store's trial account on the bridge's sandbox limited to `limitPerMinute` calls (the bridge's limiter and the
// sandbox alike), live paid orders arriving at `ordersPerMinute` as the platform delivers them, and customers
// asking for their balance `readsPerSecond` times a second across `customers` customers, as the platform's widget
// asks (Shopify: through the app proxy, signed as Shopify signs it; BigCommerce: with the current-customer token),
// their contacts read from the fake's API. Measured: the balance's p50/p99, answered from what was kept and read
// anew; each live order's time from its delivery's answer to its earn at the sandbox; the storefront's share of
// the calls the service took (its transactions of all); 429s (the target is none).
// Rewards (issue 52): `redeemers` customers with 300 approved points each redeem a 100-point reward
// `redeemsPerSecond` times a second (two tabs at once now and then), and every other code pays for an order (the
// fake platform's checkout applies it, then the paid order carrying it is delivered); measured: the redemption's
// p50/p99, codes issued, "not enough points" answers, and overspend: for each customer, points redeemed at the
// sandbox plus points the bridge still holds for them, beyond their approved points (the target is 0), and codes
// redeemed more than once. The bridge runs in this process.
// An abuser (issue 64), where asked: one signed-in customer with no points presses Redeem again as soon as each
// answer comes, for the whole run; measured: their presses and answers, and what the others' rows become.
import type { StorefrontPlatform } from '../lib/storefront-driver.ts';
import { percentile } from '../lib/stats.ts';

export interface StorefrontProfile {
  seconds: number;
  ordersPerMinute: number;
  readsPerSecond: number;
  customers: number;
  limitPerMinute: number;
  redeemsPerSecond: number;
  redeemers: number;
}

/** Order numbers of the paid-with-a-code orders, apart from the live ones. */
const CODE_ORDERS = 1_000_000;

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

export async function storefrontScenario(
  profile: StorefrontProfile,
  platform: StorefrontPlatform,
  load: { abuser: boolean } = { abuser: false },
) {
  const running = await platform.start({ customers: profile.customers, limitPerMinute: profile.limitPerMinute });
  try {
    const made = await running.merchant('POST', '/account', { sandbox: true });
    if (made.status !== 201) throw new Error(`the trial account was not made: ${made.text}`);
    const brandId = made.body.account.brandId as string;
    // The trial's limit, as the bridge holds it (LOYALTY_RATE_LIMIT_PER_MINUTE; the sandbox's is its own setting).
    const accountLimit = made.body.account.rateLimitPerMinute as number;
    const on = await running.merchant('PUT', '/storefront', { on: true });
    if (on.status !== 200) throw new Error(`the storefront did not turn on: ${on.text}`);
    const sandboxAccount = () => running.bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brandId);
    const saved = await running.merchant('PUT', '/storefront/rewards', {
      rewards: [{ points: 100, amountOff: '1.00', minimumOrder: null, expiresInDays: 30, combines: false }],
    });
    if (saved.status !== 200) throw new Error(`the reward was not saved: ${saved.text}`);
    const rewardId = saved.body.rewards[0].id as string;
    // Each redeeming customer (the first `redeemers`) has 300 approved points before the clock starts.
    const approvedOf = (email: string) =>
      (sandboxAccount()?.store.snapshot().earnings ?? [])
        .filter((each) => each.email === email && each.status === 'approved')
        .reduce((sum, each) => sum + each.points, 0);
    for (let n = 0; n < profile.redeemers; n++)
      for (let k = 0; k < 3; k++)
        if (!(await running.completedOrder(-1 - n * 3 - k, n)))
          throw new Error(`the bridge did not take customer ${n}'s completed order`);
    const readyBy = performance.now() + 60_000;
    while (performance.now() < readyBy) {
      const ready = Array.from({ length: profile.redeemers }, (_, n) => approvedOf(`c${n}@example.com`));
      if (ready.every((points) => points >= 300)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

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
    // The setup's burst of calls may have found the budget's slices full: live orders then come first for a
    // moment (AccountBudgets.liveFirst), and every read would be "try again". The clock starts once one is served.
    const servedBy = performance.now() + 15_000;
    while (performance.now() < servedBy) {
      const probe = await running.points(profile.customers - 1);
      if (((await probe.json()) as { balance?: unknown }).balance) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const redeemed: number[] = [];
    let issued = 0;
    let short = 0;
    let redeemBusy = 0;
    let codeOrders = 0;
    const started = performance.now();
    const abuse = { presses: 0, byStatus: {} as Record<string, number> };
    // The last customer has no approved points: live orders only give pending ones.
    const abuser = async () => {
      while (performance.now() - started < profile.seconds * 1_000) {
        const answer = await running.redeem(profile.customers - 1, rewardId);
        await answer.arrayBuffer().catch(() => undefined);
        abuse.presses++;
        abuse.byStatus[answer.status] = (abuse.byStatus[answer.status] ?? 0) + 1;
      }
    };
    if (load.abuser) waits.push(abuser());
    let ordersSent = 0;
    let readsSent = 0;
    let redeemsSent = 0;

    // Customers the bridge has carried an order of (the redeemers', and each live order's once sent).
    const seenCustomers = new Set(Array.from({ length: profile.redeemers }, (_, n) => n));
    let readsOfSeen = 0;
    let tryAgainOfSeen = 0;
    const sendOrder = async (k: number) => {
      const ok = await running.paidOrder(k, k % profile.customers);
      if (ok) seenCustomers.add(k % profile.customers);
      else failures++;
      sentAt.set(running.orderId(k), performance.now());
    };
    const read = async (k: number) => {
      const customer = (k * 7919) % profile.customers;
      const seen = seenCustomers.has(customer);
      const asked = Date.now();
      const at = performance.now();
      const answer = await running.points(customer);
      const took = performance.now() - at;
      const body = (await answer.json().catch(() => ({}))) as { balance?: { asOf: string } };
      if (seen) readsOfSeen++;
      if (answer.status !== 200) failures++;
      else if (!body.balance) {
        unanswered.push(took);
        if (seen) tryAgainOfSeen++;
      }
      // Read before this request was asked: kept; at or after: read anew for it (or a read it joined).
      else (Date.parse(body.balance.asOf) < asked - 5 ? cached : fresh).push(took);
    };
    const redeemOnce = async (customer: number) => {
      const at = performance.now();
      const answer = await running.redeem(customer, rewardId);
      redeemed.push(performance.now() - at);
      const body = (await answer.json().catch(() => ({}))) as { code?: string };
      if (answer.status === 200 && body.code) {
        issued++;
        return body.code;
      }
      if (answer.status === 409) short++;
      else redeemBusy++;
      return undefined;
    };
    const redeem = async (k: number) => {
      const who = k % profile.redeemers;
      // Now and then the same customer in two tabs at once.
      const codes = await Promise.all(k % 5 === 0 ? [redeemOnce(who), redeemOnce(who)] : [redeemOnce(who)]);
      for (const code of codes) {
        if (!code || k % 2 === 1) continue;
        // Every other code pays for an order, as the platform says it did.
        if (!running.useCode(who, code)) continue;
        await running.paidOrder(CODE_ORDERS + codeOrders++, who, code);
      }
    };
    // The arrivals on their own clocks, for `seconds`.
    const orderEveryMs = 60_000 / profile.ordersPerMinute;
    const readEveryMs = 1_000 / profile.readsPerSecond;
    const redeemEveryMs = 1_000 / profile.redeemsPerSecond;
    while (performance.now() - started < profile.seconds * 1_000) {
      const elapsed = performance.now() - started;
      while (ordersSent * orderEveryMs <= elapsed) waits.push(sendOrder(ordersSent++));
      while (readsSent * readEveryMs <= elapsed) waits.push(read(readsSent++));
      while (redeemsSent * redeemEveryMs <= elapsed) waits.push(redeem(redeemsSent++));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(waits);
    // Every live order earned (or the wait given up), then the watch ends.
    const deadline = performance.now() + 120_000;
    while (seen.size < sentAt.size && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    clearInterval(watch);
    // Every code-paid order's redeem has gone (or the wait is given up), then the books are checked per customer.
    const redeemsBy = performance.now() + 60_000;
    const redemptions = () => sandboxAccount()?.store.snapshot().redemptions ?? [];
    while (redemptions().length < codeOrders && performance.now() < redeemsBy)
      await new Promise((resolve) => setTimeout(resolve, 50));
    let overspend = 0;
    for (let n = 0; n < profile.redeemers; n++) {
      const email = `c${n}@example.com`;
      const spent = redemptions()
        .filter((each) => each.email === email)
        .reduce((sum, each) => sum + each.points, 0);
      const shown = await running.points(n);
      const view = (await shown.json()) as { codes?: Array<{ points: number }> };
      const held = (view.codes ?? []).reduce((sum, each) => sum + each.points, 0);
      overspend += Math.max(0, spent + held - approvedOf(email));
    }
    const calls = await upstreamCalls(running.url);
    const total = Object.values(calls.byOperation).reduce((sum, count) => sum + count, 0);
    return {
      platform: platform.name,
      abuse: load.abuser ? abuse : undefined,
      seconds: profile.seconds,
      limitPerMinute: accountLimit,
      ordersPerMinute: profile.ordersPerMinute,
      readsPerSecond: profile.readsPerSecond,
      customers: profile.customers,
      balance: {
        cached: figures(cached),
        read: figures(fresh),
        tryAgain: figures(unanswered),
        seen: { reads: readsOfSeen, tryAgain: tryAgainOfSeen },
      },
      liveEarn: { ...figures(earnedAfter), notEarned: sentAt.size - seen.size },
      calls: calls.byOperation,
      storefrontShare: total === 0 ? 0 : Number(((calls.byOperation.transactions ?? 0) / total).toFixed(3)),
      rateLimited: calls.rateLimited + running.bridge.sandbox!.refusedForRate,
      failures,
      rewards: {
        redeemsPerSecond: profile.redeemsPerSecond,
        redeemers: profile.redeemers,
        redeem: figures(redeemed),
        issued,
        short,
        busy: redeemBusy,
        codeOrders,
        redeemedAtService: redemptions().length,
        overspend,
      },
    };
  } finally {
    await running.stop();
  }
}

export type StorefrontRun = Awaited<ReturnType<typeof storefrontScenario>>;

/**
 * Its rows of the bench's table: a row a platform, Shopify's named plainly (as it was before BigCommerce had one).
 * The load is the same on every platform, so the headers describe the first run's.
 */
export function storefrontTable(runs: StorefrontRun[]): string[] {
  const cell = (figures: { count: number; p50Ms: number; p99Ms: number }) =>
    figures.count === 0 ? 'none' : `${figures.p50Ms} / ${figures.p99Ms} (${figures.count})`;
  const named = (what: string, run: StorefrontRun) =>
    `${run.platform === 'Shopify' ? what : `${what} (${run.platform})`}${run.readsPerSecond === 0 ? ', no customer asking' : ''}${run.abuse ? ', and a customer with no points pressing Redeem nonstop' : ''}`;
  const first = runs[0];
  if (!first) return [];
  return [
    '',
    `| storefront (${first.readsPerSecond} reads/s across ${first.customers} customers, live orders ${first.ordersPerMinute}/min, limit ${first.limitPerMinute}/min, ${first.seconds} s) | balance kept p50/p99 ms (n) | balance read p50/p99 ms (n) | "try again" p50/p99 ms (n) | "try again" to customers it has seen | live earn p50/p99 ms (n) | storefront's share of calls | 429s |`,
    '|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (run) =>
        `| ${named('storefront', run)} | ${cell(run.balance.cached)} | ${cell(run.balance.read)} | ${cell(run.balance.tryAgain)} | ${run.balance.seen.tryAgain} of ${run.balance.seen.reads} | ${cell(run.liveEarn)}${run.liveEarn.notEarned ? `, ${run.liveEarn.notEarned} NOT earned` : ''} | ${run.storefrontShare} | ${run.rateLimited} |`,
    ),
    '',
    `| rewards (${first.rewards.redeemsPerSecond} redemptions/s across ${first.rewards.redeemers} customers, beside the rows above) | redeem p50/p99 ms (n) | codes issued | "not enough points" | "try again" | orders paid with a code | redeems at the service | overspent points |`,
    '|---|---|---|---|---|---|---|---|',
    ...runs
      .filter((run) => run.rewards.redeemsPerSecond > 0)
      .map(
        (run) =>
          `| ${named('rewards', run)} | ${cell(run.rewards.redeem)} | ${run.rewards.issued} | ${run.rewards.short} | ${run.rewards.busy} | ${run.rewards.codeOrders} | ${run.rewards.redeemedAtService} | ${run.rewards.overspend} |`,
      ),
    ...abuseRows(runs),
  ];
}

/** The abuser's presses beside each run that had one, and the service's balance reads of that run, all customers'. */
function abuseRows(runs: StorefrontRun[]): string[] {
  const abused = runs.filter((run) => run.abuse);
  if (abused.length === 0) return [];
  return [
    '',
    "| a customer with no points pressing Redeem nonstop | presses | answers by status | balance reads at the service in the run, everyone's |",
    '|---|---|---|---|',
    ...abused.map(
      (run) =>
        `| ${run.platform} | ${run.abuse!.presses} | ${Object.entries(run.abuse!.byStatus)
          .map(([status, count]) => `${count} × ${status}`)
          .join(', ')} | ${run.calls.transactions ?? 0} |`,
    ),
  ];
}
