// A merchant sees and retries their own shop's dead letters from their own
// page, with App Bridge session tokens: never another shop's (404, as if
// absent), and discarding one stays the operator's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import {
  APP_SECRET,
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP_A = 'alpha-letters.myshopify.com';
const SHOP_B = 'beta-letters.myshopify.com';

let fake: FakeShopify;
let running: ShopifyAppBridge;

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  for (const shop of [SHOP_A, SHOP_B]) fake.install(shop);
  running = await startShopifyAppBridge(fake, { SHOPIFY_SHOPS: `${SHOP_A},${SHOP_B}` });
  // Authentic, shaped as orders, but no order Shopify would send (the id is not a whole number): a dead letter each.
  for (const [shop, id] of [
    [SHOP_A, '9400000000001'],
    [SHOP_B, '9400000000002'],
  ] as const) {
    const body = shopifyOrderJson({ id }).replace(`"id":${id}`, '"id":12.5');
    const response = await fetch(`${running.url}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body, shop, secret: APP_SECRET, webhookId: `letter-${id}` }),
      body,
    });
    expect(response.status).toBe(200);
  }
  await running.bridge.engine.drain();
}, 60_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

const lettersOf = async (shop: string): Promise<Array<{ id: string; shop: string; reason: string }>> =>
  (await asShop(running, shop).get('/dead-letters')).body.deadLetters;

describe("a shop's own dead letters", () => {
  it('lists only its own, with why', async () => {
    const own = await lettersOf(SHOP_A);
    expect(own.map((letter) => letter.shop)).toEqual([SHOP_A]);
    expect(own[0]?.reason).toMatch(/no numeric id/);
    expect((await lettersOf(SHOP_B)).map((letter) => letter.shop)).toEqual([SHOP_B]);
  });

  it('retries its own: read again now, and still refused with the reason while the cause stands', async () => {
    const [own] = await lettersOf(SHOP_A);
    expect(await asShop(running, SHOP_A).post(`/dead-letters/${own!.id}/retry`)).toMatchObject({
      status: 409,
      body: { retried: false, reason: expect.stringMatching(/no numeric id/) },
    });
  });

  it('leaves a redeem in doubt to the operator, who checks the customer’s history first', async () => {
    await running.bridge.engine.store.addDeadLetter({
      id: 'redeem-in-doubt-a',
      kind: 'call',
      reason: 'a redeem was being sent when the bridge stopped; it may or may not have been applied',
      platform: 'shopify',
      shop: SHOP_A,
      orderKey: `shopify:${SHOP_A}:9400000000003`,
      operation: 'redeem',
    });
    expect(await asShop(running, SHOP_A).post('/dead-letters/redeem-in-doubt-a/retry')).toMatchObject({
      status: 409,
      body: { errors: [expect.stringMatching(/operator/)] },
    });
    expect(await running.bridge.engine.store.getDeadLetter('redeem-in-doubt-a')).toBeDefined();
  });

  it('retries a call once when two retries of it come at once', async () => {
    await running.bridge.engine.store.addDeadLetter({
      id: 'earn-refused-a',
      kind: 'call',
      reason: 'refused',
      platform: 'shopify',
      shop: SHOP_A,
      orderKey: `shopify:${SHOP_A}:9400000000004`,
      operation: 'earn',
    });
    const answers = await Promise.all([
      asShop(running, SHOP_A).post('/dead-letters/earn-refused-a/retry'),
      asShop(running, SHOP_A).post('/dead-letters/earn-refused-a/retry'),
    ]);
    expect(answers.map((answer) => answer.body.retried).sort()).toEqual([false, true]);
  });

  it("cannot retry, read or discard another shop's", async () => {
    const [theirs] = await lettersOf(SHOP_B);
    expect((await asShop(running, SHOP_A).post(`/dead-letters/${theirs!.id}/retry`)).status).toBe(404);
    expect((await asShop(running, SHOP_A).get(`/dead-letters/${theirs!.id}`)).status).toBe(403);
    expect((await asShop(running, SHOP_A).delete(`/dead-letters/${theirs!.id}`)).status).toBe(403);
    expect((await asShop(running, SHOP_A).post('/dead-letters/retry-all')).status).toBe(403);
    expect(await lettersOf(SHOP_B)).toHaveLength(1);
  });
});

describe("what needs a shop's attention", () => {
  it('says, in plain words with the fix, what stops its orders, and nothing of another shop', async () => {
    // What the reconciler found of shop A's subscriptions: Shopify refused a topic for protected customer data.
    await running.bridge.engine.store.putRecord(raw('platform-health'), `shopify:${SHOP_A}`, {
      platform: 'shopify',
      shop: SHOP_A,
      checkedAt: new Date().toISOString(),
      healthy: 1,
      repaired: [],
      problems: [
        {
          kind: 'protected_data',
          topic: 'orders/paid',
          detail: 'Shopify refused the subscription: the app is not approved for protected customer data',
          fix: 'Request protected customer data access in the Dev Dashboard',
        },
      ],
      scopes: ['read_products'],
    });
    const { status, body } = await asShop(running, SHOP_A).get('/attention');
    expect(status).toBe(200);
    const kinds = body.attention.map((item: { kind: string }) => item.kind);
    expect(kinds).toEqual(expect.arrayContaining(['missing_scope', 'subscription_protected_data', 'dead_letters']));
    for (const item of body.attention) expect(item.fix).toEqual(expect.any(String));
    expect(body.attention.find((item: { kind: string }) => item.kind === 'dead_letters').count).toBeGreaterThan(0);

    const ofB = (await asShop(running, SHOP_B).get('/attention')).body.attention.map(
      (item: { kind: string }) => item.kind,
    );
    expect(ofB).not.toContain('subscription_protected_data');
    expect(ofB).not.toContain('missing_scope');
    expect(ofB).toContain('dead_letters');
  });

  it('says when Shopify hides its customers’ contact details, and when the bridge lost its access', async () => {
    // An order whose e-mail and phone Shopify withholds (protected customer data not approved): it cannot earn.
    const body = shopifyOrderJson({ id: '9400000000009', email: null, customer: { id: 7002, first_name: 'Withheld' } });
    const answer = await fetch(`${running.url}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body, shop: SHOP_A, secret: APP_SECRET, webhookId: 'hidden-1' }),
      body,
    });
    expect(answer.status).toBe(200);
    await running.bridge.engine.drain();
    // What the reconciler found of shop B: Shopify refused the bridge's token.
    await running.bridge.engine.store.putRecord(raw('platform-health'), `shopify:${SHOP_B}`, {
      platform: 'shopify',
      shop: SHOP_B,
      checkedAt: new Date().toISOString(),
      healthy: 0,
      repaired: [],
      problems: [],
      error: 'Shopify refused the access token (401)',
    });
    const ofA = (await asShop(running, SHOP_A).get('/attention')).body.attention as Array<{
      kind: string;
      count?: number;
      fix: string;
    }>;
    expect(ofA.find((item) => item.kind === 'protected_data_hidden')).toMatchObject({
      count: 1,
      fix: expect.stringContaining('protected customer data'),
    });
    expect(ofA.map((item) => item.kind)).not.toContain('no_access');
    const ofB = (await asShop(running, SHOP_B).get('/attention')).body.attention as Array<{
      kind: string;
      why: string;
    }>;
    expect(ofB.find((item) => item.kind === 'no_access')?.why).toContain('Shopify refused the access token');
    expect(ofB.map((item) => item.kind)).not.toContain('protected_data_hidden');
  });
});
