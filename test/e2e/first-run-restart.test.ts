// A newcomer tried the demo, connected their own WooCommerce store, and restarted the bridge with the same (empty)
// configuration: the ledger holds their store, so nothing of the demo comes back. Its shops are not the bridge's
// stores, its page and store pages are not served, and its settings (a demo site's address, a demo store's hash) are
// not in the configuration, where the site's address would be the store the WooCommerce secret opens.
import { afterAll, describe, expect, it } from 'vitest';
import { WooStores } from '../../adapters/woocommerce/stores.ts';
import { loadConfig } from '../../src/config.ts';
import { startBridge, type RunningBridge } from '../../src/composition/main.ts';
import { createLogger } from '../../src/logger.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';

const ADMIN_TOKEN = 'first-run-restart-admin-token-0123456789';

describe('a first run restarted once a store of the merchant’s is connected', () => {
  const dataDir = tempDataDir();
  // As `npm start` on a fresh clone: nothing configured but where to listen and keep the ledger.
  const start = async () => {
    const env = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADMIN_TOKEN };
    const loaded = loadConfig({ env: { ...env, ALLOW_PRIVATE_STORE_ADDRESSES: 'true' } });
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    return startBridge(loaded.config, createLogger({ level: 'silent' }), { demoPaceMs: 60_000 });
  };
  let bridge: RunningBridge | undefined;
  let woo: FakeWooCommerce | undefined;
  afterAll(async () => {
    await bridge?.stop();
    await woo?.close();
  });

  it('starts no demo: the dashboard lists the merchant’s store alone, and the demo’s pages are gone', async () => {
    woo = await startFakeWooCommerce({ consumerKey: 'ck_restart', consumerSecret: 'cs_restart' });
    bridge = await start();
    expect(bridge.demo?.running).toBe(true);
    const demoPage = bridge.firstRun!.pageLink()!;
    // What the dashboard's connect keeps for the merchant's store.
    const at = new Date().toISOString();
    await new WooStores({
      store: bridge.engine.store,
      env: {},
      storeAddresses: { allowPrivate: true, lookup: undefined },
    }).save({
      platform: 'woocommerce',
      shop: woo.host,
      url: woo.url,
      consumerKey: 'ck_restart',
      consumerSecret: 'cs_restart',
      keyId: 1,
      keyPermissions: 'read_write',
      webhookSecret: 'restart-webhook-secret',
      connectedAt: at,
      updatedAt: at,
    });
    await bridge.stop();

    bridge = await start();
    const operator = async <T>(path: string) =>
      (await (
        await fetch(`${bridge!.http.localUrl}/admin/api${path}`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        })
      ).json()) as T;
    expect(bridge.demo).toBeUndefined();
    expect(bridge.firstRun).toBeUndefined();
    expect((await operator<{ mode: { demo: boolean } }>('/status')).mode.demo).toBe(false);
    const { stores } = await operator<{ stores: Array<{ platform: string; shop: string }> }>('/stores');
    expect(stores.map(({ platform, shop }) => `${platform} ${shop}`)).toEqual([`woocommerce ${woo.host}`]);
    // Which account each shop earns on: the demo's shops and their trial accounts are gone with the demo.
    const { shops } = await operator<{ shops: Array<{ platform: string; shop: string }> }>('/shops');
    expect(shops.map(({ platform, shop }) => `${platform} ${shop}`)).toEqual([`woocommerce ${woo.host}`]);
    const { accounts } = await operator<{ accounts: Array<{ name: string }> }>('/accounts');
    expect(accounts.map(({ name }) => name).filter((name) => name.includes('demo'))).toEqual([]);
    // The demo shop's page and the demo store pages: not served.
    const path = new URL(demoPage).pathname;
    expect((await fetch(`${bridge.http.localUrl}${path}`)).status).toBe(404);
    expect((await fetch(`${bridge.http.localUrl}/demo/storefront/`)).status).toBe(404);
  }, 60_000);
});

describe('a first run restarted with no store of the merchant’s', () => {
  const dataDir = tempDataDir();
  let bridge: RunningBridge | undefined;
  afterAll(async () => {
    await bridge?.stop();
  });
  const start = async () => {
    const loaded = loadConfig({
      env: { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADMIN_TOKEN },
    });
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const started = await startBridge(loaded.config, createLogger({ level: 'silent' }), { demoPaceMs: 20 });
    await eventually(() => expect(started.demo?.played ?? 0).toBeGreaterThanOrEqual(started.demo!.handful), 30_000);
    await started.engine.drain();
    return started;
  };
  const bigCommerceNames = async () => {
    const answer = await fetch(`${bridge!.http.localUrl}/admin/api/orders?platform=bigcommerce&limit=100`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const { orders } = (await answer.json()) as { orders: Array<{ orderId: string; orderName: string }> };
    return orders;
  };

  it('numbers the demo’s orders as a store does: small ids, a later run’s after an earlier run’s', async () => {
    bridge = await start();
    const first = await bigCommerceNames();
    expect(first.length).toBeGreaterThan(0);
    // BigCommerce names an order by its id: "#100", not a 13-digit number.
    for (const { orderId, orderName } of first) {
      expect(Number(orderId)).toBeLessThan(10_000);
      expect(orderName).toBe(`#${orderId}`);
    }
    await bridge.stop();
    bridge = await start();
    const again = await bigCommerceNames();
    const earlier = new Set(first.map(({ orderId }) => orderId));
    const later = again.filter(({ orderId }) => !earlier.has(orderId));
    expect(later.length).toBeGreaterThan(0);
    const newestBefore = Math.max(...first.map(({ orderId }) => Number(orderId)));
    for (const { orderId } of later) expect(Number(orderId)).toBeGreaterThan(newestBefore);
    expect(Math.max(...later.map(({ orderId }) => Number(orderId)))).toBeLessThan(10_000);
  }, 90_000);
});
