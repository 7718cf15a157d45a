// A burst of 1,000 events for 300 orders, duplicated and shuffled, ends with
// the sandbox holding exactly the expected points and conversions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/core/engine.ts';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import { createLogger } from '../../src/logger.ts';
import { clientFor, lowdbFor } from '../helpers/engine.ts';
import { expectOrdersEndRight, scenarioOrders, seededRandom, shuffle } from '../helpers/scenarios.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox({ rateLimit: 1_000_000 });
});
afterAll(() => sandbox.close());

/** 300 orders, their events plus duplicates (same delivery, or same content under a new id) up to 1,000, shuffled. */
function burst(firstOrderId: number, seed: number) {
  const random = seededRandom(seed);
  const orders = scenarioOrders(300, firstOrderId, random);
  const deliveries = orders.flatMap((order) => order.events.map((event) => ({ key: event.deliveryId, event })));
  const unique = deliveries.length;
  while (deliveries.length < 1_000) {
    const original = deliveries[Math.floor(random() * unique)]!;
    deliveries.push(
      random() < 0.5 ? original : { key: `${original.key}-resent-${deliveries.length}`, event: original.event },
    );
  }
  return { orders, deliveries: shuffle(deliveries, random) };
}

async function run(firstOrderId: number, seed: number, workerRunsDuringBurst: boolean) {
  const { orders, deliveries } = burst(firstOrderId, seed);
  const engine = await openEngine({
    store: lowdbFor(),
    client: clientFor(sandbox),
    policy: DEFAULT_POLICY,
    earnActivityId: '1',
    logger: createLogger({ level: 'silent' }),
  });
  if (workerRunsDuringBurst) await engine.startWorker();
  const results = await Promise.all(deliveries.map(({ key, event }) => engine.accept(key, [event])));
  if (!workerRunsDuringBurst) {
    await engine.foldInbox();
    await engine.startWorker();
  }
  await engine.drain();
  await engine.stop();
  return { orders, results };
}

describe('a burst of 1,000 events for 300 orders', () => {
  it('while the worker drains: every order ends with the right points, conversions once', async () => {
    const { orders, results } = await run(700_000, 1, true);
    expect(results.filter((result) => result === 'duplicate').length).toBeGreaterThan(0);
    expectOrdersEndRight(sandbox.store.snapshot(), orders);
  });

  it('while the worker is down: cancelled orders are void and no call is made for them', async () => {
    const { orders } = await run(800_000, 2, false);
    expectOrdersEndRight(sandbox.store.snapshot(), orders, { voidCancelled: true });
    const approved = orders.filter((order) => order.expected === 'approved').length;
    const state = sandbox.store.snapshot();
    expect(
      state.earnings.filter((earning) => Number(earning.orderId) >= 800_000 && earning.status === 'approved'),
    ).toHaveLength(approved);
  });
});
