// Points by spend against the sandbox: the order's total picks the activity
// of the highest band it reaches, and an order keeps the activity of its first
// earn whatever happens to its total after, an earn in doubt included.
import { describe, expect, it } from 'vitest';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';

// LOYALTY_EARN_ACTIVITIES=0=1,50=7,200=9, with the activities set up to match in the service.
const bands = [
  { from: '0', activityId: '1' },
  { from: '50', activityId: '7' },
  { from: '200', activityId: '9' },
];

const harness = sandboxWithEngines({ activities: { '1': 10, '7': 70, '9': 90 } });

const earningsOf = (orderId: string) =>
  harness.sandbox.store.snapshot().earnings.filter((earning) => earning.orderId === orderId);
const paid = (orderId: string, amount: string, minute = 0) =>
  orderEvent({
    orderId,
    facts: ['placed', 'paid'],
    total: { amount, currency: 'EUR' },
    occurredAt: new Date(Date.UTC(2026, 10, 1, 12, minute)).toISOString(),
  });

describe('points by spend', () => {
  it.each([
    ['4.99', '1', 10],
    ['50.00', '7', 70],
    ['199.99', '7', 70],
    ['200', '9', 90],
    ['1250.00', '9', 90],
  ])('an order of %s earns under activity %s (%i points)', async (amount, activityId, points) => {
    const engine = await harness.start({ policy: { earnBands: bands } });
    const orderId = String(40_000 + Math.round(Number(amount) * 100));
    await engine.accept(`p-${orderId}`, [paid(orderId, amount)]);
    await engine.drain();
    expect(earningsOf(orderId)).toMatchObject([{ activityId, points, status: 'pending' }]);
  });

  it('keeps the activity of the first earn when the order is edited to another band', async () => {
    const engine = await harness.start({ policy: { earnBands: bands } });
    const orderId = '41001';
    await engine.accept('first', [paid(orderId, '60.00', 0)]);
    await engine.drain();
    await engine.accept('edited', [{ ...paid(orderId, '260.00', 5), facts: ['placed', 'paid', 'fulfilled'] }]);
    await engine.drain();
    expect(earningsOf(orderId)).toMatchObject([{ activityId: '7', points: 70, status: 'approved' }]);
  });

  it('keeps it through an earn in doubt: the earn sent again after the edit goes under the same activity', async () => {
    const engine = await harness.start({
      policy: { earnBands: bands },
      worker: { retryMinDelayMs: 50, retryMaxDelayMs: 100 },
    });
    const orderId = '41002';
    // The first earn takes effect and its answer is lost: in doubt.
    harness.sandbox.faults.configure({ failureRate: 1, failureStatus: 502, failurePhase: 'after', onlyPath: '/earn/' });
    await engine.accept('first', [paid(orderId, '60.00', 0)]);
    await eventually(async () =>
      expect((await engine.store.getOrder(`testshop:shop-1:${orderId}`))?.calls.map((call) => call.outcome)).toContain(
        'retry',
      ),
    );
    await engine.accept('edited', [paid(orderId, '260.00', 5)]);
    harness.sandbox.faults.configure({});
    await eventually(async () =>
      expect((await engine.store.getOrder(`testshop:shop-1:${orderId}`))?.upstream.points).toBe('earned'),
    );
    expect(earningsOf(orderId)).toMatchObject([{ activityId: '7', points: 70 }]);
  });

  it('skips an order below the lowest band, as below the minimum', async () => {
    const engine = await harness.start({ policy: { earnBands: [{ from: '10', activityId: '1' }, ...bands.slice(1)] } });
    const orderId = '41003';
    await engine.accept('p', [paid(orderId, '9.99')]);
    await engine.drain();
    expect((await engine.store.getOrder(`testshop:shop-1:${orderId}`))?.target).toEqual({
      state: 'skipped',
      reason: 'below_minimum',
    });
    expect(earningsOf(orderId)).toEqual([]);
  });
});
