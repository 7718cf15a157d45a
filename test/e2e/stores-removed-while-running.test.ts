// What a store needs stops when the store is uninstalled, without a restart:
// a pass after the app was removed neither reconciles the store nor checks
// its subscriptions (its token is revoked, so each would only fail and ask
// the platform again). On Shopify, the merchant's own shop (SHOPIFY_SHOP,
// reached by the client credentials grant) is the one the bridge would go on
// listing; on BigCommerce, a store that installed the app.
import { describe, expect, it } from 'vitest';
import type { SubscriptionHealth } from '../../src/core/order-source.ts';
import type { ReconciliationState, ShopState } from '../../src/core/store/ledger-store.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { freePort } from '../../bench/lib/bridge-process.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { eventually } from '../helpers/engine.ts';
import { startFakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { shopifyAppSuite } from '../helpers/shopify-app-bridge.ts';
import { declaredSubscriptions } from '../helpers/shopify-app-config.ts';
import { raw } from '../helpers/raw-records.ts';

const OWN = 'own-and-leaving.myshopify.com';
const suite = shopifyAppSuite({ SHOPIFY_SHOP: OWN });

const records = async (bridge: RunningBridge, platform: string, shop: string) => ({
  reconciliation: await bridge.engine.store.getRecord(
    raw<ReconciliationState>('reconciliation'),
    `${platform}:${shop}`,
  ),
  health: await bridge.engine.store.getRecord(raw<SubscriptionHealth>('platform-health'), `${platform}:${shop}`),
});

describe('Shopify: the own shop, uninstalled while the bridge runs', () => {
  it('is no longer reconciled, nor its subscriptions checked', async () => {
    const running = await suite.start();
    suite.fake.appSubscriptions.splice(0, Infinity, ...declaredSubscriptions(running.url));
    const { bridge } = running;
    await bridge.reconciler.runAll();
    expect((await records(bridge, 'shopify', OWN)).reconciliation?.lastRun).toBeTruthy();

    suite.fake.uninstall(OWN);
    const body = JSON.stringify({ id: 1, name: 'Own', domain: 'own.example', myshopify_domain: OWN });
    expect(await suite.fake.deliver(OWN, 'app/uninstalled', body)).toEqual([{ status: 200, result: 'accepted' }]);
    await eventually(async () => {
      await bridge.engine.drain();
      expect(await bridge.engine.store.getRecord(raw<ShopState>('shop'), `shopify:${OWN}`)).toMatchObject({
        uninstalledAt: expect.any(String),
      });
    });

    const before = await records(bridge, 'shopify', OWN);
    const asked = suite.fake.requests.length;
    await bridge.reconciler.runAll();
    await bridge.reconciler.checkAllSubscriptions();
    expect(await records(bridge, 'shopify', OWN)).toEqual(before);
    expect(suite.fake.requests.slice(asked)).toEqual([]);
  });
});

describe('BigCommerce: a store that installed the app, uninstalled while the bridge runs', () => {
  it('is no longer reconciled, nor its hooks checked', async () => {
    const bc = await startFakeBigCommerce({ storeHash: 'unused0', accessToken: 'unused-token' });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const clientId = 'leaving-app-client-id';
    const clientSecret = 'leaving-app-client-secret-for-tests';
    bc.registerApp({
      clientId,
      clientSecret,
      authCallback: `${url}/bigcommerce/auth`,
      loadCallback: `${url}/bigcommerce/load`,
      uninstallCallback: `${url}/bigcommerce/uninstall`,
      scope: 'store_v2_orders_read_only',
    });
    const bridge = await startTestBridge({
      PORT: String(port),
      PUBLIC_URL: url,
      BIGCOMMERCE_CLIENT_ID: clientId,
      BIGCOMMERCE_CLIENT_SECRET: clientSecret,
      BIGCOMMERCE_LOGIN_URL: bc.url,
      BIGCOMMERCE_API_URL: bc.url,
      BIGCOMMERCE_STORES: 'leaving1',
    });
    try {
      expect((await bc.install('leaving1')).status).toBe(200);
      await eventually(
        async () => expect((await records(bridge, 'bigcommerce', 'leaving1')).reconciliation?.lastRun).toBeTruthy(),
        10_000,
      );

      expect((await bc.uninstall('leaving1')).status).toBe(200);
      await eventually(async () =>
        expect(await bridge.engine.store.getRecord(raw<ShopState>('shop'), 'bigcommerce:leaving1')).toMatchObject({
          uninstalledAt: expect.any(String),
        }),
      );

      const before = await records(bridge, 'bigcommerce', 'leaving1');
      const asked = bc.requests.length;
      await bridge.reconciler.runAll();
      await bridge.reconciler.checkAllSubscriptions();
      expect(await records(bridge, 'bigcommerce', 'leaving1')).toEqual(before);
      expect(bc.requests.slice(asked)).toEqual([]);
    } finally {
      await bridge.stop();
      await bc.close();
    }
  }, 30_000);
});
