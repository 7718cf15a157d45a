// The worker's approval of an order's points and a storefront balance read from the ledger, under every
// interleaving of the service's answer, the order's save, and the read's start and end: the balance kept as fresh
// afterwards counts the points as approved. The worker drops what the
// storefront keeps of the customer after it saves the order (src/core/worker/worker.ts): dropped before, a ledger
// read between the drop and the save kept a balance without the earn for as long as balances are fresh.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccountRuntime } from '../../src/core/accounts.ts';
import type { OrderRecord } from '../../src/core/order-record.ts';
import { StorefrontReader } from '../../src/core/storefront/storefront-reader.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { createLogger } from '../../src/logger.ts';
import type { LoyaltyClient } from '../../src/loyalty/client.ts';
import { clientFor, lowdbFor, sandboxWithEngines } from '../helpers/engine.ts';
import { storeWith } from '../helpers/store-with.ts';
import { orderEvent } from '../helpers/order-events.ts';

const world = sandboxWithEngines();

describe("the worker's drop of a customer's balance", () => {
  it('comes after the order is saved: no balance read in between is kept without the approval', async () => {
    let scheduler: fc.Scheduler | undefined;
    /** Per order, told when it is saved in the state each test waits for. */
    const saved = new Map<string, { state: OrderRecord['upstream']['points']; done: () => void }>();
    const ledger = lowdbFor();
    // The ledger, with the worker's saves and the storefront's reads each at a point the scheduler picks.
    const saveProgress: LedgerStore['saveProgress'] = async (record: OrderRecord, options) => {
      await scheduler?.schedule(Promise.resolve(`save ${record.key}`));
      const result = await ledger.saveProgress(record, options);
      const waiting = saved.get(record.orderId);
      if (waiting?.state === record.upstream.points) waiting.done();
      return result;
    };
    const store = storeWith(ledger, { saveProgress });
    const reads: Pick<LedgerStore, 'customerOrders'> = {
      customerOrders: async (customer) => {
        const s = scheduler;
        await s?.schedule(Promise.resolve('ledger read'));
        const data = await ledger.customerOrders(customer);
        return s ? s.schedule(Promise.resolve(data), 'ledger read answered') : data;
      },
    };
    // The service's answer to the approval comes back at a point the scheduler picks, and a customer asks for their
    // balance from then on: before the drop, between the drop and the save, or after both.
    let asking: Promise<unknown> = Promise.resolve();
    let ask: () => Promise<unknown> = async () => undefined;
    const service = clientFor(world.sandbox);
    const client = new Proxy(service, {
      get: (target, name) => {
        const value: unknown = Reflect.get(target, name, target);
        if (name === 'updatePoints')
          return async (...args: Parameters<LoyaltyClient['updatePoints']>) => {
            const answer = await target.updatePoints(...args);
            if (!scheduler) return answer;
            asking = scheduler.schedule(Promise.resolve('the customer asks')).then(ask);
            return scheduler.schedule(Promise.resolve(answer), 'the service answered the approval');
          };
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const engine = await world.start({ store, client });
    const account = {
      ...(await engine.accounts.runtime('default'))!,
      // No figures from the service: the ledger's count, each earn worth 100.
      client: {},
      activityPoints: { '1': 100 },
    } as unknown as AccountRuntime;
    const reader = new StorefrontReader({
      accounts: { forShop: async () => account.id, runtime: async () => account },
      store: reads,
      liveFirst: () => false,
      share: 0.2,
      logger: createLogger({ level: 'silent' }),
    });
    engine.worker.customerCalls.add((call) => reader.dropBalance(call.account, call.customer));

    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        run++;
        const orderId = String(880_000 + run);
        const email = `drop-${run}@example.com`;
        const customer = { name: 'Ada', email, mobile: '+447700900123' };
        const savedAs = (state: OrderRecord['upstream']['points']) =>
          new Promise<void>((done) => saved.set(orderId, { state, done }));
        // Earned (pending) first, unscheduled.
        const earned = savedAs('earned');
        await engine.accept(`p-${run}`, [orderEvent({ orderId, facts: ['placed', 'paid'], customer })]);
        await earned;
        // Then fulfilled: the approval, with the customer asking around it.
        scheduler = s;
        ask = () => reader.points(account, { email }, { platform: 'testshop', shop: 'acme' });
        const approved = savedAs('approved');
        await engine.accept(`f-${run}`, [orderEvent({ orderId, facts: ['paid', 'fulfilled'], customer })]);
        await s.waitFor(approved.then(() => asking));
        scheduler = undefined;
        // What a customer asking now is shown: a fresh read if nothing is kept, else what is kept.
        const now = await reader.points(account, { email }, { platform: 'testshop', shop: 'acme' });
        expect(now).toMatchObject({ ok: true, points: { balance: { available: 100, pending: 0 } } });
      }),
      { numRuns: 30 },
    );
  });
});
