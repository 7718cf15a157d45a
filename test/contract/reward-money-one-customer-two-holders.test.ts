// One customer at the service, reached by two identifiers: their e-mail, and their phone (the service finds a customer
// by either, as the bridge's earns send both). A storefront names them by the e-mail where the platform's record has
// one, else by the phone (serviceCustomer): a customer whose record has no e-mail in one shop of the account (or had
// none when they first redeemed) holds codes under the phone, and under the e-mail in another. Points taken from the
// customer, by an earning's cancel or by hand, leave the codes under either identifier uncovered alike; and a redeem
// under one identifier must count the points held under the other.
import { describe, expect, it } from 'vitest';
import { holderId } from '../../src/core/storefront/reservations.ts';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { codeHeld } from '../helpers/held-codes.ts';
import { BIG, PLATFORM, SHOP, mobileOf, refunded, rewardWorld, type RewardWorld } from '../helpers/reward-world.ts';

const world = sandboxWithEngines();

let next = 0;
const orderId = () => String(64_640_000 + ++next);

/** A customer with `orders` fulfilled orders' approved points, each order carrying their e-mail and phone. */
async function customerWith(w: RewardWorld, orders: number): Promise<{ email: string; orderIds: string[] }> {
  const email = `two-holders-${++next}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const orderIds = Array.from({ length: orders }, orderId);
  for (const id of orderIds) await w.earn(email, id);
  await w.settle();
  await eventually(() =>
    expect(world.sandbox.store.balance({ name: '', email, mobile: '' }).approved).toBe(orders * 100),
  );
  return { email, orderIds };
}

/** The customer asks for a reward in a shop whose record of them has their phone and no e-mail. */
const redeemByPhone = (w: RewardWorld, email: string, customerId: string) =>
  w.codes.redeem({
    platform: PLATFORM,
    shop: SHOP,
    customerId,
    account: w.account,
    customer: { mobile: mobileOf(email) },
    reward: BIG,
  });

/**
 * A code of 200 points reserved by phone before a phone's reservations went under the e-mail last earned with it (a
 * release before issue 64's fix): made in the store, its reservation under the phone's own holder.
 */
async function codeHeldByPhone(w: RewardWorld, email: string, customerId: string): Promise<string> {
  return codeHeld(w, { mobile: mobileOf(email) }, customerId);
}

describe.each(ledgerBackends())('one customer named by e-mail and by phone (%s)', (_name, runs, open) => {
  // Issue 64: each reservation counted only what was held under its own identifier, so one customer's points were
  // spent twice under two. A phone's reservations then went under the holder of the e-mail last earned with it; since
  // review H (anyone may type an e-mail beside their phone at a guest checkout) a phone an order paired with an
  // e-mail is refused (needs-email), and a redeem by e-mail counts what the phone's holder holds from before.
  it.runIf(runs)('issues no more codes than their points cover, whichever identifier each redeem names', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const { email } = await customerWith(w, 3);
    expect((await w.redeem(email, BIG)).kind).toBe('issued');
    // The same customer in another shop of the account, whose record there has their phone and no e-mail.
    const byPhone = await redeemByPhone(w, email, 'phone-only-7');
    // 300 points cover one code of 200: a second would pay an order whose redeem the service refuses.
    expect(byPhone.kind).not.toBe('issued');
    expect(w.store.live()).toHaveLength(1);
  });

  it.runIf(runs)('issues one code of two asked at the same moment by e-mail and by phone', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const { email } = await customerWith(w, 3);
    // Both reads say 300; the two reservations meet at the one holder's compare-and-set, and the second sees the first.
    const answers = await Promise.all([w.redeem(email, BIG), redeemByPhone(w, email, 'phone-only-11')]);
    expect(answers.filter((each) => each.kind === 'issued')).toHaveLength(1);
    expect(w.store.live()).toHaveLength(1);
  });

  it.runIf(runs)("shows them by phone what their e-mail's codes hold, as the service reads them by it", async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const { email } = await customerWith(w, 3);
    expect((await w.redeem(email, BIG)).kind).toBe('issued');
    // The page by phone: the service answers the e-mail's 300 points, less the 200 that code holds.
    const now = w.clock.now;
    expect(await w.codes.held(w.account.id, { mobile: mobileOf(email) }, 'service', now)).toBe(200);
  });

  it.runIf(runs)(
    'counts the codes held under their phone from before, and lists each only to the customer it was made for',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const { email } = await customerWith(w, 5);
      const mobile = mobileOf(email);
      const old = await codeHeldByPhone(w, email, 'phone-only-10');
      const byEmail = await w.redeem(email, BIG);
      expect(byEmail.kind).toBe('issued');
      // 500 points less 400 held: a third code of 200 would pay an order whose redeem the service refuses. By phone,
      // which an order paired with the e-mail, nothing is read or spent (review H).
      expect((await w.redeem(email, BIG)).kind).toBe('short');
      expect((await redeemByPhone(w, email, 'phone-only-10')).kind).toBe('needs-email');
      expect(w.store.live()).toHaveLength(2);
      // Each sees their own code alone: the customer known there by phone, and the one known by e-mail.
      const listed = (customer: { email: string } | { mobile: string }, id: string) =>
        w.codes.openCodes(w.account.id, customer, PLATFORM, SHOP, id).then((codes) => codes.map((each) => each.code));
      expect(await listed({ mobile }, 'phone-only-10')).toEqual([old]);
      expect(await listed({ email }, `customer-${email}`)).toEqual([(byEmail as { code: string }).code]);
    },
  );

  it.runIf(runs)(
    "withdraws what their e-mail's and their phone's codes hold beyond their points once orders are cancelled",
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 5);
      await codeHeldByPhone(w, ada.email, 'phone-only-12');
      expect((await w.redeem(ada.email, BIG)).kind).toBe('issued');
      // 500 points, 400 held by the two codes; two orders refunded leave 300, which covers one code alone.
      await refunded(w, ada.email, ada.orderIds.slice(0, 2));
      await eventually(() =>
        expect(world.sandbox.store.balance({ name: '', email: ada.email, mobile: '' }).approved).toBe(300),
      );
      await w.sweeper.sweep();
      expect(w.store.live()).toHaveLength(1);
    },
  );

  // Seen once in CI (stop 78, Node 24): the two cancels' checks, one per holder, ran side by side; each counted the
  // other's code as held and withdrew its own, leaving the customer no code for the 300 points they still had.
  it.runIf(runs)(
    'withdraws one code, not both, when the checks of their two holders run at the same moment',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const { email } = await customerWith(w, 3);
      await codeHeld(w, { mobile: mobileOf(email) }, 'phone-only-13');
      await codeHeld(w, { email }, `customer-${email}`);
      // 300 points, 400 held by the two codes: one of them must go, the other covered.
      const checks = w.engine.worker.coverChecks!;
      const holders = [holderId(w.account.id, { email }), holderId(w.account.id, { mobile: mobileOf(email) })];
      const marks = await Promise.all(
        holders.map((_, at) => checks.cancelling(w.account.id, at ? { mobile: mobileOf(email) } : { email })),
      );
      await Promise.all(holders.map((holder, at) => checks.check(w.account, holder, marks[at])));
      expect(w.store.live()).toHaveLength(1);
      // The one that found the other running left its mark: the sweeper's check finds the customer covered.
      await w.sweeper.sweep();
      expect(w.store.live()).toHaveLength(1);
    },
  );

  it.runIf(runs)(
    'withdraws a code held under their phone once the orders that earned its points are cancelled',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 2);
      const code = await codeHeldByPhone(w, ada.email, 'phone-only-8');
      // Both orders (with her e-mail and phone, as every order of hers) refunded in full: their 200 points cancelled.
      await refunded(w, ada.email, ada.orderIds);
      await eventually(() =>
        expect(world.sandbox.store.balance({ name: '', email: ada.email, mobile: '' }).approved).toBe(0),
      );
      await w.sweeper.sweep();
      // The code would pay an order whose redeem the service refuses, at the merchant's cost.
      expect(w.store.usable(code, 'phone-only-8', w.clock.now)).toBeUndefined();
    },
  );

  it.runIf(runs)(
    'withdraws a code held under their phone once the merchant takes its points back by e-mail',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 2);
      const code = await codeHeldByPhone(w, ada.email, 'phone-only-9');
      // Given in error: the merchant takes 100 back, naming her by the e-mail the service keys her by.
      const taken = await w.engine.adjustments.redeem({ email: ada.email, points: 100, reason: 'in error' }, 'test');
      expect(taken.adjustment.outcome).toBe('success');
      await w.sweeper.sweep();
      // 100 points left cannot cover the code's 200: it would pay an order whose redeem the service refuses.
      expect(w.store.usable(code, 'phone-only-9', w.clock.now)).toBeUndefined();
    },
  );
});
