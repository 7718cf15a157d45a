// A bridge SIGKILLed mid-burst on a shared PostgreSQL ledger, with default
// lease settings: how long until the other bridge has claimed everything the
// dead one held (target: under 15 s), and until every acknowledged order is
// earned. The sandbox answers slowly (150 ms a call), so that the victim dies
// holding orders in the middle of their calls.
import pg from 'pg';
import { startTestSandbox } from '../../test/helpers/sandbox-server.ts';
import { heldBy, instanceOf, sendPaidOrders, startSharedBridge } from '../../test/helpers/takeover.ts';
import { freshDatabase } from '../lib/databases.ts';
import { SECRET } from './ack.ts';

export interface TakeoverResult {
  orders: number;
  /** What the victim held when it died. */
  heldOrders: number;
  heldInbox: number;
  /** From the kill until no order or entry is leased by the victim any more. */
  takeoverMs: number;
  /** From the kill until every acknowledged order is earned in the sandbox. */
  earnedMs: number;
}

export async function takeoverScenario(orders: number): Promise<TakeoverResult> {
  const database = await freshDatabase();
  const sandbox = await startTestSandbox({ rateLimit: 1_000_000, faults: { latencyMs: 150 } });
  const start = () => startSharedBridge(database.url, sandbox.url, SECRET);
  const victim = await start();
  const survivor = await start();
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    const orderIds = Array.from({ length: orders }, (_, n) => String(8_100_000 + n));
    const half = Math.ceil(orders / 2);
    await sendPaidOrders(orderIds.slice(0, half), victim, SECRET);
    const owner = instanceOf(victim);
    victim.child.kill('SIGKILL');
    const killedAt = performance.now();
    const held = () => heldBy(db, owner);
    const atKill = await held();
    const rest = sendPaidOrders(orderIds.slice(half), survivor, SECRET);
    let takeoverMs: number | undefined;
    let earnedMs: number | undefined;
    const deadline = killedAt + 120_000;
    while ((takeoverMs === undefined || earnedMs === undefined) && performance.now() < deadline) {
      const now = performance.now();
      if (takeoverMs === undefined) {
        const still = await held();
        if (still.orders + still.inbox === 0) takeoverMs = now - killedAt;
      }
      if (earnedMs === undefined) {
        const earned = new Set(sandbox.store.snapshot().earnings.map((earning) => earning.orderId));
        if (orderIds.every((orderId) => earned.has(orderId))) earnedMs = now - killedAt;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await rest;
    return {
      orders,
      heldOrders: atKill.orders,
      heldInbox: atKill.inbox,
      takeoverMs: Math.round(takeoverMs ?? Number.NaN),
      earnedMs: Math.round(earnedMs ?? Number.NaN),
    };
  } finally {
    await db.end();
    await survivor.stop('SIGTERM');
    await sandbox.close();
    await database.drop();
  }
}
