// What a customer's Redeem costs the account (issue 64, finding 1): a balance that cannot cover the reward answers
// without a call; a read takes a place in the storefront's share, beside live orders but within its part; one
// customer reads only so often; page views keep the rest of the share, whatever the redeemers do; one shop leaves
// the others on the account their part; and a customer the ledger knows is never told only to try again.
import { describe, expect, it } from 'vitest';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import { CUSTOMER_REDEEM_READS, REDEEM_PART, SHOP_PART } from '../../src/core/storefront/storefront-places.ts';
import { BALANCE_FRESH_MS, StorefrontReader } from '../../src/core/storefront/storefront-reader.ts';
import { createLogger } from '../../src/logger.ts';
import { createRateLimiter, type RateLimiter } from '../../src/loyalty/rate-limiter.ts';

const ADA = { email: 'ada@example.com' };
// 250 available.
const FIGURES = { balance: { approved: 300, redeemed: 50, pending: 0, available: 250 }, earned: [], redeemed: [] };
const SHARE = 0.2;
const SHOP = { platform: 'testshop', shop: 'acme' };

/** Ada's one approved order in the ledger (the service cannot be asked for hers). */
const ADA_ORDER = {
  platform: 'testshop',
  shop: 'acme',
  updatedAt: '2026-04-01T10:00:00.000Z',
  snapshot: { orderName: '#1001', customer: { name: null, email: ADA.email, mobile: null } },
  upstream: { account: 'acct', points: 'approved', earnActivityId: 'gives-70', earnedAt: '2026-04-01T10:00:00.000Z' },
};

function world({ limit = 1000 } = {}) {
  let now = Date.parse('2026-05-01T10:00:00Z');
  const calls: Array<{ email?: string }> = [];
  const limiter = createRateLimiter({ limit, windowMs: 60_000 });
  const client = {
    limiter,
    transactions: async (input: { email?: string }) => {
      calls.push(input);
      return { ok: true, data: FIGURES, message: 'Success', attempts: 1 };
    },
  };
  const state = { liveFirst: false };
  const account = {
    id: 'acct',
    pool: alone('acct'),
    client,
    policy: { pendingDays: 14 },
    activityPoints: { 'gives-70': 70 },
    reserveCall: () => limiter.reserve(),
  } as unknown as AccountRuntime;
  const reader = new StorefrontReader({
    accounts: { forShop: async () => 'acct', runtime: async () => account },
    store: {
      customerOrders: async (customer: { email: string } | { mobile: string }) =>
        ('email' in customer && customer.email === ADA.email ? [ADA_ORDER] : []) as never,
    },
    liveFirst: () => state.liveFirst,
    share: SHARE,
    logger: createLogger({ level: 'silent' }),
    now: () => now,
  });
  return { reader, account, calls, state, limiter, advance: (ms: number) => (now += ms) };
}

describe('a customer’s redemptions and the account’s calls', () => {
  it('answers a Redeem the balance cannot cover from the balance just read: 50 presses, one call', async () => {
    const { reader, account, calls, advance } = world();
    // The first press reads anew; the reservation then finds 250 too few.
    expect(
      await reader.pointsToRedeem(account, ADA, { platform: 'testshop', shop: 'acme', needed: 500 }),
    ).toMatchObject({ ok: true });
    for (let press = 1; press < 50; press++)
      expect(await reader.pointsToRedeem(account, ADA, { platform: 'testshop', shop: 'acme', needed: 500 })).toEqual({
        ok: 'short',
        available: 250,
      });
    expect(calls).toHaveLength(1);
    // Once the balance is no longer fresh, or the bridge's own call for her drops it, it is read again.
    reader.dropBalance('acct', ADA);
    await reader.pointsToRedeem(account, ADA, { platform: 'testshop', shop: 'acme', needed: 500 });
    expect(calls).toHaveLength(2);
    advance(BALANCE_FRESH_MS);
    await reader.pointsToRedeem(account, ADA, { platform: 'testshop', shop: 'acme', needed: 500 });
    expect(calls).toHaveLength(3);
  });

  it('reads anew whenever the balance might cover it, at most CUSTOMER_REDEEM_READS a minute per customer', async () => {
    const { reader, account, calls, advance } = world();
    for (let press = 0; press < CUSTOMER_REDEEM_READS; press++)
      expect(
        await reader.pointsToRedeem(account, ADA, { platform: 'testshop', shop: 'acme', needed: 100 }),
      ).toMatchObject({ ok: true });
    expect(calls).toHaveLength(CUSTOMER_REDEEM_READS);
    const refused = await reader.pointsToRedeem(account, ADA, { platform: 'testshop', shop: 'acme', needed: 100 });
    expect(refused).toMatchObject({ ok: false });
    expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
    expect(calls).toHaveLength(CUSTOMER_REDEEM_READS);
    // Another customer is not held back by her presses.
    expect(
      await reader.pointsToRedeem(
        account,
        { email: 'bea@example.com' },
        { platform: 'testshop', shop: 'acme', needed: 100 },
      ),
    ).toMatchObject({
      ok: true,
    });
    advance(60_000);
    expect(
      await reader.pointsToRedeem(account, ADA, { platform: 'testshop', shop: 'acme', needed: 100 }),
    ).toMatchObject({ ok: true });
  });

  it('gives redemptions’ reads only their part of the share: page views keep theirs', async () => {
    const { reader, account, calls } = world({ limit: 200 });
    const effective = (account.client as unknown as { limiter: RateLimiter }).limiter.stats();
    const redeemRoom = Math.floor(effective.effectiveLimit * SHARE * REDEEM_PART);
    const viewRoom = Math.floor(effective.effectiveLimit * SHARE * (1 - REDEEM_PART));
    const shareRoom = Math.floor(effective.effectiveLimit * SHARE);
    expect(redeemRoom).toBeGreaterThan(0);
    expect(viewRoom).toBeGreaterThan(0);
    // Many customers, each pressing once (a shop full of forged clicks): the reads stop at the redemptions' part.
    let read = 0;
    for (let customer = 0; customer < shareRoom + 5; customer++) {
      const answer = await reader.pointsToRedeem(
        account,
        { email: `r${customer}@example.com` },
        { platform: 'testshop', shop: 'acme', needed: 100 },
      );
      if (answer.ok) read++;
    }
    expect(read).toBe(redeemRoom);
    // Page views of other customers still find their part.
    let viewed = 0;
    for (let customer = 0; customer < shareRoom; customer++) {
      const answer = await reader.points(
        account,
        { email: `v${customer}@example.com` },
        { platform: 'testshop', shop: 'acme' },
      );
      if (answer.ok) viewed++;
    }
    expect(viewed).toBe(viewRoom);
    expect(calls).toHaveLength(redeemRoom + viewRoom);
  });

  it('reads for a redemption beside waiting live orders, where a page view waits for them', async () => {
    const { reader, account, state, calls } = world();
    state.liveFirst = true;
    expect(
      await reader.points(account, { email: 'bea@example.com' }, { platform: 'testshop', shop: 'acme' }),
    ).toMatchObject({ ok: false });
    expect(
      await reader.pointsToRedeem(
        account,
        { email: 'bea@example.com' },
        { platform: 'testshop', shop: 'acme', needed: 100 },
      ),
    ).toMatchObject({ ok: true });
    expect(calls).toHaveLength(1);
  });

  it('asks a limiter every instance shares for the redemptions’ part and the views’ part, each in its row', async () => {
    const { reader, account } = world();
    const asked: Array<[number, string | undefined]> = [];
    const limiter = (account.client as unknown as { limiter: RateLimiter }).limiter;
    limiter.takeShare = async (share, row) => (asked.push([share, row]), { taken: true });
    await reader.pointsToRedeem(account, ADA, { platform: 'testshop', shop: 'acme', needed: 100 });
    await reader.points(account, { email: 'bea@example.com' }, { platform: 'testshop', shop: 'acme' });
    expect(asked).toEqual([
      [SHARE * REDEEM_PART, 'redeems'],
      [SHARE * (1 - REDEEM_PART), undefined],
    ]);
  });

  it('leaves the other shops on the account their part: one shop’s customers stop at SHOP_PART of the share', async () => {
    const { reader, account, limiter } = world({ limit: 400 });
    const stats = limiter.stats();
    // Page views' part of the share, and one shop's part of that beside another shop.
    const shareRoom = Math.floor(stats.effectiveLimit * SHARE * (1 - REDEEM_PART));
    const shopRoom = Math.floor(shareRoom * SHOP_PART);
    expect(shopRoom).toBeGreaterThan(1);
    expect(shopRoom).toBeLessThan(shareRoom - 1);
    const other = { platform: 'testshop', shop: 'bazaar' };
    expect(await reader.points(account, { email: 'b0@example.com' }, other)).toMatchObject({ ok: true });
    // A crowd on acme's pages: its reads stop at its part.
    let acme = 0;
    for (let customer = 0; customer < shareRoom; customer++)
      if ((await reader.points(account, { email: `a${customer}@example.com` }, SHOP)).ok) acme++;
    expect(acme).toBe(shopRoom);
    // Bazaar's customers still find room.
    let bazaar = 0;
    for (let customer = 1; customer < shareRoom; customer++)
      if ((await reader.points(account, { email: `b${customer}@example.com` }, other)).ok) bazaar++;
    expect(bazaar).toBe(shareRoom - shopRoom - 1);
  });

  it('answers from the ledger, marked so, when the service cannot be asked: "try again" only for a stranger', async () => {
    const { reader, account, state, calls } = world();
    state.liveFirst = true;
    const answer = await reader.points(account, ADA, SHOP);
    expect(answer).toMatchObject({
      ok: true,
      stale: true,
      points: { balance: { approved: 70, available: 70, source: 'ledger', missingElsewhere: true } },
    });
    expect(await reader.points(account, { email: 'stranger@example.com' }, SHOP)).toMatchObject({ ok: false });
    expect(calls).toHaveLength(0);
  });
});
