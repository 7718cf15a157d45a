// Durability by killing a real process: a child takes a burst of deliveries
// and is killed with SIGKILL at random moments, restarted on the same DATA_DIR
// each time, then drained. Every acknowledged delivery must be in the ledger,
// and the sandbox must hold every order exactly once, in its right state.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LowdbStore } from '../../src/core/store/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { scenarioOrders, seededRandom, shuffle } from '../helpers/scenarios.ts';
import { SANDBOX_CREDENTIALS, startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';

const CHILD = fileURLToPath(new URL('../helpers/engine-child.ts', import.meta.url));
const KILLS = Number(process.env.CRASH_KILLS ?? 3);
const ORDERS = Number(process.env.CRASH_ORDERS ?? 200);

let sandbox: TestSandbox;
beforeAll(async () => {
  // Some latency upstream, so that kills land while calls are under way.
  sandbox = await startTestSandbox({ rateLimit: 1_000_000, faults: { latencyMs: 15 } });
});
afterAll(() => sandbox.close());

async function startChild(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOYALTY_BASE_URL: sandbox.url, LOYALTY_API_KEY: SANDBOX_CREDENTIALS.apiKey, LOYALTY_BRAND_ID: SANDBOX_CREDENTIALS.brandId },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"([^"]+)"/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`child exited with ${code} before listening`)));
  });
  return { child, url };
}

const killed = (child: ChildProcess) => new Promise<void>((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) return resolve();
  child.once('exit', () => resolve());
  child.kill('SIGKILL');
});

it(`loses no acknowledged delivery and doubles nothing across ${KILLS} SIGKILLs`, async () => {
  const random = seededRandom(Number(process.env.CRASH_SEED ?? 7));
  const orders = scenarioOrders(ORDERS, 900_000, random, 'crash');
  const all = shuffle(orders.flatMap((order) => order.events.map((event) => ({ key: event.deliveryId, event }))), random);
  // A new wave of the burst each round, so every kill lands while deliveries arrive and the worker drains.
  const waveSize = Math.ceil(all.length / (KILLS + 1));
  const pending: typeof all = [];
  const acknowledged = new Set<string>();
  const dataDir = tempDataDir();

  for (let round = 0; round <= KILLS; round++) {
    const { child, url } = await startChild(dataDir);
    const last = round === KILLS;
    pending.push(...all.slice(round * waveSize, (round + 1) * waveSize));
    // Deliveries go in, 16 at a time, as a platform sends them; unacknowledged ones are sent again next round.
    const send = async () => {
      while (pending.length > 0) {
        const delivery = pending.shift()!;
        try {
          const response = await fetch(`${url}/deliveries`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: delivery.key, events: [delivery.event] }) });
          if (response.status !== 200) throw new Error(`status ${response.status}`);
          acknowledged.add(delivery.key);
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
      const drained = await fetch(`${url}/drain`, { method: 'POST' });
      expect(drained.status).toBe(200);
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    } else {
      await new Promise((resolve) => setTimeout(resolve, 30 + random() * 250));
      await killed(child);
      await senders;
      if (process.env.CRASH_VERBOSE) {
        const earned = sandbox.store.snapshot().earnings.length;
        console.log(`round ${round}: killed with ${acknowledged.size} acknowledged, ${pending.length} waiting, ${earned} earnings upstream`);
      }
    }
  }

  expect(pending).toEqual([]);
  // Zero lost: every acknowledged delivery was folded into its order.
  const ledger = await new LowdbStore({ dataDir }).load();
  const store = new LowdbStore({ dataDir });
  await store.load();
  const folded = new Set<string>();
  for (const order of ledger.activeOrders) for (const key of order.deliveries) folded.add(key);
  for (const key of ledger.settledKeys) for (const delivery of (await store.readSettled(key))?.deliveries ?? []) folded.add(delivery);
  expect([...acknowledged].filter((key) => !folded.has(key))).toEqual([]);

  // Zero doubled, and each order where it belongs.
  const state = sandbox.store.snapshot();
  for (const order of orders) {
    const earnings = state.earnings.filter((earning) => earning.orderId === order.orderId);
    expect(earnings.length, `earnings of ${order.orderId}`).toBeLessThanOrEqual(1);
    expect(earnings.find((earning) => earning.status !== 'cancelled')?.status ?? 'none', `order ${order.orderId}`).toBe(order.expected);
    expect(state.conversions.filter((conversion) => conversion.orderId === order.orderId).length, `conversions of ${order.orderId}`).toBe(order.referred ? 1 : 0);
  }
  expect(ledger.deadLetters).toEqual([]);
});
