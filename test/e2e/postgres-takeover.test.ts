// A bridge killed mid-burst on a shared PostgreSQL ledger, with the default
// lease settings (issue 17, item 11): the other bridge takes over the orders
// and inbox entries the dead one held, and every acknowledged order is earned
// within 60 s of the kill. Real processes, a real SIGKILL: the dead one
// releases nothing.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../helpers/engine.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { heldBy, instanceOf, sendPaidOrders, startSharedBridge } from '../helpers/takeover.ts';

const ORDERS = Number(process.env.TAKEOVER_ORDERS ?? 300);
/** Deliveries sent to the victim before it is killed. */
const BEFORE_KILL = Math.floor(ORDERS / 2);

let database: TestDatabase;
let sandbox: TestSandbox;
beforeAll(async () => {
  if (!postgresAvailable()) return;
  database = await freshDatabase();
  // Calls take a while, so that the victim holds orders in the middle of their calls when it dies.
  sandbox = await startTestSandbox({ rateLimit: 100_000, faults: { latencyMs: 150 } });
});
afterAll(async () => {
  if (!postgresAvailable()) return;
  await sandbox.close();
  await database.drop();
});

const start = () => startSharedBridge(database.url, sandbox.url);

it.skipIf(!postgresAvailable())(
  'with default lease settings, a SIGKILLed bridge’s orders and inbox entries are taken over, and every acknowledged order is earned within 60 s of the kill',
  async () => {
    const [victim, survivor] = await Promise.all([start(), start()]);
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const orderIds = Array.from({ length: ORDERS }, (_, n) => String(5_300_000 + n));
      // The first half all go to the victim; it dies holding what it claimed.
      const acknowledged = await sendPaidOrders(orderIds.slice(0, BEFORE_KILL), victim);
      const victimOwner = instanceOf(victim);
      victim.child.kill('SIGKILL');
      const killedAt = Date.now();
      const held = () => heldBy(db, victimOwner);
      const atKill = await held();
      // The test means something only if the victim died holding work.
      expect(
        atKill.orders + atKill.inbox,
        `the victim (${victimOwner}) held nothing when killed:\n${victim.output().slice(-2000)}`,
      ).toBeGreaterThan(0);

      // The rest of the burst, to the one left.
      acknowledged.push(...(await sendPaidOrders(orderIds.slice(BEFORE_KILL), survivor)));
      await eventually(
        async () => expect(await held()).toEqual({ orders: 0, inbox: 0 }),
        60_000 - (Date.now() - killedAt),
      );
      const takenOverMs = Date.now() - killedAt;
      await eventually(
        () => {
          const earned = new Set(sandbox.store.snapshot().earnings.map((earning) => earning.orderId));
          expect(acknowledged.filter((orderId) => !earned.has(orderId))).toEqual([]);
        },
        Math.max(0, 60_000 - (Date.now() - killedAt)),
      );
      const earnedMs = Date.now() - killedAt;
      process.stdout.write(
        `takeover: the victim held ${atKill.orders} orders and ${atKill.inbox} inbox entries; all taken over ${takenOverMs} ms and all ${acknowledged.length} earned ${earnedMs} ms after the kill\n`,
      );
      expect(acknowledged).toHaveLength(ORDERS);
    } finally {
      await db.end();
      await survivor.stop('SIGTERM');
      if (victim.child.exitCode === null && victim.child.signalCode === null) await victim.stop('SIGKILL');
    }
  },
  150_000,
);
