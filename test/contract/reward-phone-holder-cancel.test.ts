// A customer whose storefront account has a phone and no e-mail (Shopify's sign-in by text message) holds their
// codes under the phone (serviceCustomer), while their orders carry an e-mail beside it, and the service finds them
// by either. When the orders that earned the points are cancelled, the worker marked and checked the e-mail's
// holder alone: the code held under the phone stayed usable on points taken away, at the merchant's cost. Since
// review H of issue 64 such a phone is refused a redeem (an order paired it with an e-mail anyone could have typed):
// the code here is one an earlier release made under the phone, which the checks still withdraw.
// On both ledger backends, a real engine and worker on the sandbox (test/helpers/reward-world.ts).
import { describe, expect, it } from 'vitest';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { codeHeld } from '../helpers/held-codes.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { BIG, mobileOf, rewardWorld } from '../helpers/reward-world.ts';

const world = sandboxWithEngines();

let next = 0;
const orderId = () => String(68_000_000 + ++next);

describe.each(ledgerBackends())('a code held under a phone, its earnings cancelled (%s)', (_name, runs, open) => {
  it.runIf(runs)('is withdrawn once the orders that earned its points are cancelled', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const email = `phone-holder-${++next}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const mobile = mobileOf(email);
    const orderIds = [orderId(), orderId()];
    for (const id of orderIds) await w.earn(email, id);
    await w.settle();
    await eventually(() => expect(world.sandbox.store.balance({ name: '', email, mobile }).approved).toBe(200));
    // Signed in by phone, the storefront knowing the phone alone, before such a phone was refused a redeem.
    const customerId = `customer-phone-${next}`;
    const code = await codeHeld(w, { mobile }, customerId);
    // Both orders refunded in full: their 200 points are cancelled at the service.
    for (const id of orderIds)
      await w.engine.accept(`refund-${id}`, [
        orderEvent({
          orderId: id,
          facts: ['placed', 'paid', 'fulfilled', 'cancelled'],
          customer: { name: 'Ada', email, mobile },
        }),
      ]);
    await w.settle();
    await eventually(() => expect(world.sandbox.store.balance({ name: '', email, mobile }).approved).toBe(0));
    await w.settle();
    // The code pays for nothing now: its points were taken away.
    await eventually(() => expect(w.store.usable(code, customerId, w.clock.now)).toBeUndefined());
  });
});
