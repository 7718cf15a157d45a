// Conversions end to end through the core and the sandbox over HTTP: what is
// sent, what follows the order, and what the service's refusals do: a
// documented one is a dead letter at the first answer, an undocumented one is
// retried a bounded number of times, and "conversion does not exist" after an
// add in doubt ends the matter instead of looping.
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';

const harness = sandboxWithEngines();

let nextOrder = 30_000;
const newOrderId = () => String(nextOrder++);
const start = harness.start;
const conversionsOf = (orderId: string) =>
  harness.sandbox.store.snapshot().conversions.filter((conversion) => conversion.orderId === orderId);
const keyOf = (orderId: string) => `testshop:shop-1:${orderId}`;
const referred = { loyalty_campaign: '12', loyalty_referrer: 'ANNA-7' };
/** Paid, referred; total 120.00 and subtotal 99.90 in the shop's currency. */
const paidOrder = (orderId: string, attributes: Record<string, string> = referred) =>
  orderEvent({
    orderId,
    facts: ['placed', 'paid'],
    attributes,
    subtotal: '99.90',
    customer: { name: 'Grace Hopper', email: 'grace@example.com', mobile: '+12125550142' },
  });

describe('what a conversion carries', () => {
  it.each([
    ['total', '120'],
    ['subtotal', '99.9'],
  ] as const)(
    'sends purchase_amount as the order’s %s, with the referrer, event, referee and the order it is',
    async (setting, amount) => {
      const engine = await start({ policy: { conversion: { purchaseAmount: setting, confirm: true } } });
      const orderId = newOrderId();
      await engine.accept(`p-${orderId}`, [paidOrder(orderId)]);
      await engine.drain();
      expect(conversionsOf(orderId)).toEqual([
        expect.objectContaining({
          campaignId: 12,
          event: 'sale',
          referrer: { field: 'referrer_code', value: 'ANNA-7' },
          refereeName: 'Grace Hopper',
          refereeEmail: 'grace@example.com',
          refereeMobile: '+12125550142',
          purchaseAmount: amount,
          customValue: keyOf(orderId),
          status: 'pending',
        }),
      ]);
    },
  );

  it('sends none for a campaign without a referrer, earns the points, and lists the order with the reason', async () => {
    const engine = await start();
    const orderId = newOrderId();
    await engine.accept(`p-${orderId}`, [paidOrder(orderId, { loyalty_campaign: '12' })]);
    await engine.drain();
    expect(conversionsOf(orderId)).toEqual([]);
    expect(harness.sandbox.store.snapshot().earnings.filter((earning) => earning.orderId === orderId)).toHaveLength(1);
    const listed = await engine.store.listOrders({ reason: 'referral_without_referrer', page: 1, limit: 50 });
    expect(listed.orders.map((order) => order.key)).toContain(keyOf(orderId));
    expect((await engine.store.countOrders()).attention.referral_without_referrer).toBeGreaterThanOrEqual(1);
  });

  it('with CONVERSION_CONFIRM=off adds the conversion and never confirms it', async () => {
    const engine = await start({ policy: { conversion: { ...DEFAULT_POLICY.conversion, confirm: false } } });
    const orderId = newOrderId();
    await engine.accept(`p-${orderId}`, [paidOrder(orderId)]);
    await engine.drain();
    await engine.accept(`f-${orderId}`, [orderEvent({ orderId, facts: ['fulfilled'] })]);
    await engine.drain();
    await engine.accept(`c-${orderId}`, [orderEvent({ orderId, facts: ['cancelled'] })]);
    await engine.drain();
    expect(conversionsOf(orderId)).toMatchObject([{ status: 'pending' }]);
    const calls = (await engine.store.getOrder(keyOf(orderId)))?.calls.map((call) => call.operation);
    expect(calls).not.toContain('approveConversion');
    expect(calls).not.toContain('rejectConversion');
  });
});

describe('an add in doubt', () => {
  it('on an order cancelled meanwhile is rejected, and "conversion does not exist" settles it: no add, no loop, no dead letter', async () => {
    const engine = await start({ worker: { retryMinDelayMs: 5, retryMaxDelayMs: 20 } });
    const orderId = newOrderId();
    // Every add fails before it takes effect, with an answer that does not say so: in doubt, retried.
    harness.sandbox.faults.configure({ forced: { status: 502, count: 1_000 }, onlyPath: '/conversion/add' });
    await engine.accept(`p-${orderId}`, [paidOrder(orderId)]);
    await eventually(async () =>
      expect(
        (await engine.store.getOrder(keyOf(orderId)))?.calls.map((call) => `${call.operation}:${call.outcome}`),
      ).toContain('conversion:retry'),
    );
    expect((await engine.store.getOrder(keyOf(orderId)))?.upstream.conversion).toBe('sending');
    await engine.accept(`c-${orderId}`, [orderEvent({ orderId, facts: ['cancelled'] })]);
    await eventually(async () =>
      expect((await engine.store.getOrder(keyOf(orderId)))?.upstream.conversion).toBe('void'),
    );
    // The service works again: nothing more is sent for this order.
    harness.sandbox.faults.configure({});
    await engine.drain();
    const order = await engine.store.getOrder(keyOf(orderId));
    const conversionCalls =
      order?.calls
        .filter((call) => call.operation.includes('onversion'))
        .map((call) => `${call.operation}:${call.outcome}`) ?? [];
    expect(conversionCalls.at(-1)).toBe('rejectConversion:failed');
    expect(conversionCalls.filter((call) => call !== 'conversion:retry')).toEqual(['rejectConversion:failed']);
    expect(order?.calls.at(-1)?.message).toContain('conversion does not exist');
    expect(order?.dueAt).toBeNull();
    expect(conversionsOf(orderId)).toEqual([]);
    expect(await engine.store.listDeadLetters()).toEqual([]);
  });

  it('with CONVERSION_CONFIRM=off, on an order cancelled meanwhile, is not added again: no referrer is rewarded for it', async () => {
    const engine = await start({
      policy: { conversion: { ...DEFAULT_POLICY.conversion, confirm: false } },
      worker: { retryMinDelayMs: 5, retryMaxDelayMs: 20 },
    });
    const orderId = newOrderId();
    harness.sandbox.faults.configure({ forced: { status: 502, count: 1_000 }, onlyPath: '/conversion/add' });
    // No mobile: the order earns no points, so no call of its points comes after the cancel to settle its retry.
    const unreachable = { name: 'Grace Hopper', email: 'grace@example.com', mobile: null };
    await engine.accept(`p-${orderId}`, [{ ...paidOrder(orderId), customer: unreachable }]);
    await eventually(async () =>
      expect(
        (await engine.store.getOrder(keyOf(orderId)))?.calls.map((call) => `${call.operation}:${call.outcome}`),
      ).toContain('conversion:retry'),
    );
    await engine.accept(`c-${orderId}`, [orderEvent({ orderId, facts: ['cancelled'], customer: unreachable })]);
    await eventually(async () => expect((await engine.store.getOrder(keyOf(orderId)))?.dueAt).toBeNull());
    // The service works again: the add is not finished for a cancelled order (the merchant, who approves by hand,
    // rejects it there if the first add landed after all).
    harness.sandbox.faults.configure({});
    await engine.drain();
    expect(conversionsOf(orderId)).toEqual([]);
    const order = await engine.store.getOrder(keyOf(orderId));
    expect(order?.calls.filter((call) => call.operation === 'conversion' && call.outcome !== 'retry')).toEqual([]);
    // No retry is shown as pending for a call that is wanted no more.
    expect(order?.work).toMatchObject({ retryAt: null, lastError: null, attempts: 0 });
    expect(await engine.store.listDeadLetters()).toEqual([]);
  });

  it('whose add did land is rejected once the order is cancelled', async () => {
    const engine = await start({ worker: { retryMinDelayMs: 5, retryMaxDelayMs: 20 } });
    const orderId = newOrderId();
    // Every add takes effect, and its answer is lost.
    harness.sandbox.faults.configure({
      failureRate: 1,
      failureStatus: 502,
      failurePhase: 'after',
      onlyPath: '/conversion/add',
    });
    await engine.accept(`p-${orderId}`, [paidOrder(orderId)]);
    await eventually(async () =>
      expect(
        (await engine.store.getOrder(keyOf(orderId)))?.calls.map((call) => `${call.operation}:${call.outcome}`),
      ).toContain('conversion:retry'),
    );
    expect(conversionsOf(orderId)).toHaveLength(1);
    await engine.accept(`c-${orderId}`, [orderEvent({ orderId, facts: ['cancelled'] })]);
    await eventually(() =>
      expect(conversionsOf(orderId)).toMatchObject([{ status: 'rejected', remark: 'order cancelled' }]),
    );
    harness.sandbox.faults.configure({});
    await engine.drain();
    expect(conversionsOf(orderId)).toHaveLength(1);
    expect((await engine.store.getOrder(keyOf(orderId)))?.upstream).toMatchObject({
      conversion: 'sent',
      conversionStatus: 'rejected',
    });
  });
});

describe('refusals', () => {
  it('"Parameters missing" on a confirm is a dead letter within one attempt, with the service’s words', async () => {
    const engine = await start({ worker: { retryMinDelayMs: 1, retryMaxDelayMs: 1 } });
    const orderId = newOrderId();
    await engine.accept(`p-${orderId}`, [paidOrder(orderId)]);
    await engine.drain();
    harness.sandbox.faults.configure({
      forced: { status: 200, message: 'Parameters missing', count: 10 },
      onlyPath: '/conversion/confirm',
    });
    await engine.accept(`f-${orderId}`, [orderEvent({ orderId, facts: ['fulfilled'] })]);
    await engine.drain();
    const [letter] = await engine.store.listDeadLetters();
    expect(letter).toMatchObject({ operation: 'approveConversion', httpStatus: 200, orderKey: keyOf(orderId) });
    expect(letter?.reason).toContain('Parameters missing');
    expect(harness.sandbox.faults.settings.forcedLeft).toBe(9);
    const calls = (await engine.store.getOrder(keyOf(orderId)))?.calls.filter(
      (call) => call.operation === 'approveConversion',
    );
    expect(calls?.map((call) => call.outcome)).toEqual(['failed']);
  });

  it('a failure in words the service does not document is retried LOYALTY_UNKNOWN_FAILURE_RETRIES times, then dead-lettered', async () => {
    const engine = await start({ worker: { retryMinDelayMs: 1, retryMaxDelayMs: 5, maxUnknownFailures: 2 } });
    const orderId = newOrderId();
    harness.sandbox.faults.configure({
      forced: { status: 200, message: 'Please try later', count: 10 },
      onlyPath: '/conversion/add',
    });
    await engine.accept(`p-${orderId}`, [paidOrder(orderId)]);
    await eventually(async () => expect(await engine.store.listDeadLetters()).toHaveLength(1));
    const [letter] = await engine.store.listDeadLetters();
    expect(letter?.reason).toMatch(
      /^gave up after 3 failures the loyalty service does not document: .*Please try later/,
    );
    // The first try and two retries: three answers used of the ten forced.
    expect(harness.sandbox.faults.settings.forcedLeft).toBe(7);
    // The letter is written a moment before the order's record of the call.
    await eventually(async () =>
      expect(
        (await engine.store.getOrder(keyOf(orderId)))?.calls
          .filter((call) => call.operation === 'conversion')
          .map((call) => call.outcome),
      ).toEqual(['retry', 'retry', 'failed']),
    );
  });
});
