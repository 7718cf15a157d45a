// Any permutation and duplication of an order's events ends in the same
// upstream state, and the same calls, as the events in their real order.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/core/engine.ts';
import { FACTS, type Fact, type OrderEvent } from '../../src/core/order-event.ts';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import { createLogger } from '../../src/logger.ts';
import { clientFor, tempDataDir } from '../helpers/engine.ts';
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
    attributes: history.referred ? { loyalty_campaign: '9' } : ({} as Record<string, string>),
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
async function outcome(events: Array<{ key: string; event: OrderEvent }>, orderId: string, email: string, drainEach = false) {
  const engine = await openEngine({
    dataDir: tempDataDir(),
    client: clientFor(sandbox),
    policy: DEFAULT_POLICY,
    earnActivityId: '1',
    logger: createLogger({ level: 'silent' }),
    worker: { retryMinDelayMs: 1, retryMaxDelayMs: 1 },
    intake: { retryMinDelayMs: 1, retryMaxDelayMs: 1 },
  });
  if (drainEach) await engine.startWorker();
  for (const { key, event } of events) {
    await engine.accept(key, [event]);
    if (drainEach) await engine.drain();
  }
  if (!drainEach) await engine.startWorker();
  await engine.drain();
  const order = await engine.store.getOrder(`prop:shop:${orderId}`);
  await engine.stop();
  const state = sandbox.store.snapshot();
  return {
    earnings: state.earnings.filter((earning) => earning.orderId === orderId).map(({ status, points }) => ({ status, points })),
    conversions: state.conversions.filter((conversion) => conversion.orderId === orderId).length,
    redemptions: state.redemptions.filter((redemption) => redemption.email === email).length,
    target: order?.target,
    calls: order?.calls.map((call) => `${call.operation}:${call.outcome}`),
  };
}

// What the customer sees: no points, pending points or approved points. A
// conversion is not compared here: it is sent once the order is paid and is
// not undone, so whether a cancellation came before it went out depends on
// timing by nature.
const pointsEffect = (result: Awaited<ReturnType<typeof outcome>>) =>
  result.earnings.find((earning) => earning.status !== 'cancelled')?.status ?? 'none';

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
          if (next() % 3 === 0) copies.push({ key: `${event.deliveryId}-again-${i}`, event: { ...event, deliveryId: `${event.deliveryId}-again-${i}` } });
          return copies;
        });
        const shuffled = withDuplicates
          .map((item) => ({ item, sortBy: next() }))
          .sort((a, b) => a.sortBy - b.sortBy)
          .map(({ item }) => item);

        const actual = await outcome(shuffled, orderId, email);
        expect(actual).toEqual(expected);
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
      }),
      { numRuns: 40 },
    );
  });
});
