// Several bridges on one PostgreSQL ledger, as a merchant runs them behind
// one address: three real processes share a burst of signed Shopify
// deliveries, and are killed with SIGKILL at random moments and started again.
// Every acknowledged delivery must end in its right state in the sandbox,
// nothing doubled, and the sandbox (whose rate limit the three must share)
// must never have refused a call for the rate.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCli, type RunningCli } from '../helpers/cli-process.ts';
import { eventually } from '../helpers/engine.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import {
  expectOrdersEndRight,
  scenarioOrders,
  seededRandom,
  shopifyDeliveries,
  shuffle,
} from '../helpers/scenarios.ts';
import { SANDBOX_CREDENTIALS, startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders } from '../helpers/shopify.ts';

const INSTANCES = 3;
const ORDERS = Number(process.env.SHARED_ORDERS ?? 150);
const KILLS = Number(process.env.SHARED_KILLS ?? 4);
/** The service's limit, over a window scaled from a minute to 6 s so that the test outlasts several windows. */
const LIMIT = 240;
const WINDOW_S = 6;

let database: TestDatabase;
let sandbox: TestSandbox;
beforeAll(async () => {
  if (!postgresAvailable()) return;
  database = await freshDatabase();
  // Some latency upstream, so that kills land while calls are under way.
  sandbox = await startTestSandbox({ rateLimit: LIMIT, rateWindowMs: WINDOW_S * 1000, faults: { latencyMs: 10 } });
});
afterAll(async () => {
  if (!postgresAvailable()) return;
  await sandbox.close();
  await database.drop();
});

const instanceEnv = () => ({
  DATABASE_URL: database.url,
  LOYALTY_BASE_URL: sandbox.url,
  LOYALTY_API_KEY: SANDBOX_CREDENTIALS.apiKey,
  LOYALTY_BRAND_ID: SANDBOX_CREDENTIALS.brandId,
  LOYALTY_RATE_LIMIT_PER_MINUTE: String(LIMIT),
  LOYALTY_RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_S),
  LOYALTY_MAX_RETRIES: '0',
  WORKER_LEASE_SECONDS: '5',
  RECONCILE_INTERVAL_MINUTES: '0',
  SHOPIFY_API_SECRET: SHOPIFY_SECRET,
  SHOPIFY_SHOPS: SHOP,
});
const startInstance = () => startCli(['start'], instanceEnv());

it.skipIf(!postgresAvailable())(
  `${INSTANCES} bridges on one database keep every order right through ${KILLS} SIGKILLs, within one shared rate limit`,
  async () => {
    const random = seededRandom(Number(process.env.SHARED_SEED ?? 11));
    const orders = scenarioOrders(ORDERS, 7_700_000, random, 'shared');
    const pending = shuffle(shopifyDeliveries(orders), random);
    const acknowledged = new Set<string>();
    const instances: Array<RunningCli | undefined> = await Promise.all(
      Array.from({ length: INSTANCES }, startInstance),
    );
    let next = 0;

    // Sixteen senders, as a platform sends, each to the next live instance: "one address".
    const send = async () => {
      while (pending.length > 0) {
        const delivery = pending.shift()!;
        const live = instances.filter((instance): instance is RunningCli => instance !== undefined);
        const target = live[next++ % Math.max(1, live.length)];
        try {
          if (!target) throw new Error('none up');
          const response = await fetch(`${target.url}/webhooks/shopify`, {
            method: 'POST',
            headers: shopifyHeaders({ topic: delivery.topic, body: delivery.body, webhookId: delivery.webhookId }),
            body: delivery.body,
          });
          if (response.status !== 200) throw new Error(`status ${response.status}`);
          acknowledged.add(`shopify:${delivery.webhookId}`);
        } catch {
          // Not acknowledged: the platform sends it again.
          pending.push(delivery);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    const senders = Promise.all(Array.from({ length: 16 }, send));

    // Kills while deliveries arrive and the instances call; each one is started again at once.
    for (let kill = 0; kill < KILLS; kill++) {
      await new Promise((resolve) => setTimeout(resolve, 300 + random() * 900));
      const victim = Math.floor(random() * INSTANCES);
      instances[victim]?.child.kill('SIGKILL');
      instances[victim] = undefined;
      instances[victim] = await startInstance();
    }
    await senders;
    try {
      await eventually(() => expectOrdersEndRight(sandbox.store.snapshot(), orders), 90_000).catch(
        async (error: unknown) => {
          // What the ledger holds, for whoever reads the failure.
          const client = new pg.Client({ connectionString: database.url });
          await client.connect();
          const { rows: orderRows } = await client.query(
            "SELECT key, state, fold, progress, due_at, lease_owner, lease_until FROM lb_orders WHERE state <> 'settled' OR order_id LIKE '%7700006' OR order_name LIKE '%7700006' LIMIT 8",
          );
          const { rows: inbox } = await client.query('SELECT count(*) FROM lb_inbox');
          await client.end();
          console.error(
            JSON.stringify({ orderRows, inbox }, null, 1),
            instances.map((instance) => instance?.output().slice(-3000)).join('\n----\n'),
          );
          throw error;
        },
      );
      expect(sandbox.refusedForRate).toBe(0);

      // Every acknowledged delivery is folded into its order. An order can end
      // right before a delivery that changes nothing is taken from the inbox,
      // so this is waited for too; a lost one would never arrive.
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        await eventually(async () => {
          const { rows } = await client.query<{ deliveries: string[] }>(
            "SELECT fold->'deliveries' AS deliveries FROM lb_orders",
          );
          const folded = new Set(rows.flatMap((row) => row.deliveries));
          const missing = [...acknowledged].filter((key) => !folded.has(key));
          const { rows: waiting } = await client.query<{ key: string }>(
            'SELECT key FROM lb_inbox WHERE key = ANY($1)',
            [missing],
          );
          expect({ missing, stillInInbox: waiting.map((row) => row.key) }).toEqual({ missing: [], stillInInbox: [] });
        }, 30_000);
        const { rows: letters } = await client.query('SELECT letter FROM lb_dead_letters');
        expect(letters).toEqual([]);
      } finally {
        await client.end();
      }
    } finally {
      await Promise.all(instances.map(async (instance) => instance?.stop('SIGTERM')));
    }
  },
  150_000,
);

it.skipIf(!postgresAvailable())(
  'restarted one at a time behind a load balancer that follows /readyz, the bridges refuse no delivery',
  async () => {
    const env = () => ({ SHUTDOWN_GRACE_SECONDS: process.env.ROLLING_GRACE ?? '2' });
    const start = () => startCli(['start'], { ...instanceEnv(), ...env() });
    const instances: RunningCli[] = await Promise.all([start(), start()]);
    // The load balancer's view: which instances answer /readyz with 200, looked at every 500 ms (real ones look less often).
    const ready = new Set<string>(instances.map((instance) => instance.url));
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        await Promise.all(
          instances.map(async (instance) => {
            const ok = await fetch(`${instance.url}/readyz`, { signal: AbortSignal.timeout(500) }).then(
              (response) => response.ok,
              () => false,
            );
            if (ok) ready.add(instance.url);
            else ready.delete(instance.url);
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();
    const random = seededRandom(21);
    const orders = scenarioOrders(100, 7_800_000, random, 'rolling');
    const pending = shuffle(shopifyDeliveries(orders), random);
    const refused: string[] = [];
    let next = 0;
    const send = async () => {
      for (let delivery = pending.shift(); delivery; delivery = pending.shift()) {
        const targets = [...ready];
        const target = targets[next++ % Math.max(1, targets.length)];
        if (!target) {
          pending.unshift(delivery);
          await new Promise((resolve) => setTimeout(resolve, 20));
          continue;
        }
        const status = await fetch(`${target}/webhooks/shopify`, {
          method: 'POST',
          headers: shopifyHeaders({ topic: delivery.topic, body: delivery.body, webhookId: delivery.webhookId }),
          body: delivery.body,
          signal: AbortSignal.timeout(10_000),
        }).then(
          (response) => response.status,
          (error: Error) => error.message,
        );
        if (status !== 200) refused.push(`${delivery.webhookId}: ${status}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    const senders = Promise.all(Array.from({ length: 4 }, send));
    try {
      for (let i = 0; i < instances.length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 400));
        const old = instances[i]!;
        // A clean stop, in bounded time, even with the load balancer's health checks arriving over keep-alive.
        expect(await old.stop('SIGTERM'), old.output().slice(-3000)).toBe(0);
        instances[i] = await start();
      }
      await senders;
      expect(refused).toEqual([]);
      await eventually(() => expectOrdersEndRight(sandbox.store.snapshot(), orders), 60_000);
    } finally {
      watching = false;
      await watcher;
      await Promise.all(instances.map((instance) => instance.stop('SIGTERM')));
    }
  },
  120_000,
);
