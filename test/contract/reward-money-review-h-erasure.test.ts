// Review H of issue 64: a customer's export and erasure against their reward codes (reward-privacy.ts). The export
// shows each reservation as the customer would read it, without the orders of others that used or were placed with
// the code; and an erasure that meets a code whose order's redeem is still on its way leaves that redeem to go, once,
// then forgets the customer (docs/storefront.md, Endings and privacy).
import { describe, expect, it } from 'vitest';
import { HOLDER_KIND } from '../../src/core/storefront/reservations.ts';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import {
  BIG,
  PLATFORM,
  SHOP,
  privacyOf,
  rewardWorld,
  type RewardWorld,
  customerWithCode as withCode,
} from '../helpers/reward-world.ts';

const world = sandboxWithEngines();

let next = 0;
const orderId = () => String(64_990_000 + ++next);
const keyOf = (order: string) => `${PLATFORM}:${SHOP}:${order}`;

const customerWithCode = (w: RewardWorld, earned: number) =>
  withCode(world, w, { earned, orderId, prefix: 'review-h' });

describe.each(ledgerBackends())(
  'a customer’s export and erasure of their reward codes, review H (%s)',
  (_n, runs, open) => {
    it.runIf(runs)(
      'H1: the export shows the customer’s code and none of the orders others placed with it',
      async () => {
        const w = await rewardWorld(world, await open(), { rewards: [BIG] });
        const { email, code } = await customerWithCode(w, 300);
        // Someone else places an order with the code, not paid yet (a bank transfer): the code's points wait for it.
        w.store.use(w.store.usable(code, `customer-${email}`, w.clock.now)!);
        const order = orderId();
        await w.pay(order, [code], { facts: ['placed'] });
        await w.settle();
        expect((await w.reservations(email))[0]?.placedBy).toEqual([keyOf(order)]);
        const exported = (await privacyOf(w).exportCustomer({ emails: [email], phones: [], orderIds: [] })) as {
          reservations: Array<Record<string, unknown>>;
        };
        const text = JSON.stringify(exported);
        expect(text).not.toContain(order);
        expect(text).not.toContain(`payer-${order}`);
        expect(exported.reservations).toEqual([
          {
            ...{ account: w.account.id, platform: PLATFORM, shop: SHOP, customerId: `customer-${email}`, code },
            ...{ points: 200, benefit: { kind: 'amount_off', amount: '5.00' }, amountOff: '5.00' },
            ...{ state: 'issued', meaning: expect.stringContaining('can be used') },
            ...{ createdAt: expect.any(String), expiresAt: expect.any(String) },
          },
        ]);
      },
    );

    it.runIf(runs)(
      'H2: a customer erased before their used code’s redeem went is redeemed once, then forgotten',
      async () => {
        const w = await rewardWorld(world, await open(), { rewards: [BIG] });
        w.engine.privacy.kept.add(privacyOf(w));
        const { email, code } = await customerWithCode(w, 300);
        // The customer pays with the code; the service refuses to serve the redeem for now (429: certainly not applied).
        w.store.use(w.store.usable(code, `customer-${email}`, w.clock.now)!);
        world.sandbox.faults.configure({
          failureRate: 1,
          failurePhase: 'before',
          onlyPath: '/redeem',
          failureStatus: 429,
        });
        const order = orderId();
        await w.pay(order, [code], { customer: { name: 'Ada', email, mobile: null } });
        await w.settle();
        expect((await w.reservations(email)).map((each) => each.state)).toEqual(['used']);
        expect(w.redeems(email)).toEqual([]);
        // Erased everywhere while the redeem waits.
        await w.engine.privacy.eraseCustomer({ emails: [email], phones: [], orderIds: [] }, 'admin');
        world.sandbox.faults.configure({});
        await eventually(() => expect(w.redeems(email)).toEqual([200]), 15_000);
        await w.settle();
        await new Promise((resolve) => setTimeout(resolve, 500));
        await w.settle();
        // Taken once; the discount was paid for.
        expect(w.redeems(email)).toEqual([200]);
        expect(world.sandbox.store.balance({ name: '', email, mobile: '' }).available).toBe(100);
        expect(await w.ledger.listDeadLetters()).toEqual([]);
        // Nothing of the customer is left: no holder names them, no order carries their contact.
        const holders = await w.ledger.listRecords(HOLDER_KIND);
        expect(JSON.stringify(holders)).not.toContain(email);
        expect(JSON.stringify(await w.ledger.getOrder(keyOf(order)))).not.toContain(email);
        const left = await w.engine.privacy.exportCustomer({ emails: [email], phones: [], orderIds: [] });
        expect(JSON.stringify(left)).not.toContain(email);
        expect((left as { kept?: { rewards: { reservations: unknown[] } } }).kept?.rewards.reservations).toEqual([]);
      },
    );
  },
);
