// Large resyncs through Shopify's bulk operations, against the fake Shopify
// (which runs the bulk query on Shopify's published schema and serves the
// JSONL result): counted first, one operation started, polled with backoff,
// the result streamed into the resync with its progress; small windows keep
// paging; one operation at a time per shop, across instances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShopifyAccess } from '../../adapters/shopify/access.ts';
import { ShopifyAdminApi } from '../../adapters/shopify/admin-api.ts';
import {
  fetchShopifyOrdersInBulk,
  shopifyOrdersInWindow,
  type BulkOptions,
} from '../../adapters/shopify/bulk-orders.ts';
import { resync, type ResyncProgress } from '../../src/core/resync.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { shopifyOrderNode, startFakeShopify, type FakeShopify } from '../helpers/fake-shopify.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { freshStore, openStoreOn } from '../helpers/postgres-store.ts';
import { SHOPIFY_SECRET } from '../helpers/shopify.ts';

const VERSION = '2026-10';
const TOKEN = 'shpat_bulk_test_token';
let fake: FakeShopify;
let store: LowdbStore;

const api = (shop: string, sleeps: number[] = []) =>
  new ShopifyAdminApi({
    shop,
    access: new ShopifyAccess({ store, ownShop: shop, legacyToken: `${TOKEN}_${shop}` }),
    apiVersion: VERSION,
    baseUrl: fake.adminUrl(shop),
    sleep: async (ms) => void sleeps.push(ms),
  });

const orders = (shop: string, count: number) => {
  const held = fake.shop(shop).orders;
  held.clear();
  for (let i = 0; i < count; i++) {
    const id = String(7_000_000_000 + i);
    held.set(
      id,
      shopifyOrderNode(id, {
        updatedAt: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(),
        phone: '+44 7700 900123',
      }),
    );
  }
};

const window = { since: new Date('2026-10-30T00:00:00Z'), until: new Date('2026-11-20T00:00:00Z') };
const counting = { events: async () => 'accepted' as const };
const operations = (shop: string, name: string) =>
  fake.requests.filter((request) => request.shop === shop && request.what === name).length;

beforeAll(async () => {
  fake = await startFakeShopify({ apiKey: 'client-id', apiSecret: SHOPIFY_SECRET });
  for (const shop of [
    'bulk-store.myshopify.com',
    'small-store.myshopify.com',
    'busy-store.myshopify.com',
    'hidden-store.myshopify.com',
    'shared-store.myshopify.com',
  ])
    fake.registerToken(`${TOKEN}_${shop}`, shop);
  store = new LowdbStore({ dataDir: tempDataDir() });
  await store.open();
});
afterAll(async () => {
  await store.close();
  await fake.close();
});

/** Short waits, really waited (two resyncs of one shop take turns on the lock), and noted. */
const options = (waits: number[] = []): BulkOptions => ({
  threshold: 2500,
  exclusive: (name, fn) => store.exclusive(name, fn),
  pollMs: 5,
  maxPollMs: 20,
  sleep: (ms) => {
    waits.push(ms);
    return new Promise((resolve) => setTimeout(resolve, ms));
  },
});

describe('a resync of a large window', () => {
  it('reads 50,000 orders through one bulk operation, polled with backoff, with the count as its progress', async () => {
    const shop = 'bulk-store.myshopify.com';
    orders(shop, 50_000);
    fake.bulkPolls = 3;
    const waits: number[] = [];
    const seen: ResyncProgress[] = [];
    const result = await resync(shopifyOrdersInWindow(api(shop), window, options(waits)), counting, (progress) => {
      if (progress.fetched % 10_000 === 0) seen.push({ ...progress });
    });
    expect(result).toMatchObject({ fetched: 50_000, changed: 50_000, failed: 0, expected: 50_000 });
    expect(seen.map((progress) => `${progress.fetched}/${progress.expected}`)).toEqual([
      '10000/50000',
      '20000/50000',
      '30000/50000',
      '40000/50000',
      '50000/50000',
    ]);
    expect(operations(shop, 'LoyaltyBridgeBulkOrders')).toBe(1);
    // Still RUNNING three times, then done: each wait longer than the one before.
    expect(operations(shop, 'LoyaltyBridgeBulkStatus')).toBe(4);
    expect(waits).toEqual([5, 8, 12, 18]);
    // One order read the usual way, to learn whether contact data is withheld; no paging.
    expect(operations(shop, 'LoyaltyBridgeOrders')).toBe(1);
    // About 3 s on an idle machine: the volume's time follows the machine (it took over 30 s beside three
    // browser-driving jobs on two cores), so its guard is wide; the speed is the bench's to measure, not this test's.
  }, 120_000);

  it('gives the same orders, with the same delivery ids, as paging does', async () => {
    const shop = 'small-store.myshopify.com';
    orders(shop, 120);
    const paged = [];
    for await (const event of shopifyOrdersInWindow(api(shop), window, { ...options(), threshold: 1000 }))
      paged.push(event);
    expect(operations(shop, 'LoyaltyBridgeBulkOrders')).toBe(0);
    expect(operations(shop, 'LoyaltyBridgeOrders')).toBe(2);
    const bulk = [];
    for await (const event of shopifyOrdersInWindow(api(shop), window, { ...options(), threshold: 100 }))
      bulk.push(event);
    expect(operations(shop, 'LoyaltyBridgeBulkOrders')).toBe(1);
    expect(bulk).toEqual(paged);
    expect(bulk[0]).toMatchObject({
      customer: { email: 'ada@example.com', mobile: '+447700900123' },
      protectedDataHidden: false,
    });
  });

  it('marks the orders hidden when Shopify withholds protected customer data', async () => {
    const shop = 'hidden-store.myshopify.com';
    orders(shop, 30);
    fake.protectedDataGranted = false;
    try {
      const events = [];
      for await (const event of fetchShopifyOrdersInBulk(api(shop), window, options())) events.push(event);
      expect(events).toHaveLength(30);
      expect(events.every((event) => event.protectedDataHidden && event.customer.email === null)).toBe(true);
    } finally {
      fake.protectedDataGranted = true;
    }
  });

  it('runs one bulk operation at a time per shop, so that two resyncs at once take turns', async () => {
    const shop = 'busy-store.myshopify.com';
    orders(shop, 3000);
    fake.bulkPolls = 4;
    const [first, second] = await Promise.all([
      resync(shopifyOrdersInWindow(api(shop), window, options()), counting),
      resync(shopifyOrdersInWindow(api(shop), window, options()), counting),
    ]);
    expect([first.fetched, second.fetched]).toEqual([3000, 3000]);
    expect(operations(shop, 'LoyaltyBridgeBulkOrders')).toBe(2);
    expect(fake.shop(shop).mostBulkAtOnce).toBe(1);
  });
});

describe('when the bulk operation does not go smoothly', () => {
  const shop = 'bulk-store.myshopify.com';
  const collect = async (source: AsyncIterable<unknown>) => {
    let count = 0;
    for await (const _ of source) count++;
    return count;
  };

  it('reads a result whose download outlasts any fixed limit, as long as it keeps coming', async () => {
    orders(shop, 300);
    fake.bulkPolls = 1;
    fake.bulkChunkDelayMs = 10;
    try {
      // About 3 s of download, each line within 10 ms of the last: an idle limit of 1.5 s holds, a limit on the whole
      // would not. (500 ms of idle was passed by a loaded machine's pause, with coverage on: issue 67.)
      expect(await collect(fetchShopifyOrdersInBulk(api(shop), window, { ...options(), downloadIdleMs: 1_500 }))).toBe(
        300,
      );
    } finally {
      fake.bulkChunkDelayMs = 0;
    }
  });

  it('does not take a result cut short for the whole', async () => {
    orders(shop, 40);
    fake.bulkPolls = 2;
    let cut = false;
    const cutting: BulkOptions = {
      ...options(),
      sleep: async () => {
        // While Shopify still runs it, the stored result loses its last lines, as a connection closed early would.
        for (const operation of fake.shop(shop).bulkOperations.values()) {
          if (operation.status === 'RUNNING' && !cut) {
            operation.lines = operation.lines.slice(0, 30);
            cut = true;
          }
        }
      },
    };
    await expect(collect(fetchShopifyOrdersInBulk(api(shop), window, cutting))).rejects.toThrow(
      /ended after 30 of 40 orders/,
    );
  });

  it('pages the window instead when Shopify fails the operation for a missing scope', async () => {
    orders(shop, 300);
    fake.bulkPolls = 1;
    fake.bulkFailNext = 'ACCESS_DENIED';
    const pagesBefore = operations(shop, 'LoyaltyBridgeOrders');
    const result = await resync(shopifyOrdersInWindow(api(shop), window, { ...options(), threshold: 100 }), counting);
    expect(result).toMatchObject({ fetched: 300, failed: 0 });
    // The probe, then three pages of 100 (and a last, empty one is not asked for).
    expect(operations(shop, 'LoyaltyBridgeOrders') - pagesBefore).toBe(1 + 3);
  });

  it('cancels an operation it gives up waiting for, so that it does not hold one of the shop’s places', async () => {
    orders(shop, 50);
    fake.bulkPolls = 1_000;
    await expect(collect(fetchShopifyOrdersInBulk(api(shop), window, { ...options(), maxWaitMs: 50 }))).rejects.toThrow(
      /did not finish in time/,
    );
    const last = [...fake.shop(shop).bulkOperations.values()].at(-1);
    expect(last?.status).toBe('CANCELED');
    fake.bulkPolls = 2;
  });
});

describe.skipIf(!postgresAvailable())('two bridges on one PostgreSQL', () => {
  it('run one bulk operation at a time for a shop between them', async () => {
    const shop = 'shared-store.myshopify.com';
    orders(shop, 2600);
    fake.bulkPolls = 4;
    const first = await freshStore();
    const second = await openStoreOn(first.database.url);
    try {
      const on = (opened: typeof first | typeof second) =>
        shopifyOrdersInWindow(api(shop), window, {
          ...options(),
          exclusive: (name, fn) => opened.store.exclusive(name, fn),
        });
      const results = await Promise.all([resync(on(first), counting), resync(on(second), counting)]);
      expect(results.map((result) => result.fetched)).toEqual([2600, 2600]);
      expect(fake.shop(shop).mostBulkAtOnce).toBe(1);
    } finally {
      await second.close();
      await first.close();
    }
  });
});
