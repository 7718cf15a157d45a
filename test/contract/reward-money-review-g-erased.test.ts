// Review G of issue 64: reward money around erasures (reward-privacy.ts, erased-codes.ts, erased-holds.ts). A used
// code's redeem in doubt or unsent when its shop is erased, a customer's erasure in another shop, the customer's
// export of what is kept of them by amount, and a customer erased while their code still pays in an uninstalled store.
import { describe, expect, it } from 'vitest';
import { ORPHAN_KIND } from '../../src/core/storefront/orphan-codes.ts';
import { HOLDER_KIND, holderId } from '../../src/core/storefront/reservations.ts';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import {
  BIG,
  DAY_MS,
  PLATFORM,
  SETTLE_MS,
  SHOP,
  rewardWorld,
  type RewardWorld,
  customerWithCode as withCode,
  privacyOf,
} from '../helpers/reward-world.ts';
import { raw } from '../helpers/raw-records.ts';

const world = sandboxWithEngines();
const OTHER_SHOP = 'shop-2';

let next = 0;
const orderId = () => String(64_980_000 + ++next);

const customerWithCode = (w: RewardWorld, earned: number) =>
  withCode(world, w, { earned, orderId, prefix: 'review-g' });

/** An order paid with the code while the service's redeem fails with `status` (done after `phase`). */
async function paidWhileFailing(
  w: RewardWorld,
  email: string,
  code: string,
  status: number,
  phase: 'before' | 'after',
) {
  w.store.use(w.store.usable(code, `customer-${email}`, w.clock.now)!);
  world.sandbox.faults.configure({ failureRate: 1, failurePhase: phase, onlyPath: '/redeem', failureStatus: status });
  const order = orderId();
  await w.pay(order, [code]);
  await w.settle();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await w.settle();
  world.sandbox.faults.configure({});
  expect((await w.reservations(email)).map((each) => each.state)).toEqual(['used']);
  return order;
}

/** Uninstalled, then the shop's data erased (shop/redact): the kept records first, then the ledger's. */
async function shopErased(w: RewardWorld): Promise<void> {
  await privacyOf(w).shopUninstalled(PLATFORM, SHOP);
  await privacyOf(w).eraseShop(PLATFORM, SHOP);
  await w.ledger.eraseShop(PLATFORM, SHOP);
}

/** The customer asks another shop of the account for the same reward: what the points left allow. */
const redeemElsewhere = (w: RewardWorld, email: string) =>
  w.codes.redeem({
    ...{ platform: PLATFORM, shop: OTHER_SHOP, customerId: `other-${email}` },
    ...{ account: w.account, customer: { email }, reward: BIG },
  });

describe.each(ledgerBackends())('reward money around erasures, review G (%s)', (_name, runs, open) => {
  it.runIf(runs)('G1: redeems once when a redeem in doubt outlives its shop and its order comes again', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const { email, code } = await customerWithCode(w, 500);
    // The service takes the 200 points, and its answer is lost: a dead letter asks a person to check.
    const order = await paidWhileFailing(w, email, code, 500, 'after');
    expect(w.redeems(email)).toEqual([200]);
    await shopErased(w);
    // Reinstalled: the store's orders come again, this one with its code.
    await w.pay(order, [code]);
    await w.settle();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await w.settle();
    expect(w.redeems(email)).toEqual([200]);
    expect(await w.reservations(email)).toEqual([]);
  });

  it.runIf(runs)('G4: keeps a used code’s points held for good when its redeem had not gone', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const { email, code } = await customerWithCode(w, 300);
    // The service fails before it acts, saying nothing certain: the redeem is in doubt, not sent again.
    await paidWhileFailing(w, email, code, 503, 'before');
    expect(w.redeems(email)).toEqual([]);
    await shopErased(w);
    // Long after the code expired and settled, the order's discount stays given: its 200 points are not hers again.
    w.clock.now += 7 * DAY_MS + SETTLE_MS + 1_000;
    await w.sweeper.sweep();
    expect((await redeemElsewhere(w, email)).kind).toBe('short');
  });

  it.runIf(runs)('G4: sends a redeem never sent when its order comes again after a reinstall, once', async () => {
    // The order's next try a minute away: the erasure takes it before it goes (G6 has a try between the two steps).
    const w = await rewardWorld(world, await open(), { rewards: [BIG], retryMs: 60_000 });
    const { email, code } = await customerWithCode(w, 300);
    // The service refuses to serve (429): certainly not applied, the redeem waits to be sent again.
    const order = await paidWhileFailing(w, email, code, 429, 'before');
    expect(w.redeems(email)).toEqual([]);
    await shopErased(w);
    w.clock.now += DAY_MS;
    await w.pay(order, [code]);
    await w.pay(order, [code]);
    await w.settle();
    await eventually(() => expect(w.redeems(email)).toEqual([200]));
    // Redeemed: held no more by amount, and counted once.
    const holder = await w.ledger.getRecord(HOLDER_KIND, holderId(w.account.id, { email }));
    expect(holder?.erasedShopHolds).toBeUndefined();
    expect((await redeemElsewhere(w, email)).kind).toBe('short');
  });

  it.runIf(runs)('G6: names no erased shop when an order took its code back during the erasure', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const { email, code } = await customerWithCode(w, 300);
    const orderKey = `${PLATFORM}:${SHOP}:${orderId()}`;
    w.engine.privacy.kept.add(privacyOf(w));
    // A worker's step for one of the shop's orders, under way, takes the code back after the kept records went and
    // before the ledger's (an erased code revived for its order); the ledger then erases that order.
    const ledgerErase = w.ledger.eraseShop.bind(w.ledger);
    w.ledger.eraseShop = async (...args) => {
      expect(await w.codes.claimForOrder(PLATFORM, SHOP, code, orderKey)).toMatchObject({ points: 200 });
      return ledgerErase(...args);
    };
    await w.engine.privacy.eraseShop(PLATFORM, SHOP, 'admin');
    const holder = await w.ledger.getRecord(HOLDER_KIND, holderId(w.account.id, { email }));
    expect(holder?.reservations).toEqual([]);
    expect(JSON.stringify(holder)).not.toContain(SHOP);
    // Its order is gone, its redeem may have gone with the step: its 200 points stay held, long after the code.
    w.clock.now += 30 * DAY_MS;
    await w.sweeper.sweep();
    expect((await redeemElsewhere(w, email)).kind).toBe('short');
  });

  it.runIf(runs)(
    'G3: an erasure asked in another shop leaves an erased shop’s code to redeem after a reinstall',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const { email, code } = await customerWithCode(w, 300);
      await shopErased(w);
      // The customer asks another shop of the account to erase them (its customers/redact).
      await privacyOf(w).eraseCustomer({
        platform: PLATFORM,
        shop: OTHER_SHOP,
        emails: [email],
        phones: [],
        orderIds: [],
      });
      expect(await w.ledger.listRecords(raw('reward-erased-code'))).toHaveLength(1);
      // The erased shop reinstalls; an order pays there with the still-live code: its 200 points are redeemed, once.
      w.store.use(w.store.usable(code, `customer-${email}`, w.clock.now)!);
      await w.pay(orderId(), [code]);
      await w.settle();
      await eventually(() => expect(w.redeems(email)).toEqual([200]));
      // Asked in the erased shop itself (reinstalled), or with no shop, its codes go.
      const other = await customerWithCode(w, 300);
      await shopErased(w);
      await privacyOf(w).eraseCustomer({
        platform: PLATFORM,
        shop: SHOP,
        emails: [other.email],
        phones: [],
        orderIds: [],
      });
      expect(await w.ledger.listRecords(raw('reward-erased-code'))).toEqual([]);
    },
  );

  it.runIf(runs)('G2: exports what is kept of the customer by amount once a shop was erased', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const { email, code } = await customerWithCode(w, 300);
    const until = new Date(w.clock.now + 7 * DAY_MS + SETTLE_MS).toISOString();
    await shopErased(w);
    const exported = (await privacyOf(w).exportCustomer({ emails: [email], phones: [], orderIds: [] })) as Record<
      string,
      unknown
    >;
    expect(exported.kept).toEqual([
      { account: w.account.id, heldByAmount: [{ points: 200, until: expect.any(String) }], redeemedEarlier: 0 },
    ]);
    expect(exported.erasedShopCodes).toEqual([{ points: 200, until: expect.any(String), state: 'issued' }]);
    expect(Date.parse((exported.erasedShopCodes as Array<{ until: string }>)[0]!.until)).toBeGreaterThanOrEqual(
      Date.parse(until) - 60_000,
    );
    // Nothing of the erased shop, its code or its orders.
    expect(JSON.stringify(exported)).not.toContain(code);
    expect(JSON.stringify(exported)).not.toContain(SHOP);
    // Another customer's export shows none of it.
    const other = await privacyOf(w).exportCustomer({ emails: ['someone-else@example.com'], phones: [], orderIds: [] });
    expect(other).toEqual({ reservations: [], kept: [], erasedShopCodes: [] });
  });

  it.runIf(runs)(
    'G5: an erased customer’s code that still pays in an uninstalled store keeps its points held',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const { email, code } = await customerWithCode(w, 300);
      // Uninstalled: the store no longer lets the bridge in, and the code pays until its expiry.
      w.serving.on = false;
      w.store.accessGone = true;
      await privacyOf(w).shopUninstalled(PLATFORM, SHOP);
      // The customer is erased everywhere.
      await privacyOf(w).eraseCustomer({ emails: [email], phones: [], orderIds: [] });
      expect(w.store.usable(code, `customer-${email}`, w.clock.now)).toBeDefined();
      // Nothing names them: the holder keeps its account and the points by amount alone.
      const holder = await w.ledger.getRecord(HOLDER_KIND, holderId(w.account.id, { email }));
      expect(holder).toEqual({ account: w.account.id, reservations: [], erasedShopHolds: [expect.anything()] });
      expect(JSON.stringify(holder)).not.toContain(email);
      // While the code pays, its 200 points are not theirs to spend again elsewhere.
      expect((await redeemElsewhere(w, email)).kind).toBe('short');
      // The store lets the bridge in again (a reinstall): the sweeper removes the code, kept for it.
      expect(await w.ledger.listRecords(ORPHAN_KIND)).toHaveLength(1);
      w.serving.on = true;
      w.store.accessGone = false;
      await w.sweeper.sweep();
      expect(w.store.usable(code, `customer-${email}`, w.clock.now)).toBeUndefined();
      expect(await w.ledger.listRecords(ORPHAN_KIND)).toEqual([]);
      // Once the code has expired and settled, the hold lapses.
      w.clock.now += 7 * DAY_MS + SETTLE_MS + 1_000;
      expect((await redeemElsewhere(w, email)).kind).toBe('issued');
    },
  );
});
