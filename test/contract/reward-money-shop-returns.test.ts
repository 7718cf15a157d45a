// Review of issue 64's uninstall and shop erasure rules (reward-privacy.ts): a shop that comes back after an uninstall
// (a reinstall: the bridge is let in again), and what is kept of a customer once a shop was erased and its held
// points have expired.
import { describe, expect, it } from 'vitest';
import { HOLDER_KIND, holderId } from '../../src/core/storefront/reservations.ts';
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
import { raw } from '../helpers/raw-records.ts';

const world = sandboxWithEngines();

const OTHER_SHOP = 'shop-2';

let next = 0;
const orderId = () => String(64_970_000 + ++next);

/** A customer with 300 approved points and a code of 200 made in SHOP; answers the e-mail and the code. */
async function customerWithCode(w: RewardWorld): Promise<{ email: string; code: string }> {
  const email = `returns-${++next}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  for (let i = 0; i < 3; i++) await w.earn(email, orderId());
  await w.settle();
  await eventually(() => expect(world.sandbox.store.balance({ name: '', email, mobile: '' }).approved).toBe(300));
  const answer = await w.redeem(email, BIG);
  expect(answer.kind).toBe('issued');
  return { email, code: (answer as { code: string }).code };
}

describe.each(ledgerBackends())('a shop that comes back, or was erased (%s)', (_name, runs, open) => {
  it.runIf(runs)('removes a spent code from the store once the app is reinstalled', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const { email, code } = await customerWithCode(w);
    // An order pays with the code; its 200 points are redeemed. The sweeper has not removed the code yet.
    w.store.use(w.store.usable(code, `customer-${email}`, w.clock.now)!);
    await w.pay(orderId(), [code]);
    await w.settle();
    await eventually(() => expect(w.redeems(email)).toEqual([200]));
    // The app is uninstalled, then installed again: the bridge is let in once more.
    await privacyOf(w).shopUninstalled(PLATFORM, SHOP);
    // The store gives the spent code's use back (its order cancelled in the store, as some stores do): it pays again.
    const spent = [...w.store.byId.values()].find((each) => each.code === code)!;
    spent.uses = 0;
    await w.sweeper.sweep();
    // As without the uninstall, the spent code goes from the store: its points were taken once already.
    expect(w.store.usable(code, `customer-${email}`, w.clock.now)).toBeUndefined();
  });

  it.runIf(runs)(
    'keeps no record naming the customer after their erasure, once an erased shop’s hold has expired',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const { email } = await customerWithCode(w);
      await privacyOf(w).eraseShop(PLATFORM, SHOP);
      // The erased shop's code has expired and settled: its hold counts for nothing now.
      w.clock.now += 7 * DAY_MS + SETTLE_MS + 1_000;
      // The customer asks another shop of the account to erase them.
      await privacyOf(w).eraseCustomer({
        platform: PLATFORM,
        shop: OTHER_SHOP,
        emails: [email],
        phones: [],
        orderIds: [],
      });
      const holder = await w.ledger.getRecord(HOLDER_KIND, holderId(w.account.id, { email }));
      expect(holder?.customer).toBeUndefined();
      // Nor the erased shop's code kept for its holder, whose id names them.
      expect(await w.ledger.listRecords(raw('reward-erased-code'))).toEqual([]);
    },
  );

  it.runIf(runs)(
    'lets go a cancelled order’s hold of a code once the code has expired, after an uninstall',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const { email, code } = await customerWithCode(w);
      // An order paid with the code and was cancelled before its redeem went: the sweeper has not let it go yet.
      w.store.use(w.store.usable(code, `customer-${email}`, w.clock.now)!);
      await w.pay(orderId(), [code], { facts: ['placed', 'cancelled'] });
      await w.settle();
      await eventually(async () => expect((await w.reservations(email))[0]?.state).toBe('used'));
      // The app is uninstalled: the store answers the bridge with a 401 that says nothing of access.
      await privacyOf(w).shopUninstalled(PLATFORM, SHOP);
      w.serving.on = false;
      w.store.parts.uses = () => Promise.reject(new Error('[API] Invalid API key or access token'));
      w.store.parts.remove = () => Promise.reject(new Error('[API] Invalid API key or access token'));
      // Long after the code expired and settled it pays for nothing: its 200 points are the customer's again.
      w.clock.now += 7 * DAY_MS + SETTLE_MS + 1_000;
      await w.sweeper.sweep();
      expect((await w.reservations(email))[0]?.state).not.toBe('used');
    },
  );

  it.runIf(runs)('redeems an erased shop’s code that pays for an order after a reinstall, and removes it', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const { email, code } = await customerWithCode(w);
    // Uninstalled, then the shop's data erased (shop/redact): its reservations are forgotten, its code still pays.
    await privacyOf(w).shopUninstalled(PLATFORM, SHOP);
    await privacyOf(w).eraseShop(PLATFORM, SHOP);
    await w.ledger.eraseShop(PLATFORM, SHOP);
    expect(await w.reservations(email)).toEqual([]);
    // The merchant installs the app again, and an order pays with the code: its 200 points are redeemed, once.
    w.clock.now += DAY_MS;
    w.store.use(w.store.usable(code, `customer-${email}`, w.clock.now)!);
    const order = orderId();
    await w.pay(order, [code]);
    await w.pay(order, [code]);
    await w.settle();
    await eventually(() => expect(w.redeems(email)).toEqual([200]));
    // Spent: removed from the store, and its points held no more than once.
    await w.sweeper.sweep();
    expect([...w.store.byId.values()].find((each) => each.code === code)?.removed).toBe(true);
    const holder = await w.ledger.getRecord(HOLDER_KIND, holderId(w.account.id, { email }));
    expect(holder?.erasedShopHolds).toBeUndefined();
    expect(holder?.reservations.map((each) => each.state)).toEqual(['redeemed']);
  });
});
