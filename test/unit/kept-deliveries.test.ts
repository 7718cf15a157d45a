// The first start's trimming of deliveries an earlier release kept whole:
// done once, with the digest of the body as it came kept beside (what a
// destructive body is known again by); a delivery of a platform not
// configured at that start stays whole, and the start says how many, until
// a start where it is.
import { describe, expect, it } from 'vitest';
import { createShopifyAdapter } from '../../adapters/shopify/adapter.ts';
import { bodyDigest } from '../../src/core/delivery.ts';
import { KEPT_FIELDS_MIGRATION, trimEarlierDeliveries } from '../../src/core/kept-deliveries.ts';
import type { PlatformAdapter } from '../../src/core/platform-adapter.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { SHOP, SHOPIFY_SECRET, shopifyOrderJson } from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const logger = createLogger({ level: 'silent' });
const WHOLE = shopifyOrderJson({ id: '820982911946154509201' }).replace(
  '"line_items":',
  '"browser_ip":"203.0.113.5","line_items":',
);
const shopify = createShopifyAdapter({ apiSecrets: [SHOPIFY_SECRET] }) as PlatformAdapter<unknown>;

async function earlierLedger(): Promise<{ store: LowdbStore; body: () => Promise<string> }> {
  const store = new LowdbStore({ dataDir: tempDataDir() });
  await store.open();
  await store.accept({
    key: 'earlier-1',
    aliases: [],
    receivedAt: new Date().toISOString(),
    retry: null,
    delivery: {
      platform: 'shopify',
      topic: 'orders/paid',
      shop: SHOP,
      sentAt: new Date().toISOString(),
      headers: {},
      body: WHOLE,
      bodyEncoding: 'utf8',
    },
  });
  return { store, body: async () => (await store.inboxEntry('earlier-1'))?.delivery?.body ?? '' };
}

describe('trimming the deliveries of an earlier release', () => {
  it('trims once, keeping every digit and the digest of the body as it came', async () => {
    const { store, body } = await earlierLedger();
    const adapterFor = (platform: string) => (platform === 'shopify' ? shopify : undefined);
    expect(await trimEarlierDeliveries(store, adapterFor, logger)).toEqual({ inbox: 1, deadLetters: 0, unread: 0 });
    expect(await body()).not.toContain('browser_ip');
    expect(await body()).toMatch(/^\{"id":820982911946154509201,.*"financial_status":"paid"/);
    expect((await store.inboxEntry('earlier-1'))?.delivery?.digest).toBe(
      bodyDigest('shopify', 'orders/paid', Buffer.from(WHOLE)),
    );
    expect(await store.getRecord(raw('migration'), KEPT_FIELDS_MIGRATION)).toMatchObject({ inbox: 1 });
    // Done: a later start does not read them again.
    expect(await trimEarlierDeliveries(store, adapterFor, logger)).toBeUndefined();
    await store.close();
  });

  it('leaves whole, and counts, a delivery of a platform not configured at that start', async () => {
    const { store, body } = await earlierLedger();
    expect(await trimEarlierDeliveries(store, () => undefined, logger)).toEqual({
      inbox: 0,
      deadLetters: 0,
      unread: 1,
    });
    expect(await body()).toBe(WHOLE);
    expect(await store.getRecord(raw('migration'), KEPT_FIELDS_MIGRATION)).toMatchObject({ unread: 1 });
    // The next start, with the platform configured, trims it after all; and then it is done.
    expect(await trimEarlierDeliveries(store, () => shopify, logger)).toEqual({ inbox: 1, deadLetters: 0, unread: 0 });
    expect(await body()).not.toContain('browser_ip');
    expect(await trimEarlierDeliveries(store, () => shopify, logger)).toBeUndefined();
    await store.close();
  });
});
