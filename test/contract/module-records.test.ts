// What a platform's module can reach of the ledger's records, on both backends: its own kinds, and the bridge's
// shared kinds only under ids that start with its name. Another module's access to a store (its tokens and keys),
// the core's records of a customer and a listing of every platform's records are refused, not handed over.
import { describe, expect, it } from 'vitest';
import { SHOPIFY_SESSION } from '../../adapters/shopify/access.ts';
import { WOO_CONNECTION, type WooConnection } from '../../adapters/woocommerce/stores.ts';
import { loadConfig } from '../../src/config.ts';
import { buildPlatforms } from '../../src/composition/platforms.ts';
import type { AnyPlatformModule, PlatformStore } from '../../src/core/platform-module.ts';
import type { LedgerStore, RecordRole } from '../../src/core/store/ledger-store.ts';
import { ACCESS_KIND } from '../../src/core/store/roles/core-kinds.ts';
import { OutsideModuleError, moduleRecords } from '../../src/core/store/roles/module-records.ts';
import { HOLDER_KIND } from '../../src/core/storefront/reward-records.ts';
import { tinyShop } from '../platforms/tinyshop/module.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';

const AT = '2026-11-29T00:00:00.000Z';
const wooConnection: WooConnection = {
  platform: 'woocommerce',
  shop: 'woo.example',
  url: 'https://woo.example',
  consumerKey: 'ck_woo',
  consumerSecret: 'cs_woo',
  keyId: 7,
  keyPermissions: 'read_write',
  webhookSecret: 'woo-hook-secret',
  connectedAt: AT,
  updatedAt: AT,
};
const shopifySession = {
  platform: 'shopify' as const,
  shop: 'ada.myshopify.com',
  mode: 'oauth' as const,
  accessToken: 'shpat_ada',
  expiresAt: null,
  updatedAt: AT,
};

const shopifyScope = (store: RecordRole) =>
  moduleRecords(store, {
    name: 'shopify',
    own: [],
    shared: ['session', 'shop', 'allowed-shop', 'declared-delivery', 'callback-payload'],
  });

async function withAccess(store: LedgerStore): Promise<void> {
  await store.putRecord(WOO_CONNECTION, 'woocommerce:woo.example', wooConnection);
  await store.putRecord(SHOPIFY_SESSION, 'shopify:ada.myshopify.com', shopifySession);
}

const backends = ledgerBackends();

describe.each(backends)("a module's records, on %s", (_name, available, open) => {
  it.skipIf(!available)('reaches its own access to a store, and lists only that', async () => {
    const store = await open();
    await withAccess(store);
    const shopify = shopifyScope(store);
    expect(await shopify.getRecord(SHOPIFY_SESSION, 'shopify:ada.myshopify.com')).toEqual(shopifySession);
    expect((await shopify.listRecords(SHOPIFY_SESSION)).map(({ id }) => id)).toEqual(['shopify:ada.myshopify.com']);
    const renewed = await shopify.changeRecord(SHOPIFY_SESSION, 'shopify:ada.myshopify.com', (current) =>
      current ? { put: { ...current, accessToken: 'shpat_renewed' } } : undefined,
    );
    expect(renewed.value?.accessToken).toBe('shpat_renewed');
  });

  it.skipIf(!available)("refuses another platform's keys, the core's records and every platform's list", async () => {
    const store = await open();
    await withAccess(store);
    const shopify = shopifyScope(store);
    // WooCommerce's consumer key and webhook secret: the same kind, under WooCommerce's name.
    await expect(shopify.getRecord(WOO_CONNECTION, 'woocommerce:woo.example')).rejects.toThrow(OutsideModuleError);
    await expect(shopify.listRecords(WOO_CONNECTION)).rejects.toThrow(OutsideModuleError);
    await expect(shopify.listRecords(ACCESS_KIND)).rejects.toThrow(OutsideModuleError);
    await expect(shopify.deleteRecord(ACCESS_KIND, 'woocommerce:woo.example')).rejects.toThrow(OutsideModuleError);
    await expect(
      shopify.putRecord(WOO_CONNECTION, 'woocommerce:woo.example', { ...wooConnection, webhookSecret: 'mine' }),
    ).rejects.toThrow(OutsideModuleError);
    // A customer's reservations are the core's, whatever the id.
    await expect(shopify.getRecord(HOLDER_KIND, 'shopify:acct:ada')).rejects.toThrow(OutsideModuleError);
    // Nothing of WooCommerce's changed.
    expect(await store.getRecord(WOO_CONNECTION, 'woocommerce:woo.example')).toEqual(wooConnection);
  });
});

describe("the ledger a module's build is handed", () => {
  it('holds its records, orders, dead letters and erasures to its own platform, and nothing else of the store', async () => {
    let handed: PlatformStore | undefined;
    const nosy: AnyPlatformModule = {
      ...tinyShop,
      name: 'nosy',
      build: (_settings, wiring) => {
        handed = wiring.store;
        return undefined;
      },
    };
    const store = await backends[0][2]();
    await withAccess(store);
    const config = loadConfig({ env: { LOG_LEVEL: 'silent' }, modules: [nosy] });
    if (!config.ok) throw new Error(config.errors.join('\n'));
    buildPlatforms(config.config, store, {}, { modules: [nosy] });
    await expect(handed!.getRecord(SHOPIFY_SESSION, 'shopify:ada.myshopify.com')).rejects.toThrow(
      /nosy module may not reach session records/,
    );
    await expect(handed!.listRecords(ACCESS_KIND)).rejects.toThrow(OutsideModuleError);
    // Every record of every platform with its secrets opened, the database beneath: not there at all.
    for (const whole of ['exportAll', 'finishImport', 'database', 'eraseCustomer', 'exportCustomer'])
      expect(whole in handed!, whole).toBe(false);
    await expect(handed!.eraseShop('shopify', 'ada.myshopify.com')).rejects.toThrow(OutsideModuleError);
    expect(await store.getRecord(SHOPIFY_SESSION, 'shopify:ada.myshopify.com')).toEqual(shopifySession);
    await expect(handed!.listOrders({ platform: 'shopify', page: 1, limit: 10 })).rejects.toThrow(OutsideModuleError);
    await store.addDeadLetter({ id: 'dl-shopify', kind: 'delivery', reason: 'unreadable', platform: 'shopify' });
    expect(await handed!.listDeadLetters()).toEqual([]);
    expect(await handed!.removeDeadLetter('dl-shopify')).toBeUndefined();
    expect(await store.getDeadLetter('dl-shopify')).toBeDefined();
    // Every platform's dedupe keys forgotten (a replay then passes as new), another platform's claim to an order,
    // another part's lock (a token's renewal held up): none of them.
    await expect(handed!.eraseShop('nosy', 'its-shop', '')).rejects.toThrow(OutsideModuleError);
    await expect(handed!.claimLpOrderId('shopify-order:1001', 'nosy:its-shop:1')).rejects.toThrow(OutsideModuleError);
    await expect(handed!.claimLpOrderId('4242', 'nosy:its-shop:1')).rejects.toThrow(OutsideModuleError);
    await expect(handed!.exclusive('shopify-token:ada.myshopify.com', async () => 1)).rejects.toThrow(
      OutsideModuleError,
    );
    expect(await handed!.exclusive('nosy-sweep', async () => 1)).toEqual({ ran: true, value: 1 });
    expect(await handed!.claimLpOrderId('nosy-order:7', 'nosy:its-shop:7')).toBe('nosy:its-shop:7');
  });
});
