// Every bench scenario at a tiny size, so that `npm run bench` cannot rot.
// It checks that each produces its figures, not the targets: those are for
// the full run, on a quiet machine.
import { describe, expect, it } from 'vitest';
import { benchResult, benchSteps, PROFILES, table, type BenchParts } from '../bench/run.ts';
import { postgresAvailable } from './helpers/postgres.ts';

const profile = PROFILES.smoke!;
const parts: Record<string, unknown> = {};
let elapsedMs = 0;

// One test a scenario, each with its own time: on a loaded machine the whole bench once took more than one test's.
describe.sequential('every benchmark scenario, at its smallest', () => {
  it.each(Object.entries(benchSteps(profile)))(
    'measures %s',
    async (name, { run }) => {
      const started = Date.now();
      parts[name] = await run();
      elapsedMs += Date.now() - started;
    },
    120_000,
  );
});

it('prints the table with every figure', () => {
  const result = benchResult(profile, parts as BenchParts, elapsedMs);
  expect(result.ack.bare.requestsPerSecond).toBeGreaterThan(0);
  expect(result.ack.lowdb.requestsPerSecond).toBeGreaterThan(0);
  expect(result.ack.lowdb.non2xx).toBe(0);
  if (postgresAvailable()) expect(result.ack.postgresTwo?.non2xx).toBe(0);
  expect(result.platformHang.hung.non2xx).toBe(0);
  expect(result.history.map((point) => point.backend)).toEqual(postgresAvailable() ? ['lowdb', 'postgres'] : ['lowdb']);
  expect(result.history[0]?.startupMs).toBeGreaterThan(0);
  expect(result.history[0]?.listP99).toBeGreaterThan(0);
  expect(result.drain).toMatchObject({ jobs: 30, rateLimited: 0, failed: 0 });
  expect(result.latency.p50).toBeGreaterThan(0);
  expect(result.lanes.map((run) => run.backend)).toEqual(postgresAvailable() ? ['lowdb', 'postgres'] : ['lowdb']);
  for (const run of result.lanes) {
    expect(run.rateLimited).toBe(0);
    expect(run.live.orders).toBeGreaterThan(0);
    expect(run.quietShop.orders).toBe(5);
  }
  expect(result.accounts.map((run) => run.backend)).toEqual(postgresAvailable() ? ['lowdb', 'postgres'] : ['lowdb']);
  for (const run of result.accounts) {
    expect(run.rateLimited).toBe(0);
    expect(run.others.orders).toBeGreaterThan(0);
    expect(run.backloggedShare.max).toBeGreaterThan(0);
    expect(run.ceiling.bridgePerSecond).toBeGreaterThan(0);
    expect(run.ceiling.barePerSecond).toBeGreaterThan(0);
  }
  expect(result.storefront).toMatchObject({ rateLimited: 0, failures: 0, liveEarn: { notEarned: 0 } });
  expect(result.storefront.balance.read.count + result.storefront.balance.cached.count).toBeGreaterThan(0);
  // The same load on BigCommerce: reads and redemptions with the current-customer token, codes as promotions.
  const bigCommerce = result.storefrontBigCommerce;
  expect(bigCommerce).toMatchObject({
    platform: 'BigCommerce',
    rateLimited: 0,
    failures: 0,
    liveEarn: { notEarned: 0 },
  });
  expect(bigCommerce.balance.read.count + bigCommerce.balance.cached.count).toBeGreaterThan(0);
  expect(bigCommerce.rewards.redeem.count).toBeGreaterThan(0);
  expect(bigCommerce.rewards.overspend).toBe(0);
  // And on WooCommerce: the plugin's identity token, orders as signed order.created deliveries, codes as coupons.
  const wooCommerce = result.storefrontWooCommerce;
  expect(wooCommerce).toMatchObject({
    platform: 'WooCommerce',
    rateLimited: 0,
    failures: 0,
    liveEarn: { notEarned: 0 },
  });
  expect(wooCommerce.balance.read.count + wooCommerce.balance.cached.count).toBeGreaterThan(0);
  expect(wooCommerce.rewards.redeem.count).toBeGreaterThan(0);
  expect(wooCommerce.rewards.overspend).toBe(0);
  expect(table(result)).toContain('| storefront |');
  expect(table(result)).toContain('| storefront (BigCommerce) |');
  expect(table(result)).toContain('| rewards (BigCommerce) |');
  expect(table(result)).toContain('| storefront (WooCommerce) |');
  expect(table(result)).toContain('| rewards (WooCommerce) |');
  expect(table(result)).toContain('| live during backfill |');
  expect(table(result)).toContain('| accounts |');
  expect(table(result)).toContain('| BigCommerce deliveries, store API hung |');
  if (postgresAvailable()) {
    // The inbox's 50 keys and 50 aliases are kept; the 2,000 expired keys go.
    expect(result.postgres?.prune.kept).toBe(100);
    expect(result.postgres?.takeover.earnedMs).toBeGreaterThanOrEqual(0);
    expect(result.postgres?.notify.withNotify).toBeGreaterThan(0);
    expect(table(result)).toContain('takeover after SIGKILL');
  }
});
