// 500 orders through each fault profile of the sandbox: every order must end
// in its right state, nothing doubled, nothing dead-lettered for a fault that
// passes. And permanent errors: one attempt, a dead letter with the message.
import { afterEach, describe, expect, it } from 'vitest';
import { openEngine, type Engine } from '../../src/core/engine.ts';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import type { FaultSettingsInput } from '../../src/sandbox/faults.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { AuthPause } from '../../src/core/worker/auth-pause.ts';
import { createLogger } from '../../src/logger.ts';
import { budgetWorker, fakeAccount, foldOrder } from '../helpers/budget-worker.ts';
import { storeWith } from '../helpers/store-with.ts';
import { clientFor, lowdbFor, eventually, openTestEngine, tempDataDir } from '../helpers/engine.ts';
import {
  expectOrdersEndRight,
  scenarioOrders,
  seededRandom,
  shuffle,
  type ScenarioOrder,
} from '../helpers/scenarios.ts';
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
  {
    name: '30% HTTP 500, after the change was made',
    faults: { failureRate: 0.3, failureStatus: 500, failurePhase: 'after' },
  },
  { name: '10% timeouts, after the change was made', faults: { hangRate: 0.1, hangMs: 1_500, failurePhase: 'after' } },
  {
    name: 'bursts of 429 with Retry-After',
    faults: { forced: { status: 429, count: 10, retryAfterSeconds: 1, everyMs: 5_000 } },
  },
  { name: `connection refused`, faults: {}, outage: true },
  {
    name: '20% HTTP 200 with a failure envelope',
    faults: { failureRate: 0.2, failureStatus: 200, failureMessage: 'Temporarily unavailable' },
  },
];

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

export async function runProfile(
  profile: Profile,
  seed: number,
): Promise<{ sandbox: TestSandbox; engine: Engine; orders: ScenarioOrder[] }> {
  const sandbox = await startTestSandbox(
    { rateLimit: 1_000_000, faults: profile.faults },
    profile.outage ? 'kept' : 'os',
  );
  const engine = await openEngine({
    store: lowdbFor(),
    client: clientFor(sandbox, { timeoutMs: 400, maxRetries: 1, minRetryDelayMs: 20, maxRetryDelayMs: 100 }),
    policy: DEFAULT_POLICY,
    earnActivityId: '1',
    logger: createLogger({ level: 'silent' }),
    // A failure in words the service does not document ("Temporarily unavailable" on HTTP 200) is retried
    // LOYALTY_UNKNOWN_FAILURE_RETRIES times (5) and then dead-lettered, by design. At 20% random failures six in a row
    // come about once in 15,000 calls, so a 500-order run would now and then dead-letter one order: the bound
    // working, not an order lost, but not what this test is about. With 20 retries that is once in 10^14.
    worker: { retryMinDelayMs: 50, retryMaxDelayMs: 1_000, maxUnknownFailures: 20 },
  });
  await engine.startWorker();
  const random = seededRandom(seed);
  const orders = scenarioOrders(ORDERS_PER_PROFILE, 10_000_000 + seed * 100_000, random, `fault${seed}`);
  const deliveries = shuffle(
    orders.flatMap((order) => order.events.map((event) => ({ key: event.deliveryId, event }))),
    random,
  );
  const outage = profile.outage ? sandbox.outage(OUTAGE_MS) : Promise.resolve();
  await Promise.all(deliveries.map(({ key, event }) => engine.accept(key, [event])));
  await outage;
  return { sandbox, engine, orders };
}

describe(`${ORDERS_PER_PROFILE} orders through each fault profile end in their right state`, () => {
  PROFILES.forEach((profile, index) => {
    it(
      profile.name,
      async () => {
        const { sandbox, engine, orders } = await runProfile(profile, index + 1);
        cleanup.push(
          () => sandbox.close(),
          () => engine.stop(1_000),
        );
        await eventually(
          () => expectOrdersEndRight(sandbox.store.snapshot(), orders),
          Number(process.env.FAULT_WAIT_MS ?? 45_000),
        );
        expect(await engine.store.listDeadLetters()).toEqual([]);
        reportToSoak({
          faultsInjected: sandbox.faults.injected + (profile.outage ? 1 : 0),
          faultOrders: orders.length,
        });
      },
      Number(process.env.FAULT_WAIT_MS ?? 45_000) + 15_000,
    );
  });
});

describe('permanent errors', () => {
  it.each([
    [400, 'Invalid Source'],
    [402, 'Invalid URL'],
  ])('%i %s: one attempt, then a dead letter with the service message', async (status, message) => {
    const sandbox = await startTestSandbox({
      rateLimit: 1_000_000,
      faults: { forced: { status, count: 1_000, message } },
    });
    const engine = await openTestEngine(sandbox, {
      client: clientFor(sandbox, { maxRetries: 3, minRetryDelayMs: 10 }),
      worker: { retryMinDelayMs: 10, retryMaxDelayMs: 20 },
    });
    cleanup.push(
      () => sandbox.close(),
      () => engine.stop(1_000),
    );
    await engine.startWorker();
    // An order that earns and was not referred: its one call is the earn the service refuses.
    const chosen = scenarioOrders(20, 20_000_000 + status * 100, seededRandom(status), `perm${status}`).find(
      (candidate) => candidate.expected !== 'none' && !candidate.referred,
    )!;
    for (const event of chosen.events) await engine.accept(event.deliveryId, [event]);
    await engine.drain();
    const letters = await engine.store.listDeadLetters();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ httpStatus: status, operation: 'earn' });
    expect(letters[0]?.reason).toContain(message);
    const record = await engine.store.getOrder(`perm${status}:shop:${chosen.orderId}`);
    expect(record?.calls).toHaveLength(1);
    expect(record?.calls[0]).toMatchObject({ outcome: 'failed', attempts: 1 });
    // Nothing loops: the order is due never again, so no worker takes it up (before, a 300 ms sleep, which proved
    // only that no retry came within it, and less on a loaded machine).
    expect(record?.dueAt).toBeNull();
  });
});

describe('refused credentials', () => {
  it('pause every call instead of dead-lettering orders one by one, raise the alarm once, and resume when a probe is let in', async () => {
    const sandbox = await startTestSandbox({
      rateLimit: 1_000_000,
      faults: { forced: { status: 401, count: 1_000, message: 'Invalid auth' } },
    });
    const client = clientFor(sandbox, { maxRetries: 0 });
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) },
    });
    const pauses: boolean[] = [];
    let probes = 0;
    const engine = await openTestEngine(sandbox, {
      client,
      probe: () => {
        probes++;
        return client.transactions({ type: 'earn', email: 'probe@loyalty-bridge.invalid' });
      },
      probeDelayMs: 50,
      onPauseChange: (paused) => pauses.push(paused),
      logger,
      worker: { retryMinDelayMs: 10, retryMaxDelayMs: 20 },
    });
    cleanup.push(
      () => sandbox.close(),
      () => engine.stop(1_000),
    );
    await engine.startWorker();
    const orders = scenarioOrders(30, 30_000_000, seededRandom(401), 'auth').filter(
      (order) => order.expected !== 'none',
    );
    for (const order of orders) for (const event of order.events) await engine.accept(event.deliveryId, [event]);
    await eventually(async () => expect((await engine.accounts.all())[0]!.authPause.paused).toBe(true));
    // The calls under way when the pause came have ended: the worker holds nothing.
    await eventually(() => expect(engine.worker.stats.inFlight).toBe(0));
    // While paused only the probe asks the service, not every order over again: while the probe asks twice more
    // (its delay doubling from 50 ms), the service hears nothing else, though the orders' retries come every 10 to
    // 20 ms. (Before, sleeps of 300 and 500 ms, which a loaded machine could fill with less than they meant.)
    const during = { injected: sandbox.faults.injected, probes };
    await eventually(() => expect(probes).toBeGreaterThanOrEqual(during.probes + 2));
    // (One probe more, if one was on its way as this began.)
    expect(sandbox.faults.injected - during.injected).toBeLessThanOrEqual(probes - during.probes + 1);
    // Paused: no dead letter, no order given up, one alarm line however many orders wait.
    expect(await engine.store.listDeadLetters()).toEqual([]);
    expect(lines.filter((line) => line.level >= 50 && /refuses our credentials/.test(line.msg))).toHaveLength(1);
    expect(pauses).toEqual([true]);

    // The credentials are put right (here: the service stops refusing). The probe is let in; every order moves.
    sandbox.faults.configure({});
    await eventually(async () => expect((await engine.accounts.all())[0]!.authPause.paused).toBe(false));
    await eventually(() => expectOrdersEndRight(sandbox.store.snapshot(), orders));
    expect(pauses).toEqual([true, false]);
    expect(await engine.store.listDeadLetters()).toEqual([]);
  });
});

describe('refused credentials, while the probe waits its turn', () => {
  it('leave the paused account’s orders waiting, not claimed and let go again and again until it answers', async () => {
    const store = new LowdbStore({ dataDir: tempDataDir() });
    await store.open();
    let saves = 0;
    const counted = storeWith(store, {
      saveProgress: (record, options) => {
        saves++;
        return store.saveProgress(record, options);
      },
    });
    // The probe waits in the limiter (its turn, or a Retry-After of minutes): it answers only when the test ends.
    let answer: () => void = () => undefined;
    const account = {
      ...fakeAccount('a', []),
      authPause: new AuthPause({
        probe: () => new Promise<void>((resolve) => (answer = resolve)),
        logger: createLogger({ level: 'silent' }),
        onResume: () => undefined,
        minProbeDelayMs: 200,
      }),
    };
    account.authPause.pause();
    const { worker, stop } = budgetWorker(counted, [account], { 'shop-a': 'a' });
    cleanup.push(
      () => store.close(),
      () => stop(),
      async () => answer(),
    );
    await foldOrder(store, 'live', 'shop-a');
    worker.start();
    // The probe starts 200 ms after the pause and does not answer; meanwhile and after, the order waits.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Before: the order was due at the probe's past time, so each save let it go due at once: hundreds a second.
    expect(saves).toBeLessThanOrEqual(10);
  });
});

describe('a failure of our own', () => {
  it('(the shared rate limit unreachable, say) is retried, not put before a person: the service never judged the call', async () => {
    const sandbox = await startTestSandbox({ rateLimit: 1_000_000 });
    const client = clientFor(sandbox, { maxRetries: 0 });
    // The first two earns fail before they leave, as the limiter's database fails; the error is no answer of the service's.
    let failures = 2;
    const flaky = {
      earn: (input: Parameters<typeof client.earn>[0]) =>
        failures-- > 0 ? Promise.reject(new Error('Connection terminated unexpectedly')) : client.earn(input),
      updatePoints: client.updatePoints.bind(client),
      redeem: client.redeem.bind(client),
      addConversion: client.addConversion.bind(client),
      confirmConversion: client.confirmConversion.bind(client),
    };
    const engine = await openTestEngine(sandbox, {
      client: flaky,
      worker: { retryMinDelayMs: 10, retryMaxDelayMs: 20 },
    });
    cleanup.push(
      () => sandbox.close(),
      () => engine.stop(1_000),
    );
    await engine.startWorker();
    const order = scenarioOrders(20, 40_000_000, seededRandom(7), 'own').find(
      (candidate) => candidate.expected !== 'none',
    )!;
    for (const event of order.events) await engine.accept(event.deliveryId, [event]);
    await eventually(() => expectOrdersEndRight(sandbox.store.snapshot(), [order]));
    expect(await engine.store.listDeadLetters()).toEqual([]);
    expect(failures).toBeLessThan(0);
  });
});
