// Review of the Redeem reads (c9fe316, issue 64, finding 1): each test failed on c9fe316, on a defect the review
// found, and passes since db4de35 (two, on how presses at once share one read, were rewritten for that design).
//
// 1. One customer's Redeems at once all pass the per-customer count (CUSTOMER_REDEEM_READS): forRedeem checks the
//    count, awaits its place, then writes the count from what it read before the await (a lost update too).
// 2. On a limiter every instance shares (takeShare), a refused take still counts in the storefront's window: one
//    customer pressing Redeem once the redemptions' part is used up fills the share, and page views get nothing.
//    A refused redemption is not counted against the customer either, so nothing bounds those takes.
// 3. On a shared limiter, a redemption's take is refused once the storefront's whole count (views included)
//    passes half the share, and while any live order waits: redemptions do not get "their part beside live
//    orders" as on one instance.
// 4. A kept balance that says "too few" is handed to the reservation as if read anew: the reservation's
//    compare-and-set may find enough with it (a reservation let go meanwhile), and issues a code on figures up to
//    30 s old that a read anew would refuse.
// 5. Where ⌊effective limit × share × REDEEM_PART⌋ is 0 (a small plan's limit, or STOREFRONT_SHARE 0 to spare the
//    limit for orders), no customer can redeem at all, where before a redemption's read took an order's place.
import type { RecordType } from '../../src/core/store/roles/record-types.ts';
import { describe, expect, it } from 'vitest';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import type { StoreCodes } from '../../src/core/platform-module.ts';
import { CODE_KIND, HOLDER_KIND, heldPoints, holderId, type Holder } from '../../src/core/storefront/reservations.ts';
import { RewardCodes } from '../../src/core/storefront/reward-codes.ts';
import type { Reward } from '../../src/core/storefront/rewards.ts';
import { CUSTOMER_REDEEM_READS, REDEEM_PART } from '../../src/core/storefront/storefront-places.ts';
import { StorefrontReader } from '../../src/core/storefront/storefront-reader.ts';
import type { ServiceCustomer } from '../../src/core/storefront/customer-points.ts';
import { createLogger } from '../../src/logger.ts';
import { createRateLimiter, planRateLimit, type RateLimiter } from '../../src/loyalty/rate-limiter.ts';
import { memorySharedLimiter } from '../helpers/storefront-budget.ts';

const ADA = { email: 'ada@example.com' };
const MALLORY = { email: 'mallory@example.com' };
const FIGURES = { balance: { approved: 300, redeemed: 50, pending: 0, available: 250 }, earned: [], redeemed: [] };
const SHARE = 0.2;
const logger = createLogger({ level: 'silent' });

function reader(limiter: RateLimiter, share = SHARE) {
  const calls: Array<{ email?: string }> = [];
  const account = {
    id: 'acct',
    pool: alone('acct'),
    client: {
      limiter,
      transactions: async (input: { email?: string }) => {
        calls.push(input);
        return { ok: true, data: FIGURES, message: 'Success', attempts: 1 };
      },
    },
    policy: { pendingDays: 14 },
    reserveCall: () => limiter.reserve(),
  } as unknown as AccountRuntime;
  const storefront = new StorefrontReader({
    accounts: { forShop: async () => 'acct', runtime: async () => account },
    store: { customerOrders: async () => [] },
    liveFirst: () => false,
    share,
    logger,
  });
  return { reader: storefront, account, calls };
}

/** The shared limiter over windows in memory (`live`: whether a live order waits on some instance). */
const sharedLimiter = (limit: number, state = { live: false }) =>
  memorySharedLimiter(limit, 'review-key', state).limiter;

describe('one customer’s Redeems at once (finding 1)', () => {
  it('reads at most CUSTOMER_REDEEM_READS times, however many presses come at once', async () => {
    const { reader: storefront, account, calls } = reader(createRateLimiter({ limit: 1000, windowMs: 60_000 }));
    // Mallory's script sends 20 presses at once (a reward her points might cover, so the kept balance never answers).
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        storefront.pointsToRedeem(account, MALLORY, { platform: 'testshop', shop: 'acme', needed: 100 }),
      ),
    );
    // They share one read anew (each then takes its own reservation on it, by compare-and-set).
    expect(answers.every((answer) => answer.ok === true)).toBe(true);
    expect(calls.length).toBe(1);
  });

  it('counts every read of a burst: presses after it still stop at CUSTOMER_REDEEM_READS', async () => {
    const { reader: storefront, account, calls } = reader(createRateLimiter({ limit: 1000, windowMs: 60_000 }));
    await Promise.all(
      Array.from({ length: 3 }, () =>
        storefront.pointsToRedeem(account, MALLORY, { platform: 'testshop', shop: 'acme', needed: 100 }),
      ),
    );
    // Three reads were made; the count (a lost update) says one. Presses one at a time now:
    for (let press = 0; press < 10; press++)
      await storefront.pointsToRedeem(account, MALLORY, { platform: 'testshop', shop: 'acme', needed: 100 });
    expect(calls.length).toBe(CUSTOMER_REDEEM_READS);
  });
});

describe('refused redemption takes on a limiter every instance shares (finding 2)', () => {
  const LIMIT = 200;
  const effective = planRateLimit(LIMIT, 60_000, 2, 250).effectiveLimit;
  const shareRoom = Math.floor(effective * SHARE);
  // Page views' part of the share (the rest is the redemptions').
  const viewRoom = Math.floor(effective * SHARE * (1 - REDEEM_PART));
  const half = Math.floor(viewRoom / 2);

  it('leaves page views their part of the share when one customer keeps pressing Redeem', async () => {
    const { reader: storefront, account } = reader(sharedLimiter(LIMIT));
    expect(half).toBeGreaterThan(0);
    // Other customers' page views use half their part, as a busy store's do.
    for (let customer = 0; customer < half; customer++)
      expect(
        await storefront.points(account, { email: `v${customer}@example.com` }, { platform: 'testshop', shop: 'acme' }),
      ).toMatchObject({ ok: true });
    // Mallory presses Redeem 50 times for a reward her points might cover: each press would read anew, and a
    // refused take counts in the shared window; her own count stops her after CUSTOMER_REDEEM_READS.
    let granted = 0;
    for (let press = 0; press < 50; press++)
      if (
        (await storefront.pointsToRedeem(account, MALLORY, { platform: 'testshop', shop: 'acme', needed: 100 })).ok ===
        true
      )
        granted++;
    expect(granted).toBeLessThanOrEqual(CUSTOMER_REDEEM_READS);
    // Page views keep the rest of their part: none of her presses, granted or refused, came out of it.
    let viewed = 0;
    for (let customer = 0; customer < shareRoom; customer++)
      if (
        (
          await storefront.points(
            account,
            { email: `w${customer}@example.com` },
            { platform: 'testshop', shop: 'acme' },
          )
        ).ok
      )
        viewed++;
    expect(viewed).toBe(viewRoom - half);
  });

  it('gives page views what the one-instance count gives them after a shop full of forged clicks', async () => {
    // The test of storefront-redeem-reads.test.ts ("page views keep the rest of the share"), on a shared limiter.
    const { reader: storefront, account } = reader(sharedLimiter(LIMIT));
    for (let customer = 0; customer < shareRoom + 5; customer++)
      await storefront.pointsToRedeem(
        account,
        { email: `r${customer}@example.com` },
        { platform: 'testshop', shop: 'acme', needed: 100 },
      );
    let viewed = 0;
    for (let customer = 0; customer < shareRoom; customer++)
      if (
        (
          await storefront.points(
            account,
            { email: `v${customer}@example.com` },
            { platform: 'testshop', shop: 'acme' },
          )
        ).ok
      )
        viewed++;
    expect(viewed).toBe(viewRoom);
  });
});

describe('a redemption’s place on a limiter every instance shares (finding 3)', () => {
  const LIMIT = 200;
  const effective = planRateLimit(LIMIT, 60_000, 2, 250).effectiveLimit;
  const redeemRoom = Math.floor(effective * SHARE * REDEEM_PART);

  it('takes a redemption’s read beside live orders waiting on another instance', async () => {
    const state = { live: true };
    const { reader: storefront, account, calls } = reader(sharedLimiter(LIMIT, state));
    // On one instance (storefront-redeem-reads.test.ts) this is read; here it is told to try again.
    expect(
      await storefront.pointsToRedeem(account, ADA, { platform: 'testshop', shop: 'acme', needed: 100 }),
    ).toMatchObject({ ok: true });
    expect(calls).toHaveLength(1);
  }, 10_000);

  it('keeps the redemptions’ part for them once page views used half the share', async () => {
    const { reader: storefront, account } = reader(sharedLimiter(LIMIT));
    for (let customer = 0; customer < redeemRoom; customer++)
      await storefront.points(account, { email: `v${customer}@example.com` }, { platform: 'testshop', shop: 'acme' });
    // No redemption read yet in the window: on one instance this is read (its part counts redemptions only).
    expect(
      await storefront.pointsToRedeem(account, ADA, { platform: 'testshop', shop: 'acme', needed: 100 }),
    ).toMatchObject({ ok: true });
  });
});

describe('a kept balance reaching the reservation (finding 4)', () => {
  const reward: Reward = {
    id: 'five-off',
    points: 100,
    benefit: { kind: 'amount_off' as const, amount: '5.00' },
    minimumOrder: null,
    expiresInDays: 30,
    combines: false,
    on: true,
  };

  it('never issues a code on a kept balance: kept figures only refuse', async () => {
    let now = Date.parse('2026-05-01T10:00:00Z');
    // The service: Ada has 100 approved points, none redeemed; one code of hers holds all 100.
    const figures = { balance: { approved: 100, redeemed: 0, pending: 0 }, earned: [], redeemed: [] };
    const records = new Map<string, unknown>();
    const id = (kind: RecordType<unknown>, key: string) => `${kind.kind}\u0000${key}`;
    const holder = holderId('acct', ADA);
    const held: Holder = {
      account: 'acct',
      customer: ADA,
      reservations: [
        {
          id: 'r0',
          platform: 'testshop',
          shop: 'shop-1',
          customerId: 'c-ada',
          rewardId: 'five-off',
          points: 100,
          benefit: { kind: 'amount_off' as const, amount: '5.00' },
          code: 'LB-OLDCODEOLDCODE00',
          state: 'issued',
          expiresAt: new Date(now + 60_000).toISOString(),
          createdAt: new Date(now - 86_400_000).toISOString(),
        },
      ],
    };
    records.set(id(HOLDER_KIND, holder), held);
    /** Something on the ledger between the refusal's read and the reservation's write (another request, the sweeper). */
    let meanwhile: (() => void) | undefined;
    const store = {
      getRecord: async <T>(kind: RecordType<T>, key: string) =>
        structuredClone(records.get(id(kind, key))) as T | undefined,
      addRecord: async (kind: RecordType<unknown>, key: string, value: unknown) => {
        records.set(id(kind, key), value);
        if (kind.kind === CODE_KIND.kind) meanwhile?.();
      },
      deleteRecord: async (kind: RecordType<unknown>, key: string) => void records.delete(id(kind, key)),
      // No orders: the customer's holder is theirs alone (customer-holders.ts).
      customerOrders: async () => [],
      changeRecord: async <T>(kind: RecordType<T>, key: string, change: (current: T | undefined) => unknown) => {
        const answer = change(structuredClone(records.get(id(kind, key))) as T | undefined) as { put: T } | undefined;
        if (answer && 'put' in answer) records.set(id(kind, key), answer.put);
        return { changed: Boolean(answer), value: records.get(id(kind, key)) as T | undefined };
      },
    };
    const limiter = createRateLimiter({ limit: 1000, windowMs: 60_000 });
    const account = {
      id: 'acct',
      pool: alone('acct'),
      client: {
        limiter,
        transactions: async () => ({ ok: true, data: structuredClone(figures), message: 'Success', attempts: 1 }),
      },
      policy: { pendingDays: 14 },
      reserveCall: () => limiter.reserve(),
    } as unknown as AccountRuntime;
    const holderOf = async (customer: ServiceCustomer) =>
      records.get(id(HOLDER_KIND, holderId('acct', customer))) as Holder | undefined;
    const storefront = new StorefrontReader({
      accounts: { forShop: async () => 'acct', runtime: async () => account },
      store: { customerOrders: async () => [] },
      liveFirst: () => false,
      share: SHARE,
      held: async (_account, customer, source, readStartedAt) =>
        heldPoints(await holderOf(customer), readStartedAt, source),
      logger,
      now: () => now,
    });
    const made: string[] = [];
    const codes = {
      make: async (request: { code: string }) => (made.push(request.code), { kind: 'made', platformId: request.code }),
      find: async () => undefined,
      remove: async () => undefined,
      uses: async () => 0,
    } as unknown as StoreCodes;
    const rewardCodes = new RewardCodes({
      store: store as never,
      codesOf: () => codes,
      reader: storefront,
      logger,
      now: () => new Date(now),
    });

    // Ada's page shows her balance: 100 approved, 100 held, 0 available (kept, fresh for 30 s).
    expect(await storefront.points(account, ADA, { platform: 'testshop', shop: 'acme' })).toMatchObject({
      ok: true,
      points: { balance: { available: 0 } },
    });
    // Outside the bridge, her 100 points are spent (the merchant's hand on the service's own dashboard, or another
    // bridge of the account): a read anew would say 0 approved less redeemed.
    figures.balance.redeemed = 100;
    now += 5_000;
    // She presses Redeem; while her press is between the kept balance's refusal and the reservation's write, her
    // old code is let go (its expiry, the sweeper, her erasure of a code, ...).
    meanwhile = () => {
      const current = records.get(id(HOLDER_KIND, holder)) as Holder;
      records.set(id(HOLDER_KIND, holder), {
        ...current,
        reservations: current.reservations.map((each) =>
          each.id === 'r0' ? { ...each, state: 'released', endedAt: new Date(now).toISOString() } : each,
        ),
      });
      meanwhile = undefined;
    };
    const answer = await rewardCodes.redeem({
      platform: 'testshop',
      shop: 'shop-1',
      customerId: 'c-ada',
      account,
      customer: ADA,
      reward,
    });
    // A read anew says 0 available: she must be told she is short, and no code made.
    expect(made).toEqual([]);
    expect(answer.kind).toBe('short');
  });
});

describe('a small share (finding 5)', () => {
  it('still reads for a redemption where the share gives page views a read but half of it gives none', async () => {
    // 10 calls a minute (8 effective): the default share gives the storefront 1 read a minute, REDEEM_PART 0.
    const { reader: storefront, account, calls } = reader(createRateLimiter({ limit: 10, windowMs: 60_000 }));
    // An idle window: nothing else has read. Ada presses Redeem once and is told to try again, every minute.
    expect(
      await storefront.pointsToRedeem(account, ADA, { platform: 'testshop', shop: 'acme', needed: 100 }),
    ).toMatchObject({ ok: true });
    expect(calls).toHaveLength(1);
  });

  it('still reads for a redemption with STOREFRONT_SHARE 0 (page views off to spare the limit)', async () => {
    const { reader: storefront, account } = reader(createRateLimiter({ limit: 1000, windowMs: 60_000 }), 0);
    expect(
      await storefront.pointsToRedeem(account, ADA, { platform: 'testshop', shop: 'acme', needed: 100 }),
    ).toMatchObject({ ok: true });
  });
});
