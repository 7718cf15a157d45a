// The lowdb store's own promises, beyond the shared contract: a settle never
// drops a change it did not write; settled orders leave memory and come back
// when needed; read-only opens change nothing; and every acknowledgement is
// fsynced first (traced on a real process).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { startCli } from '../helpers/cli-process.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { tools } from '../helpers/test-tools.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';

let sequence = 0;
async function fold(store: LowdbStore, ...events: OrderEvent[]) {
  const key = `e-${++sequence}`;
  await store.accept({ key, aliases: [], receivedAt: new Date().toISOString(), events, retry: null });
  const claimed = await store.claimInbox('me', 100);
  await store.commitIntake(
    claimed.map((each) => ({ entryKey: each.key, ...(each.events ? { events: each.events } : {}) })),
  );
}

/** Marks every due order done, as a worker with nothing to call would. */
async function finish(store: LowdbStore) {
  for (const record of await store.claimDue('me', 1_000))
    await store.saveProgress(
      { ...record, dueAt: null, target: { state: 'earned' } },
      { owner: 'me', release: true, leaseMs: 0 },
    );
}

const settledFiles = (dataDir: string) =>
  readdirSync(join(dataDir, 'orders'))
    .filter((name) => name.startsWith('settled-'))
    .map((name) => readFileSync(join(dataDir, 'orders', name), 'utf8'))
    .join('');

describe('settling', () => {
  it('keeps an order that an event changed while it was being settled, with the event', async () => {
    const dataDir = tempDataDir();
    const store = new LowdbStore({ dataDir, settleAfterMs: 1 });
    await store.open();
    const event = orderEvent({ orderId: '5001', facts: ['paid'] });
    await fold(store, event);
    await finish(store);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // The settle starts writing the chunk; meanwhile the order is refunded.
    const settling = store.settleQuiet();
    const folding = fold(store, { ...event, deliveryId: 'refund', facts: ['fullyRefunded'] });
    await Promise.all([settling, folding]);
    const key = 'testshop:shop-1:5001';
    // Still in memory, due, with the refund: the worker sees it now, not after a restart.
    expect((await store.claimDue('me', 100)).map((record) => [record.key, record.facts])).toEqual([
      [key, ['paid', 'fullyRefunded']],
    ]);
    await store.close();
    const reopened = new LowdbStore({ dataDir, readOnly: true });
    await reopened.open();
    expect((await reopened.getOrder(key))?.facts).toEqual(['paid', 'fullyRefunded']);
  });

  it('keeps an order that a worker saved while it was being settled', async () => {
    const store = new LowdbStore({ dataDir: tempDataDir(), settleAfterMs: 1 });
    await store.open();
    await fold(store, orderEvent({ orderId: '5002', facts: ['paid'] }));
    const [record] = await store.claimDue('me', 10);
    await store.saveProgress({ ...record!, dueAt: null }, { owner: 'me', release: true, leaseMs: 0 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const settling = store.settleQuiet();
    // A person retries a call of the order: due again.
    const changing = store.updateProgress('testshop:shop-1:5002', (order) => void (order.work.held = {}));
    await Promise.all([settling, changing]);
    expect((await store.claimDue('me', 10)).map((each) => each.key)).toEqual(['testshop:shop-1:5002']);
  });

  it('takes settled orders out of memory, finds them again, and counts them without reading them', async () => {
    const dataDir = tempDataDir();
    const store = new LowdbStore({ dataDir, settleAfterMs: 1, settledChunkSize: 10 });
    await store.open();
    for (let i = 0; i < 35; i++) await fold(store, orderEvent({ orderId: String(6000 + i), facts: ['paid'] }));
    await finish(store);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // The store's own sweeper (every second) may have settled some already, on a slow machine: together, all 35.
    expect(await store.settleQuiet()).toBeLessThanOrEqual(35);
    expect((await store.stats()).activeOrders).toBe(0);
    expect((await store.countOrders()).byState).toEqual({ earned: 35 });
    expect(readdirSync(join(dataDir, 'orders')).filter((name) => name.startsWith('settled-'))).toHaveLength(4);
    expect(settledFiles(dataDir)).toContain('testshop:shop-1:6034');
    await store.close();

    const reopened = new LowdbStore({ dataDir, settleAfterMs: 1, settledChunkSize: 10 });
    await reopened.open();
    expect((await reopened.stats()).activeOrders).toBe(0);
    expect((await reopened.countOrders()).byState).toEqual({ earned: 35 });
    expect((await reopened.getOrder('testshop:shop-1:6017'))?.facts).toEqual(['paid']);
    const page = await reopened.listOrders({ page: 1, limit: 5 });
    expect(page.total).toBe(35);
    expect(page.orders).toHaveLength(5);
    // An event for a settled order brings it back into memory, with everything it had.
    await fold(reopened, orderEvent({ orderId: '6017', facts: ['fulfilled'] }));
    expect(await reopened.getOrder('testshop:shop-1:6017')).toMatchObject({
      facts: ['paid', 'fulfilled'],
      target: { state: 'earned' },
    });
    expect((await reopened.stats()).activeOrders).toBe(1);
    await reopened.close();
  });
});

describe('read-only opens', () => {
  it('never delete or write anything, even an inbox file cut short', async () => {
    const dataDir = tempDataDir();
    const store = new LowdbStore({ dataDir });
    await store.open();
    await fold(store, orderEvent({ orderId: '7001', facts: ['paid'] }));
    await store.close();
    writeFileSync(join(dataDir, 'inbox', '000000999999.json'), '{"entries":[{"key":"half');
    const before = JSON.stringify(snapshot(dataDir));
    const reader = new LowdbStore({ dataDir, readOnly: true });
    await reader.open();
    expect(await reader.getOrder('testshop:shop-1:7001')).toBeDefined();
    await reader.close();
    expect(JSON.stringify(snapshot(dataDir))).toBe(before);
  });
});

function snapshot(dir: string, into: Record<string, string> = {}): Record<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) snapshot(path, into);
    else into[path] = `${statSync(path).mtimeMs}:${readFileSync(path, 'utf8')}`;
  }
  return into;
}

describe.skipIf(!tools.strace)('durability, traced on a real process', () => {
  it('fdatasyncs each acknowledged batch, and its directory, before the answer', async () => {
    const dataDir = tempDataDir();
    const bridge = await startCli(['start'], {
      DATA_DIR: dataDir,
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      SHOPIFY_SHOPS: SHOP,
      RECONCILE_INTERVAL_MINUTES: '0',
    });
    const trace = join(dataDir, '..', `trace-${process.pid}-${sequence++}.txt`);
    // Attached to the running bridge: what it does for the deliveries below, and nothing before.
    const strace = spawn('strace', ['-f', '-e', 'trace=fdatasync,fsync', '-o', trace, '-p', String(bridge.child.pid)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const straceExited = new Promise((resolve) => strace.once('exit', resolve));
    try {
      // strace says on stderr once it has attached (to every thread, with -f): from then on each sync is traced.
      // (Before, a 500 ms sleep: a loaded machine could outlast it, and the first deliveries' syncs went uncounted.)
      await new Promise<void>((resolve, reject) => {
        let said = '';
        strace.stderr.on('data', (chunk: Buffer) => {
          said += chunk.toString();
          if (/Process \d+ attached/.test(said)) resolve();
        });
        void straceExited.then((code) =>
          reject(new Error(`strace exited (${String(code)}) before it attached: ${said}`)),
        );
      });
      for (let i = 0; i < 20; i++) {
        const body = shopifyOrderJson({ id: String(8800 + i) });
        const response = await fetch(`${bridge.url}/webhooks/shopify`, {
          method: 'POST',
          headers: shopifyHeaders({ topic: 'orders/paid', body, webhookId: `traced-${i}` }),
          body,
        });
        expect(response.status).toBe(200);
      }
    } finally {
      strace.kill('SIGINT');
      await straceExited;
      await bridge.stop('SIGTERM');
    }
    const syncs = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((line) => /\b(fdatasync|fsync)\(/.test(line)).length;
    // Each of the 20 deliveries was acknowledged one after the other: each its own batch, its file and its directory synced.
    expect(syncs).toBeGreaterThanOrEqual(40);
  }, 60_000);
});
