// The configured store's webhook secret (WOOCOMMERCE_WEBHOOK_SECRET) is on
// show in that store's WordPress, to whoever administers it. It signs for
// that store alone: never for a store connected through the bridge, nor for
// one erased since, whose name its merchant may connect again and link to
// their own account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WooConnection } from '../../adapters/woocommerce/stores.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { startHttpsFront, type HttpsFront } from '../helpers/https-front.ts';
import { answerConsent } from '../helpers/wordpress-merchant.ts';
import { WOO_ENV, WOO_SECRET, wooHeaders, wooOrderJson } from '../helpers/woocommerce.ts';
import { raw } from '../helpers/raw-records.ts';

const ADMIN_TOKEN = 'configured-secret-admin-token-0123456789';

let front: HttpsFront;
let storeB: FakeWooCommerce;
let bridge: RunningBridge;
let shopB = '';

const admin = async (method: string, path: string, body: unknown) =>
  fetch(`${bridge.http.localUrl}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** An order of store B, signed with the configured store's secret. */
async function forged(id: number): Promise<number> {
  const body = wooOrderJson({ id, status: 'processing', email: 'mallory@forged.example' });
  const headers = {
    ...wooHeaders('order.created', body, { secret: WOO_SECRET }),
    'x-wc-webhook-source': `${storeB.url}/`,
  };
  const answer = await fetch(`${bridge.http.localUrl}/webhooks/woocommerce`, { method: 'POST', headers, body });
  await bridge.engine.drain();
  return answer.status;
}

beforeAll(async () => {
  front = await startHttpsFront();
  storeB = await startFakeWooCommerce();
  bridge = await startTestBridge({
    ...WOO_ENV,
    PUBLIC_URL: front.url,
    ADMIN_TOKEN,
    RECONCILE_INTERVAL_MINUTES: '0',
  });
  front.forwardTo(bridge.http.localUrl);
  const started = await admin('POST', '/stores/woocommerce/connect', { store: storeB.url });
  expect(started.status).toBe(201);
  await answerConsent(((await started.json()) as { authorizeUrl: string }).authorizeUrl, 'approve');
  const connections = await bridge.engine.store.listRecords(raw<WooConnection>('session'));
  shopB = connections.find(({ value }) => value.url === storeB.url)!.value.shop;
  const account = await admin('POST', '/accounts', {
    name: 'B’s own account',
    baseUrl: `${bridge.loyaltyBaseUrl}`,
    apiKey: 'b-own-key-0001',
    brandId: 'b-own-brand',
  });
  const { id } = ((await account.json()) as { account: { id: string } }).account;
  expect((await admin('PATCH', `/shops/woocommerce/${encodeURIComponent(shopB)}`, { account: id })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await bridge?.stop();
  await front?.close();
  await storeB?.close();
});

describe('the configured store’s secret', () => {
  it('does not sign for a connected store', async () => {
    expect(await forged(7001)).toBe(401);
    expect(await bridge.engine.store.getOrder(`woocommerce:${shopB}:7001`)).toBeUndefined();
  });

  it('does not sign for that store once it is erased, and the erase leaves it linked to nobody', async () => {
    expect((await admin('POST', '/shops/erase', { platform: 'woocommerce', shop: shopB, confirm: true })).status).toBe(
      200,
    );
    expect(await bridge.engine.store.getRecord(raw('session'), `woocommerce:${shopB}`)).toBeUndefined();
    expect(await bridge.accounts.accountOf({ platform: 'woocommerce', shop: shopB })).toBeUndefined();
    expect(await forged(7002)).toBe(401);
    expect(await bridge.engine.store.getOrder(`woocommerce:${shopB}:7002`)).toBeUndefined();
  });
});
