// 500 orders through each fault profile of the sandbox: every order must end
// in its right state, nothing doubled, nothing dead-lettered for a fault that
// passes. And permanent errors: one attempt, a dead letter with the message.
import { afterEach, describe, expect, it } from 'vitest';
import { openEngine, type Engine } from '../../src/core/engine.ts';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import type { FaultSettingsInput } from '../../src/sandbox/faults.ts';
import { createLogger } from '../../src/logger.ts';
import { clientFor, eventually, tempDataDir } from '../helpers/engine.ts';
import { expectOrdersEndRight, scenarioOrders, seededRandom, shuffle, type ScenarioOrder } from '../helpers/scenarios.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { reportToSoak } from '../helpers/soak-report.ts';

export const ORDERS_PER_PROFILE = Number(process.env.FAULT_ORDERS ?? 500);
export const OUTAGE_MS = Number(process.env.FAULT_OUTAGE_MS ?? 5_000);

export interface Profile {
  name: string;
  faults: FaultSettingsInput;
  /** Connection refused for OUTAGE_MS while the burst arrives. */
  outage?: boolean;
}

export const PROFILES: Profile[] = [
  { name: '30% HTTP 500, after the change was made', faults: { failureRate: 0.3, failureStatus: 500, failurePhase: 'after' } },
  { name: '10% timeouts, after the change was made', faults: { hangRate: 0.1, hangMs: 1_500, failurePhase: 'after' } },
  { name: 'bursts of 429 with Retry-After', faults: { forced: { status: 429, count: 10, retryAfterSeconds: 1, everyMs: 5_000 } } },
  { name: `connection refused`, faults: {}, outage: true },
  { name: '20% HTTP 200 with a failure envelope', faults: { failureRate: 0.2, failureStatus: 200, failureMessage: 'Temporarily unavailable' } },
];

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

export async function runProfile(profile: Profile, seed: number): Promise<{ sandbox: TestSandbox; engine: Engine; orders: ScenarioOrder[] }> {
  const sandbox = await startTestSandbox({ rateLimit: 1_000_000, faults: profile.faults });
  const engine = await openEngine({
    dataDir: tempDataDir(),
    client: clientFor(sandbox, { timeoutMs: 400, maxRetries: 1, minRetryDelayMs: 20, maxRetryDelayMs: 100 }),
    policy: DEFAULT_POLICY,
    earnActivityId: '1',
    logger: createLogger({ level: 'silent' }),
    worker: { retryMinDelayMs: 50, retryMaxDelayMs: 1_000 },
  });
  await engine.startWorker();
  const random = seededRandom(seed);
  const orders = scenarioOrders(ORDERS_PER_PROFILE, 10_000_000 + seed * 100_000, random, `fault${seed}`);
  const deliveries = shuffle(orders.flatMap((order) => order.events.map((event) => ({ key: event.deliveryId, event }))), random);
  const outage = profile.outage ? sandbox.outage(OUTAGE_MS) : Promise.resolve();
  await Promise.all(deliveries.map(({ key, event }) => engine.accept(key, [event])));
  await outage;
  return { sandbox, engine, orders };
}

describe(`${ORDERS_PER_PROFILE} orders through each fault profile end in their right state`, () => {
  PROFILES.forEach((profile, index) => {
    it(profile.name, async () => {
      const { sandbox, engine, orders } = await runProfile(profile, index + 1);
      cleanup.push(() => sandbox.close(), () => engine.stop(1_000));
      await eventually(() => expectOrdersEndRight(sandbox.store.snapshot(), orders), Number(process.env.FAULT_WAIT_MS ?? 45_000));
      expect(engine.ledger.deadLetters()).toEqual([]);
      reportToSoak({ faultsInjected: sandbox.faults.injected + (profile.outage ? 1 : 0), faultOrders: orders.length });
    }, Number(process.env.FAULT_WAIT_MS ?? 45_000) + 15_000);
  });
});

describe('permanent errors', () => {
  it.each([
    [400, 'Invalid Source'],
    [401, 'Invalid auth'],
    [402, 'Invalid URL'],
  ])('%i %s: one attempt, then a dead letter with the service message', async (status, message) => {
    const sandbox = await startTestSandbox({ rateLimit: 1_000_000, faults: { forced: { status, count: 1_000, message } } });
    const engine = await openEngine({
      dataDir: tempDataDir(),
      client: clientFor(sandbox, { maxRetries: 3, minRetryDelayMs: 10 }),
      policy: DEFAULT_POLICY,
      earnActivityId: '1',
      logger: createLogger({ level: 'silent' }),
      worker: { retryMinDelayMs: 10, retryMaxDelayMs: 20 },
    });
    cleanup.push(() => sandbox.close(), () => engine.stop(1_000));
    await engine.startWorker();
    // An order that earns: its first call is the earn the service refuses.
    const chosen = scenarioOrders(20, 20_000_000 + status * 100, seededRandom(status), `perm${status}`).find((candidate) => candidate.expected !== 'none')!;
    for (const event of chosen.events) await engine.accept(event.deliveryId, [event]);
    await engine.drain();
    // Nothing loops: give it time, and still one attempt.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const letters = engine.ledger.deadLetters();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ httpStatus: status, operation: 'earn' });
    expect(letters[0]?.reason).toContain(message);
    const record = await engine.ledger.findOrder(`perm${status}:shop:${chosen.orderId}`);
    expect(record?.calls).toHaveLength(1);
    expect(record?.calls[0]).toMatchObject({ outcome: 'failed', attempts: 1 });
  });
});
