// Durability by killing a real process: the real bridge (`loyalty-bridge
// start`) takes a burst of signed Shopify deliveries and is killed with
// SIGKILL at random moments, restarted on the same DATA_DIR each time, then
// drained. Every acknowledged delivery must be in the ledger, and the sandbox
// must hold every order exactly once, in its right state.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { startCli } from '../helpers/cli-process.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import {
  expectOrdersEndRight,
  scenarioOrders,
  seededRandom,
  shopifyDeliveries,
  shuffle,
} from '../helpers/scenarios.ts';
import { SANDBOX_CREDENTIALS, startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { reportToSoak } from '../helpers/soak-report.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders } from '../helpers/shopify.ts';

const KILLS = Number(process.env.CRASH_KILLS ?? 3);
const ORDERS = Number(process.env.CRASH_ORDERS ?? 200);

let sandbox: TestSandbox;
beforeAll(async () => {
  // Some latency upstream, so that kills land while calls are under way.
  sandbox = await startTestSandbox({ rateLimit: 1_000_000, faults: { latencyMs: 15 } });
});
afterAll(() => sandbox.close());

/** The real bridge, live against the test's sandbox, on the crash test's DATA_DIR. */
const startBridgeProcess = (dataDir: string) =>
  startCli(['start'], {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    LOYALTY_BASE_URL: sandbox.url,
    LOYALTY_API_KEY: SANDBOX_CREDENTIALS.apiKey,
    LOYALTY_BRAND_ID: SANDBOX_CREDENTIALS.brandId,
    LOYALTY_RATE_LIMIT_PER_MINUTE: '1000000',
    LOYALTY_MAX_RETRIES: '0',
    SHOPIFY_API_SECRET: SHOPIFY_SECRET,
    SHOPIFY_SHOPS: SHOP,
  });

it(`loses no acknowledged delivery and doubles nothing across ${KILLS} SIGKILLs`, async () => {
  const random = seededRandom(Number(process.env.CRASH_SEED ?? 7));
  const orders = scenarioOrders(ORDERS, 900_000, random, 'crash');
  const all = shuffle(shopifyDeliveries(orders), random);
  // A new wave of the burst each round, so every kill lands while deliveries arrive and the worker drains.
  const waveSize = Math.ceil(all.length / (KILLS + 1));
  const pending: typeof all = [];
  const acknowledged = new Set<string>();
  const dataDir = tempDataDir();

  for (let round = 0; round <= KILLS; round++) {
    const bridge = await startBridgeProcess(dataDir);
    const { url } = bridge;
    const last = round === KILLS;
    pending.push(...all.slice(round * waveSize, (round + 1) * waveSize));
    // 16 at a time, as a platform sends; what was not acknowledged is sent again next round, as Shopify retries.
    const send = async () => {
      while (pending.length > 0) {
        const delivery = pending.shift()!;
        try {
          const response = await fetch(`${url}/webhooks/shopify`, {
            method: 'POST',
            headers: shopifyHeaders({ topic: delivery.topic, body: delivery.body, webhookId: delivery.webhookId }),
            body: delivery.body,
          });
          if (response.status !== 200) throw new Error(`status ${response.status}`);
          acknowledged.add(`shopify:${delivery.webhookId}`);
          await new Promise((resolve) => setTimeout(resolve, random() * 30));
        } catch {
          pending.push(delivery);
          return;
        }
      }
    };
    const senders = Promise.all(Array.from({ length: 16 }, send));
    if (last) {
      await senders;
      // Drained when every order is where it belongs; then a clean stop.
      await eventually(() => expectOrdersEndRight(sandbox.store.snapshot(), orders), 30_000);
      await bridge.stop('SIGTERM');
    } else {
      await new Promise((resolve) => setTimeout(resolve, 30 + random() * 250));
      // Killed, and the next one started at once, without waiting for this one to be gone.
      bridge.child.kill('SIGKILL');
      await senders;
      if (process.env.CRASH_VERBOSE)
        console.log(
          `round ${round}: killed with ${acknowledged.size} acknowledged, ${pending.length} waiting, ${sandbox.store.snapshot().earnings.length} earnings upstream`,
        );
    }
  }

  expect(pending).toEqual([]);
  // Zero lost: every acknowledged delivery was folded into its order.
  const store = new LowdbStore({ dataDir, readOnly: true });
  await store.open();
  const folded = new Set<string>();
  for await (const item of store.exportAll())
    if (item.type === 'order') for (const key of item.record.deliveries) folded.add(key);
  expect([...acknowledged].filter((key) => !folded.has(key))).toEqual([]);

  // Zero doubled, and each order where it belongs.
  expectOrdersEndRight(sandbox.store.snapshot(), orders);
  expect(await store.listDeadLetters()).toEqual([]);
  reportToSoak({ crashesSurvived: KILLS, crashDeliveries: acknowledged.size });
  // Four bridge processes started one after another: 13 s on a quiet machine, past 30 s on CI's busiest minutes.
}, 90_000);
