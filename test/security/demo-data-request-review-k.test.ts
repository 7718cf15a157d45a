// Review K of the demo store page's "Ask for my data" (issue 68): a form posted by another site on this machine (another
// port is the same site, so the SameSite=Strict cookie goes) must not send the signed-in customer's data request, and
// nothing of the demo's requests stays once a store of the merchant's is connected (forgetDemoShops at that start).
import { afterAll, describe, expect, it } from 'vitest';
import { WooStores } from '../../adapters/woocommerce/stores.ts';
import { loadConfig } from '../../src/config.ts';
import { startBridge, type RunningBridge } from '../../src/composition/main.ts';
import { createLogger } from '../../src/logger.ts';
import { demoSignIn } from '../helpers/bridge.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';

const ADMIN_TOKEN = 'review-k-demo-admin-token-0123456789abcdef';
const SHOP = 'loyalty-bridge-demo.myshopify.com';
type Privacy = { dataRequests: Array<{ shop: string; customer: { email?: string } }> };

describe('review K: the demo store page’s data request', () => {
  const dataDir = tempDataDir();
  const start = async () => {
    const env = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADMIN_TOKEN };
    const loaded = loadConfig({ env: { ...env, ALLOW_PRIVATE_STORE_ADDRESSES: 'true' } });
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    return startBridge(loaded.config, createLogger({ level: 'silent' }), { demoPaceMs: 150 });
  };
  let bridge: RunningBridge | undefined;
  let woo: FakeWooCommerce | undefined;
  afterAll(async () => {
    await bridge?.stop();
    await woo?.close();
  });
  const operator = async () =>
    (await (
      await fetch(`${bridge!.http.localUrl}/admin/api/privacy`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).json()) as Privacy;
  const demoRequests = async () => (await operator()).dataRequests.filter((each) => each.shop === SHOP);

  it('K1: another site on this machine cannot send the signed-in customer’s data request', async () => {
    bridge = await start();
    const page = `${bridge.firstRun!.storefrontLink()!}shopify/`;
    await eventually(() => expect(bridge!.demo!.sentTo('shopify', SHOP).length).toBeGreaterThan(0), 30_000);
    const { cookie } = await demoSignIn(page);
    // A page on http://127.0.0.1:5173 posting a form here: the browser sends the demo's cookie with it.
    const forged = await fetch(`${page}data-request`, {
      method: 'POST',
      headers: { cookie, origin: 'http://127.0.0.1:5173' },
    });
    expect(forged.status).toBe(403);
    expect(await demoRequests()).toEqual([]);
  }, 60_000);

  it('K2: the demo’s data request is gone once a store of the merchant’s is connected', async () => {
    const page = `${bridge!.firstRun!.storefrontLink()!}shopify/`;
    const { cookie } = await demoSignIn(page);
    const asked = await fetch(`${page}data-request`, {
      method: 'POST',
      headers: { cookie, origin: new URL(page).origin },
    });
    expect(asked.status).toBe(200);
    await eventually(async () => expect((await demoRequests()).length).toBeGreaterThan(0), 15_000);
    woo = await startFakeWooCommerce({ consumerKey: 'ck_review_k', consumerSecret: 'cs_review_k' });
    const at = new Date().toISOString();
    await new WooStores({
      store: bridge!.engine.store,
      env: {},
      storeAddresses: { allowPrivate: true, lookup: undefined },
    }).save({
      ...{ platform: 'woocommerce', shop: woo.host, url: woo.url, consumerKey: 'ck_review_k' },
      ...{ consumerSecret: 'cs_review_k', keyId: 1, keyPermissions: 'read_write' as const },
      ...{ webhookSecret: 'review-k-webhook-secret', connectedAt: at, updatedAt: at },
    });
    await bridge!.stop();
    bridge = await start();
    expect(bridge.demo).toBeUndefined();
    // The operator's open data requests name the merchant's stores alone, not the demo's Ada.
    expect(await demoRequests()).toEqual([]);
  }, 60_000);
});
