// A redemption's read and its place in the account's budget (issue 64, from an adversarial review of 8b68ea2):
// 1. Redemptions' reads keep to the storefront's part of each slice, as page views do: customers pressing Redeem at
//    once leave a live order that comes in the same slice its place (the rest wait for the next slice).
// 2. A read that waits out full slices is counted once: one point of the shared redemptions' row, and one of the
//    customer's own CUSTOMER_REDEEM_READS, for its one call.
// 3. A press refused for want of room leaves the balance the page shows (kept, with its age).
// 4. A read starts, for what it counts as held, when its place is given; and one the bridge's own call for the
//    customer dropped while it ran is made again (a review of b032dff).
import { describe, expect, it } from 'vitest';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import { CUSTOMER_REDEEM_READS } from '../../src/core/storefront/storefront-places.ts';
import type { StorefrontReader } from '../../src/core/storefront/storefront-reader.ts';
import type { Place } from '../../src/loyalty/places.ts';
import { createRateLimiter, type RateBudget, type RateLimiter } from '../../src/loyalty/rate-limiter.ts';
import { accountReader, memorySharedLimiter } from '../helpers/storefront-budget.ts';

const FIGURES = { balance: { approved: 300, redeemed: 50, pending: 0, available: 250 }, earned: [], redeemed: [] };
const SHARE = 0.2;
const SHOP = { platform: 'testshop', shop: 'acme' };

/**
 * A reader on `limiter` as production wires it: reserveCall passes the share (accounts/from-config.ts), and the
 * client's call is scheduled in the limiter with its place (as LoyaltyClient does). `reserveCall` may be wrapped.
 */
function world(
  limiter: RateLimiter,
  wrap?: (reserve: (share?: number) => RateBudget) => (share?: number) => RateBudget,
  held?: (account: string, customer: unknown, source: string, readStartedAt: number) => Promise<number>,
) {
  const calls: unknown[] = [];
  const reserve = (share?: number) => limiter.reserve(share);
  const account = {
    id: 'acct',
    pool: alone('acct'),
    client: {
      limiter,
      transactions: (input: unknown, options: { place?: Place } = {}) =>
        limiter.schedule(async () => {
          calls.push(input);
          return { ok: true, data: structuredClone(FIGURES), message: 'Success', attempts: 1 };
        }, options.place),
    },
    policy: { pendingDays: 14 },
    reserveCall: wrap ? wrap(reserve) : reserve,
  } as unknown as AccountRuntime;
  // Real clock (as composition/storefront-reader.ts wires it): the limiter's `until` and the reader agree.
  const reader = accountReader(account, { share: SHARE, ...(held ? { held } : {}) });
  return { reader, account, calls };
}

/** A live order's ask for a place now: whether the slice had one (given back at once). */
function liveOrderFindsRoom(limiter: RateLimiter): boolean {
  const budget = limiter.reserve();
  if (budget.spent) return false;
  budget.place.release();
  return true;
}

/** Waits until the limiter's slice has just turned over (no start in the last slice), so a burst lands in one slice. */
async function freshSlice(limiter: RateLimiter) {
  await limiter.onIdle();
  await new Promise((resolve) => setTimeout(resolve, 1_100));
}

describe('redemptions’ reads at once keep to the storefront’s part of a slice', () => {
  // 300 a minute on one instance: slices of 1017 ms, 5 calls each.
  const LIMIT = 300;

  it('leave a live order its place in the slice when five customers press Redeem at once', async () => {
    const limiter = createRateLimiter({ limit: LIMIT, windowMs: 60_000 });
    const { reader, account, calls } = world(limiter);
    expect(limiter.stats().effectiveLimit).toBe(294);
    await freshSlice(limiter);
    // Five of one shop's customers (accounts an attacker signed up: their first press always reads) press at once.
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        reader.pointsToRedeem(account, { email: `r${i}@x.example` }, { ...SHOP, needed: 100 }),
      ),
    );
    expect(answers.filter((answer) => answer.ok === true)).toHaveLength(5);
    expect(calls).toHaveLength(5);
    // The live order that comes now: issue 64's rule is that the storefront leaves live orders the rest of a slice.
    expect(liveOrderFindsRoom(limiter)).toBe(true);
  }, 15_000);

  it('lets page views at once leave that place (the same burst as views)', async () => {
    const limiter = createRateLimiter({ limit: LIMIT, windowMs: 60_000 });
    const { reader, account, calls } = world(limiter);
    await freshSlice(limiter);
    await Promise.all(Array.from({ length: 5 }, (_, i) => reader.points(account, { email: `v${i}@x.example` }, SHOP)));
    expect(calls.length).toBeLessThan(5);
    expect(liveOrderFindsRoom(limiter)).toBe(true);
  }, 15_000);
});

/** The budget full for the next `times` asks (live orders took the slice), for `ms` each; then as the limiter says. */
const fullFor =
  (times: number, ms: number) =>
  (reserve: (share?: number) => RateBudget) =>
  (share?: number): RateBudget =>
    times-- > 0 ? { spent: true, until: Date.now() + ms } : reserve(share);

describe('a redemption’s read that waits out a full slice is counted once', () => {
  it('takes one point of the shared redemptions’ row for its one call, not one per try', async () => {
    const { limiter, redeemTakes } = memorySharedLimiter(300, 'redeem-places-key');
    const { reader, account, calls } = world(limiter, fullFor(2, 200));
    const answer = await reader.pointsToRedeem(account, { email: 'ada@x.example' }, { ...SHOP, needed: 100 });
    expect(answer.ok).toBe(true);
    expect(calls).toHaveLength(1);
    // Every instance's redemptions share this row (⌊288 × 0.2 × 0.75⌋ = 43 a minute): one point for its one call, however many slices it waited.
    expect(redeemTakes()).toBe(1);
  }, 10_000);

  it('counts one press that waited out two full slices once against the customer’s own reads', async () => {
    const limiter = createRateLimiter({ limit: 1000, windowMs: 60_000 });
    const { reader, account, calls } = world(limiter, fullFor(2, 200));
    const ada = { email: 'ada@x.example' };
    // One press: the budget is full twice (live orders), then she is read.
    expect((await reader.pointsToRedeem(account, ada, { ...SHOP, needed: 100 })).ok).toBe(true);
    // Her next presses in the window (each reads: the reservation dropped what was kept, as RewardCodes does).
    let read = 1;
    for (let press = 0; press < CUSTOMER_REDEEM_READS; press++) {
      reader.dropBalance('acct', ada);
      if ((await reader.pointsToRedeem(account, ada, { ...SHOP, needed: 100 })).ok === true) read++;
    }
    expect(calls).toHaveLength(read);
    // CUSTOMER_REDEEM_READS reads a minute, "presses refused for want of room included": one press, one read.
    expect(read).toBe(CUSTOMER_REDEEM_READS);
  }, 10_000);
});

// A press refused for want of room must not drop what was kept: the page shows it, with its age (BALANCE_KEPT_MS),
// rather than read anew from the views' part of the share.
describe('a Redeem refused for want of room', () => {
  it('still answers the kept balance, stale, to a page view after a refused press', async () => {
    const limiter = createRateLimiter({ limit: 300, windowMs: 60_000 });
    let full = false;
    const { reader, account, calls } = world(
      limiter,
      (reserve) => (share) => (full ? { spent: true, until: Date.now() + 30_000 } : reserve(share)),
    );
    const ada = { email: 'ada@x.example' };
    expect(await reader.points(account, ada, SHOP)).toMatchObject({
      ok: true,
      points: { balance: { available: 250 } },
    });
    // Live orders fill the budget; Ada presses Redeem for a reward her 250 points cover: "try again".
    full = true;
    expect(await reader.pointsToRedeem(account, ada, { ...SHOP, needed: 100 })).toMatchObject({ ok: false });
    // Her page, a moment later: the balance read 1 s ago is still shown (the ledger knows nothing of her).
    expect(await reader.points(account, ada, SHOP)).toMatchObject({
      ok: true,
      points: { balance: { available: 250 } },
    });
    expect(calls).toHaveLength(1);
  });
});

// A redeem settled while a read waited for its place is in the service's figures: the read must count it from when
// it was made, after the wait, or the redeem counts as held too and a cover check withdraws a code the points cover.
describe('a read that waits for its place', () => {
  it('starts, for what it counts as held, when its place is given, not when it was asked', async () => {
    const limiter = createRateLimiter({ limit: 1000, windowMs: 60_000 });
    let givenAt = 0;
    const starts: number[] = [];
    const { reader, account } = world(
      limiter,
      (reserve) => {
        const full = fullFor(1, 300)(reserve);
        return (share) => {
          const budget = full(share);
          if (!budget.spent) givenAt = Date.now();
          return budget;
        };
      },
      async (_account, _customer, _source, readStartedAt) => {
        starts.push(readStartedAt);
        return 0;
      },
    );
    expect((await reader.pointsNow(account, { email: 'ada@x.example' })).ok).toBe(true);
    expect(givenAt).toBeGreaterThan(0);
    expect(starts.length).toBeGreaterThan(0);
    for (const start of starts) expect(start).toBeGreaterThanOrEqual(givenAt);
  });
});

// The bridge's own call for a customer (an earning's cancel) landing while their Redeem's read runs: that read may
// not show it, so the redemption reads once more rather than reserve on points just taken away.
describe('a redemption whose read the bridge’s own call for the customer drops while it runs', () => {
  it('reads again, and reserves on the figures after that call', async () => {
    const limiter = createRateLimiter({ limit: 1000, windowMs: 60_000 });
    const ada = { email: 'ada@x.example' };
    let reads = 0;
    const account = {
      id: 'acct',
      pool: alone('acct'),
      client: {
        limiter,
        transactions: (_input: unknown, options: { place?: Place } = {}) =>
          limiter.schedule(async () => {
            reads++;
            // The first read's figures were taken before the cancel; the cancel goes through as it answers.
            if (reads === 1) reader.dropBalance('acct', ada);
            const approved = reads === 1 ? 300 : 100;
            const balance = { approved, redeemed: 50, pending: 0, available: approved - 50 };
            return { ok: true, data: { ...structuredClone(FIGURES), balance }, message: 'Success', attempts: 1 };
          }, options.place),
      },
      policy: { pendingDays: 14 },
      reserveCall: (share?: number) => limiter.reserve(share),
    } as unknown as AccountRuntime;
    const reader: StorefrontReader = accountReader(account, { share: SHARE });
    const answer = await reader.pointsToRedeem(account, ada, { ...SHOP, needed: 100 });
    expect(reads).toBe(2);
    expect(answer).toMatchObject({ ok: true, points: { balance: { approved: 100 } } });
  });
});
