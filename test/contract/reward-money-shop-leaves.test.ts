// A shop that leaves: its app uninstalled, then its data erased (Shopify's shop/redact comes 48 hours after). Neither
// can remove the shop's open codes (the bridge's access is gone), and each pays in the store until its expiry. Issue
// 64: the uninstall let their points go, and the erasure forgot them, so the customer could spend them again in
// another shop of the account while the code still paid. Now they stay held until the code has expired and settled.
import { describe, expect, it } from 'vitest';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import {
  BIG,
  DAY_MS,
  PLATFORM,
  SETTLE_MS,
  SHOP,
  privacyOf,
  rewardWorld,
  type RewardWorld,
} from '../helpers/reward-world.ts';

const world = sandboxWithEngines();
const OTHER_SHOP = 'shop-2';

let next = 0;
const orderId = () => String(64_980_000 + ++next);

/** A customer with 300 approved points and a code of 200 made in SHOP. */
async function customerWithCode(w: RewardWorld): Promise<string> {
  const email = `leaves-${++next}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  for (let i = 0; i < 3; i++) await w.earn(email, orderId());
  await w.settle();
  await eventually(() => expect(world.sandbox.store.balance({ name: '', email, mobile: '' }).approved).toBe(300));
  expect((await w.redeem(email, BIG)).kind).toBe('issued');
  return email;
}

/** The same customer asks for the reward in another shop of the account. */
const redeemElsewhere = (w: RewardWorld, email: string) =>
  w.codes.redeem({
    ...{ platform: PLATFORM, shop: OTHER_SHOP, customerId: `other-${email}` },
    ...{ account: w.account, customer: { email }, reward: BIG },
  });

describe.each(ledgerBackends())('a shop that leaves, with a code open (%s)', (_name, runs, open) => {
  it.runIf(runs)('keeps the code’s points held after the uninstall, until the code has expired', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const email = await customerWithCode(w);
    await privacyOf(w).shopUninstalled(PLATFORM, SHOP);
    // 300 points, 200 held by a code that still pays in the uninstalled store: no second code of 200.
    expect((await redeemElsewhere(w, email)).kind).toBe('short');
    // Expired and settled, and never used: its points are the customer's again.
    w.clock.now += 7 * DAY_MS + SETTLE_MS + 1_000;
    await w.sweeper.sweep();
    expect((await redeemElsewhere(w, email)).kind).toBe('issued');
  });

  it.runIf(runs)('keeps the points of its open code held after the shop’s erasure, by amount alone', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const email = await customerWithCode(w);
    await privacyOf(w).eraseShop(PLATFORM, SHOP);
    // Nothing of the erased shop is kept (its code, its customer's id), yet its 200 points stay held.
    expect(await w.reservations(email)).toEqual([]);
    expect((await redeemElsewhere(w, email)).kind).toBe('short');
    w.clock.now += 7 * DAY_MS + SETTLE_MS + 1_000;
    expect((await redeemElsewhere(w, email)).kind).toBe('issued');
  });
});
