// Replay and forgery: a captured delivery sent again changes nothing; a
// signature made with any other secret, or a stale BigCommerce timestamp, is
// refused; signatures are compared in constant time.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { BC_SECRET, bcHeaders, bcPayload } from '../helpers/bigcommerce.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { WOO_SECRET, wooHeaders, wooOrderJson } from '../helpers/woocommerce.ts';

let bridge: RunningBridge;
beforeAll(async () => {
  bridge = await startTestBridge({
    SHOPIFY_API_SECRET: SHOPIFY_SECRET,
    WOOCOMMERCE_WEBHOOK_SECRET: WOO_SECRET,
    BIGCOMMERCE_CLIENT_SECRET: BC_SECRET,
    RECONCILE_INTERVAL_MINUTES: '0',
  });
});
afterAll(() => bridge.stop());

const post = async (platform: string, body: string, headers: Record<string, string>) => {
  const response = await fetch(`${bridge.http.localUrl}/webhooks/${platform}`, { method: 'POST', headers, body });
  return { status: response.status, body: (await response.json()) as { result?: string } };
};

it('deduplicates a captured Shopify delivery replayed later, which changes nothing', async () => {
  const body = shopifyOrderJson({ id: '7770000000001' });
  const headers = shopifyHeaders({ topic: 'orders/paid', body, webhookId: 'captured-1' });
  expect((await post('shopify', body, headers)).body.result).toBe('accepted');
  await bridge.engine.drain();
  const before = JSON.stringify(
    await bridge.engine.store.getOrder('shopify:lb-test-store.myshopify.com:7770000000001'),
  );
  const sandboxBefore = JSON.stringify(bridge.sandbox?.store.snapshot());
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect((await post('shopify', body, headers)).body.result).toBe('duplicate');
  await bridge.engine.drain();
  expect(JSON.stringify(await bridge.engine.store.getOrder('shopify:lb-test-store.myshopify.com:7770000000001'))).toBe(
    before,
  );
  expect(JSON.stringify(bridge.sandbox?.store.snapshot())).toBe(sandboxBefore);
});

describe('signatures made with another secret', () => {
  const shopifyBody = shopifyOrderJson({ id: '7770000000002' });
  const wooBody = wooOrderJson({ id: 7771, status: 'processing' });
  const bcBody = bcPayload('store/order/created', 7772);
  it.each([
    [
      "another shop's Shopify secret",
      'shopify',
      shopifyBody,
      shopifyHeaders({ topic: 'orders/paid', body: shopifyBody, secret: 'shpss_another_shop' }),
    ],
    [
      'the WooCommerce secret on the Shopify route',
      'shopify',
      shopifyBody,
      shopifyHeaders({ topic: 'orders/paid', body: shopifyBody, secret: WOO_SECRET }),
    ],
    [
      'the Shopify secret on the WooCommerce route',
      'woocommerce',
      wooBody,
      wooHeaders('order.updated', wooBody, { secret: SHOPIFY_SECRET }),
    ],
    [
      'the BigCommerce secret on the WooCommerce route',
      'woocommerce',
      wooBody,
      wooHeaders('order.updated', wooBody, { secret: BC_SECRET }),
    ],
    [
      'the Shopify secret on the BigCommerce route',
      'bigcommerce',
      bcBody,
      bcHeaders(bcBody, { secret: SHOPIFY_SECRET }),
    ],
  ])('refuses %s with 401', async (_name, platform, body, headers) => {
    expect((await post(platform, body, headers)).status).toBe(401);
  });
});

it('refuses a BigCommerce delivery outside the 5-minute tolerance, even correctly signed', async () => {
  const body = bcPayload('store/order/created', 7773);
  // 310 rather than 301: the clock's second can tick between signing here and
  // verifying in the bridge, and 301 ahead would then be exactly 300 ahead.
  for (const offset of [-310, 310, -3600]) {
    expect(
      (await post('bigcommerce', body, bcHeaders(body, { timestamp: Math.floor(Date.now() / 1000) + offset }))).status,
    ).toBe(401);
  }
});

it('compares every signature and token in constant time', () => {
  // Timing cannot be measured reliably in a test; what can be checked is that
  // every comparison of a secret-derived value goes through timingSafeEqual.
  const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  for (const path of ['adapters/shared/signature.ts', 'src/same-secret.ts'])
    expect(read(path)).toContain('timingSafeEqual');
  // The admin token and the sandbox's credentials go through sameSecret.
  const sandbox = ['src/sandbox/accounts.ts', 'src/sandbox/control-access.ts', 'src/sandbox/credentials.ts'];
  for (const path of ['src/http/admin-auth.ts', ...sandbox]) expect(read(path)).toContain('sameSecret(');
  for (const path of ['adapters/shared/signature.ts', 'src/same-secret.ts', 'src/http/admin-auth.ts', ...sandbox]) {
    expect(read(path)).not.toMatch(/(signature|hmac|token|apiKey)\s*===\s*(?!\s|undefined)/i);
  }
  // BigCommerce's comes from the standardwebhooks package, which compares in constant time too.
  expect(readFileSync(new URL('../../node_modules/standardwebhooks/dist/index.js', import.meta.url), 'utf8')).toContain(
    'timingSafeEqual',
  );
});
