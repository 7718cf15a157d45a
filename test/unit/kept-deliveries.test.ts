// The first start's trimming of deliveries an earlier release kept whole:
// done once, and not marked done while a delivery's platform has no adapter
// to read it with (it stays whole until a start that has one).
import { describe, expect, it } from 'vitest';
import { createShopifyAdapter } from '../../adapters/shopify/adapter.ts';
import { KEPT_FIELDS_MIGRATION, trimEarlierDeliveries } from '../../src/core/kept-deliveries.ts';
import type { PlatformAdapter } from '../../src/core/platform-adapter.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { SHOP, SHOPIFY_SECRET, shopifyOrderJson } from '../helpers/shopify.ts';

const logger = createLogger({ level: 'silent' });
const whole = (id: string) =>
  shopifyOrderJson({ id }).replace('"line_items":', '"browser_ip":"203.0.113.5","line_items":');

describe('trimming the deliveries of an earlier release', () => {
  it('waits for a start with the platform configured, then trims once', async () => {
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
        body: whole('820982911946154509201'),
        bodyEncoding: 'utf8',
      },
    });
    const body = async () => (await store.inboxEntry('earlier-1'))?.delivery?.body ?? '';

    // Shopify not configured at this start: nothing can read the body, so it stays, and the step is not done.
    expect(await trimEarlierDeliveries(store, () => undefined, logger)).toEqual({
      inbox: 0,
      deadLetters: 0,
      unread: 1,
    });
    expect(await body()).toContain('browser_ip');
    expect(await store.getRecord('migration', KEPT_FIELDS_MIGRATION)).toBeUndefined();

    const shopify = createShopifyAdapter({ apiSecrets: [SHOPIFY_SECRET] }) as PlatformAdapter<unknown>;
    const adapterFor = (platform: string) => (platform === 'shopify' ? shopify : undefined);
    expect(await trimEarlierDeliveries(store, adapterFor, logger)).toEqual({ inbox: 1, deadLetters: 0, unread: 0 });
    expect(await body()).not.toContain('browser_ip');
    // Every digit of the id kept.
    expect(await body()).toMatch(/^\{"id":820982911946154509201,.*"financial_status":"paid"/);
    expect(await store.getRecord('migration', KEPT_FIELDS_MIGRATION)).toMatchObject({ inbox: 1 });
    // Done: a later start does not read them again.
    expect(await trimEarlierDeliveries(store, adapterFor, logger)).toBeUndefined();
    await store.close();
  });
});
