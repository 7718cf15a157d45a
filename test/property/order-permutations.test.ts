// Any permutation and duplication of an order's events ends in the same
// upstream state, and the same calls, as the events in their real order:
// points, redemption, and the referral's conversion with its approval or
// rejection. And with the service's answers lost after it acted (what a crash
// between a call and its record looks like to the ledger), every call still
// takes effect once.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/core/engine.ts';
import { FACTS, type Fact, type OrderEvent } from '../../src/core/order-event.ts';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import { createLogger } from '../../src/logger.ts';
import { clientFor, lowdbFor, eventually } from '../helpers/engine.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox({ rateLimit: 1_000_000 });
});
afterAll(() => sandbox.close());

interface History {
  facts: Fact[];
  thin: boolean[];
  hasMobile: boolean;
  referred: boolean;
  redeems: boolean;
}

/** Distinct facts in the order they happen in life; each event shows all facts so far, or only its own. */
const historyArbitrary: fc.Arbitrary<History> = fc
  .record({
    facts: fc.subarray([...FACTS], { minLength: 1 }),
    thin: fc.array(fc.boolean(), { minLength: FACTS.length, maxLength: FACTS.length }),
    hasMobile: fc.boolean(),
    referred: fc.boolean(),
    redeems: fc.boolean(),
  })
  .map((history) => ({ ...history, facts: FACTS.filter((fact) => history.facts.includes(fact)) }));

let runs = 0;

function eventsOf(history: History, orderId: string, email: string): OrderEvent[] {
  return history.facts.map((fact, i) => ({
    platform: 'prop',
    shop: 'shop',
    orderId,
    orderName: `#${orderId}`,
    deliveryId: `${orderId}-${i}`,
    occurredAt: new Date(Date.UTC(2026, 10, 1, 12, i)).toISOString(),
    facts: history.thin[i] ? [fact] : history.facts.slice(0, i + 1),
    customer: { name: 'Prop Erty', email, mobile: history.hasMobile ? '+447700900321' : null },
    total: { amount: '50.00', currency: 'EUR' },
    test: false,
    source: 'web',
    discountCodes: history.redeems ? [{ code: 'LOYALTY-P', amount: '0.10' }] : [],
    attributes: history.referred
      ? { loyalty_campaign: '9', loyalty_referrer: `FRIEND-${orderId}` }
      : ({} as Record<string, string>),
    landingSite: null,
    refunds: [],
  }));
}

/**
 * Runs events through a fresh ledger and worker, and says what the service
 * and the ledger ended with. With drainEach the worker works after every
 * event; without, it starts once all are accepted (a burst that arrived
 * while the worker was busy or down).
 */
async function outcome(
  events: Array<{ key: string; event: OrderEvent }>,
  orderId: string,
  email: string,
  drainEach = false,
  on: TestSandbox = sandbox,
  retryDelayMs = 1,
) {
  const engine = await openEngine({
    store: lowdbFor(),
    client: clientFor(on),
    policy: DEFAULT_POLICY,
    earnActivityId: '1',
    logger: createLogger({ level: 'silent' }),
    worker: { retryMinDelayMs: retryDelayMs, retryMaxDelayMs: retryDelayMs },
    intake: { retryMinDelayMs: 1, retryMaxDelayMs: 1 },
  });
  if (drainEach) await engine.startWorker();
  for (const { key, event } of events) {
    await engine.accept(key, [event]);
    if (drainEach) await engine.drain();
  }
  if (!drainEach) await engine.startWorker();
  // Retries wait for their time, which drain does not: settled is nothing left to do.
  await eventually(async () => {
    await engine.drain();
    expect((await engine.store.getOrder(`prop:shop:${orderId}`))?.dueAt ?? null).toBeNull();
  }, 10_000);
  const order = await engine.store.getOrder(`prop:shop:${orderId}`);
  const deadLetters = await engine.store.listDeadLetters();
  await engine.stop();
  const state = on.store.snapshot();
  return {
    earnings: state.earnings
      .filter((earning) => earning.orderId === orderId)
      .map(({ status, points }) => ({ status, points })),
    conversions: state.conversions
      .filter((conversion) => conversion.orderId === orderId)
      .map(({ status, referrer }) => ({ status, referrer: referrer.value })),
    redemptions: state.redemptions.filter((redemption) => redemption.email === email).length,
    target: order?.target,
    calls: order?.calls.map((call) => `${call.operation}:${call.outcome}`),
    deadLetters: deadLetters.map((letter) => letter.operation),
  };
}

// What the customer sees: no points, pending points or approved points.
const pointsEffect = (result: Awaited<ReturnType<typeof outcome>>) =>
  result.earnings.find((earning) => earning.status !== 'cancelled')?.status ?? 'none';

/**
 * What the referrer sees: whether a conversion was added before a
 * cancellation arrived depends on timing by nature, so a cancelled order's
 * conversion is rejected or was never added ('none or rejected'); a live
 * one's is added once, and approved with the order's fulfilment.
 */
function conversionEffect(result: Awaited<ReturnType<typeof outcome>>, orderId: string): string {
  expect(result.conversions.length, 'conversions of one order').toBeLessThanOrEqual(1);
  const [conversion] = result.conversions;
  if (conversion) expect(conversion.referrer).toBe(`FRIEND-${orderId}`);
  const status = conversion?.status ?? 'none';
  return status === 'none' || status === 'rejected' ? 'none or rejected' : status;
}

/** Where the history says the conversion must end. */
function expectedConversion(history: History): string {
  const facts = new Set(history.facts);
  const paid = facts.has('paid') || facts.has('fulfilled');
  if (!history.referred || !paid || facts.has('cancelled') || facts.has('fullyRefunded')) return 'none or rejected';
  return facts.has('fulfilled') ? 'approved' : 'pending';
}

describe('ingesting in any order', () => {
  it('ends in the same upstream state, with the same calls, as the ordered sequence', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, fc.infiniteStream(fc.nat()), async (history, randomness) => {
        const run = ++runs;
        const ordered = eventsOf(history, String(100_000 + run * 2), `o${run}@example.com`);
        const expected = await outcome(
          ordered.map((event) => ({ key: event.deliveryId, event })),
          String(100_000 + run * 2),
          `o${run}@example.com`,
        );

        const orderId = String(100_000 + run * 2 + 1);
        const email = `p${run}@example.com`;
        const events = eventsOf(history, orderId, email);
        const numbers = randomness.take(events.length * 3)[Symbol.iterator]();
        const next = () => numbers.next().value ?? 0;
        // Duplicates: the same delivery again, and the same content under a new delivery id.
        const withDuplicates = events.flatMap((event, i) => {
          const copies = [{ key: event.deliveryId, event }];
          if (next() % 2 === 0) copies.push({ key: event.deliveryId, event });
          if (next() % 3 === 0)
            copies.push({
              key: `${event.deliveryId}-again-${i}`,
              event: { ...event, deliveryId: `${event.deliveryId}-again-${i}` },
            });
          return copies;
        });
        const shuffled = withDuplicates
          .map((item) => ({ item, sortBy: next() }))
          .sort((a, b) => a.sortBy - b.sortBy)
          .map(({ item }) => item);

        const actual = await outcome(shuffled, orderId, email);
        expect(actual).toEqual({
          ...expected,
          conversions: expected.conversions.map((each) => ({ ...each, referrer: `FRIEND-${orderId}` })),
        });
        expect(conversionEffect(actual, orderId)).toBe(expectedConversion(history));
      }),
      { numRuns: 60 },
    );
  });

  it('gives the customer the same points even when the worker runs between events', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, fc.integer(), async (history, seed) => {
        const run = ++runs;
        const orderedId = String(500_000 + run * 2);
        const expected = await outcome(
          eventsOf(history, orderedId, `q${run}@example.com`).map((event) => ({ key: event.deliveryId, event })),
          orderedId,
          `q${run}@example.com`,
        );
        const orderId = String(500_000 + run * 2 + 1);
        const events = eventsOf(history, orderId, `r${run}@example.com`);
        const shuffled = events
          .map((event, i) => ({ key: event.deliveryId, event, sortBy: Math.sin(seed + i) }))
          .sort((a, b) => a.sortBy - b.sortBy);
        const actual = await outcome(shuffled, orderId, `r${run}@example.com`, true);
        expect(pointsEffect(actual)).toEqual(pointsEffect(expected));
        expect(conversionEffect(actual, orderId)).toBe(expectedConversion(history));
        // Only a redeem ever waits for a person (the customer had too few points, here).
        expect(actual.deadLetters.filter((operation) => operation !== 'redeem')).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  it('takes each call once in effect when answers are lost before or after the service acted', async () => {
    // Its own sandbox: a 502 on a share of the calls, before the change or after it (the crash between a call and its record).
    const lossy = await startTestSandbox({ rateLimit: 1_000_000 });
    try {
      await fc.assert(
        fc.asyncProperty(
          historyArbitrary,
          fc.integer(),
          fc.constantFrom('before', 'after'),
          fc.double({ min: 0.2, max: 0.6, noNaN: true }),
          async (history, seed, phase, rate) => {
            const run = ++runs;
            lossy.faults.configure({});
            const orderedId = String(800_000 + run * 2);
            const expected = await outcome(
              eventsOf(history, orderedId, `s${run}@example.com`).map((event) => ({ key: event.deliveryId, event })),
              orderedId,
              `s${run}@example.com`,
            );
            const orderId = String(800_000 + run * 2 + 1);
            const email = `t${run}@example.com`;
            const shuffled = eventsOf(history, orderId, email)
              .flatMap((event) => [event, event])
              .map((event, i) => ({ key: event.deliveryId, event, sortBy: Math.sin(seed + i) }))
              .sort((a, b) => a.sortBy - b.sortBy);
            lossy.faults.configure({ failureRate: rate, failureStatus: 502, failurePhase: phase });
            // Retries slow enough that later events arrive while a call is in doubt (an add in doubt, then a cancellation).
            const actual = await outcome(shuffled, orderId, email, true, lossy, 25);
            lossy.faults.configure({});
            expect(actual.earnings.length, 'earnings of one order').toBeLessThanOrEqual(1);
            expect(pointsEffect(actual)).toEqual(pointsEffect(expected));
            expect(conversionEffect(actual, orderId)).toBe(expectedConversion(history));
            // A redeem whose answer was lost may have been applied: it waits for a person, never sent twice.
            expect(actual.redemptions).toBeLessThanOrEqual(1);
            expect(actual.deadLetters.filter((operation) => operation !== 'redeem')).toEqual([]);
          },
        ),
        { numRuns: 40 },
      );
    } finally {
      await lossy.close();
    }
  });
});
