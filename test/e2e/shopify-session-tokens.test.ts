// The admin API called the way the embedded dashboard calls it: with App
// Bridge session tokens, minted here with the client secret as Shopify
// makes them, and no ADMIN_TOKEN. A good token sees and changes its own shop
// alone (and gets the shop access by token exchange the first time); every
// other token gets 401 (403 for an authentic shop the bridge does not
// serve), leaves no record, and is never quoted back or logged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShopifySession } from '../../adapters/shopify/access.ts';
import { createLogger } from '../../src/logger.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import {
  APP_KEY,
  APP_PREVIOUS_SECRET,
  APP_SECRET,
  deliverPaidOrders,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { mintSessionToken, type SessionTokenOptions } from '../helpers/shopify-app-links.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP_A = 'alpha-store.myshopify.com';
const SHOP_B = 'beta-store.myshopify.com';
/** Served and installed, but never opened: the bridge holds no access to it. */
const SHOP_C = 'gamma-store.myshopify.com';
const STRANGER = 'stranger-store.myshopify.com';
const ADMIN_TOKEN = 'operator-admin-token-0123456789';

let fake: FakeShopify;
let running: ShopifyAppBridge;
const logLines: string[] = [];

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  for (const shop of [SHOP_A, SHOP_B, SHOP_C, STRANGER]) fake.install(shop);
  running = await startShopifyAppBridge(
    fake,
    {
      SHOPIFY_SHOPS: `${SHOP_A},${SHOP_B},${SHOP_C}`,
      SHOPIFY_API_SECRET_PREVIOUS: APP_PREVIOUS_SECRET,
      ADMIN_TOKEN,
      LOG_LEVEL: 'debug',
    },
    createLogger({ level: 'debug', destination: { write: (line: string) => void logLines.push(line) } }),
  );
  // One order in each shop, delivered as Shopify delivers them.
  await deliverPaidOrders(running, [
    [SHOP_A, '5100000001'],
    [SHOP_B, '5200000002'],
  ]);
});
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

const token = (shop: string, options: Partial<SessionTokenOptions> = {}) =>
  mintSessionToken({ shop, apiKey: APP_KEY, secret: APP_SECRET, ...options });
const call = (path: string, bearer: string, init: RequestInit = {}) =>
  fetch(`${running.url}/admin/api${path}`, {
    ...init,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
  });
const shopsOf = async (response: Response) =>
  ((await response.json()) as { orders: Array<{ shop: string }> }).orders.map((order) => order.shop);
const session = (shop: string) =>
  running.bridge.engine.store.getRecord(raw<ShopifySession>('session'), `shopify:${shop}`);
const exchanges = () => fake.requests.filter((request) => request.what === 'token:token_exchange').length;

describe('a good session token', () => {
  it('sees its shop’s orders and no other shop’s, getting the shop access by token exchange the first time', async () => {
    const before = exchanges();
    const response = await call('/orders', token(SHOP_A));
    expect(response.status).toBe(200);
    expect(await shopsOf(response)).toEqual([SHOP_A]);
    expect(await session(SHOP_A)).toMatchObject({ mode: 'token_exchange' });
    expect(exchanges() - before).toBe(1);
    // The next calls use the access the bridge holds.
    await call('/orders', token(SHOP_A));
    expect(exchanges() - before).toBe(1);
  });

  it('cannot reach another shop’s orders, by query or by key', async () => {
    const bKey = (await running.bridge.engine.store.listOrders({ page: 1, limit: 10, shop: SHOP_B })).orders[0]!.key;
    expect((await call(`/orders?shop=${SHOP_B}`, token(SHOP_A))).status).toBe(400);
    expect((await call(`/orders/${encodeURIComponent(bKey)}`, token(SHOP_A))).status).toBe(404);
    expect((await call(`/orders/${encodeURIComponent(bKey)}`, token(SHOP_B))).status).toBe(200);
    expect(await shopsOf(await call('/orders', token(SHOP_B)))).toEqual([SHOP_B]);
  });

  it('cannot use what belongs to the operator: the loyalty account, other platforms, the bridge itself', async () => {
    for (const [method, path] of [
      ['GET', '/status'],
      ['GET', '/customers/points?email=ada@example.com'],
      ['POST', '/adjustments/earn'],
      ['POST', '/shops/erase'],
      // Its own dead letters are its to see and retry (test/security/shop-dead-letters.test.ts); all at once is not.
      ['POST', '/dead-letters/retry-all'],
      ['POST', '/shopify/installs'],
      ['GET', '/accounts'],
      ['POST', '/accounts'],
      ['GET', '/shops'],
      ['GET', '/audit'],
    ] as const) {
      expect([
        method,
        path,
        (await call(path, token(SHOP_A), { method, ...(method === 'POST' ? { body: '{}' } : {}) })).status,
      ]).toEqual([method, path, 403]);
    }
  });

  it('is accepted a few seconds past exp (the library’s leeway), and when signed with the previous secret during a rotation', async () => {
    expect((await call('/orders', token(SHOP_A, { expiresInS: -5 }))).status).toBe(200);
    expect((await call('/orders', token(SHOP_A, { secret: APP_PREVIOUS_SECRET }))).status).toBe(200);
  });

  it('leaves the operator’s ADMIN_TOKEN seeing every shop', async () => {
    expect((await shopsOf(await call('/orders', ADMIN_TOKEN))).sort()).toEqual([SHOP_A, SHOP_B]);
  });
});

describe('a session token that is not good', () => {
  const refused: Array<[string, () => string, number, string]> = [
    ['expired (a minute ago)', () => token(SHOP_C, { expiresInS: -60 }), 401, 'has expired'],
    ['not valid yet (nbf a minute ahead)', () => token(SHOP_C, { notBeforeS: 60 }), 401, 'not valid yet'],
    [
      'for another app (wrong aud)',
      () => token(SHOP_C, { claims: { aud: 'another-apps-client-id' } }),
      401,
      'aud is not this client id',
    ],
    [
      'signed with another secret',
      () => token(SHOP_C, { secret: 'someone-elses-secret' }),
      401,
      "not signed with this app's client secret",
    ],
    [
      'issued by another shop than it names (iss and dest differ)',
      () => token(SHOP_C, { claims: { iss: `https://${SHOP_A}/admin` } }),
      401,
      'iss and dest differ',
    ],
    ['without exp', () => token(SHOP_C, { claims: { exp: undefined } }), 401, 'no exp or nbf'],
    ['for a shop the bridge does not serve', () => token(STRANGER), 403, "is not one of this bridge's shops"],
    ['not a JWT at all', () => 'not-a-session-token', 401, 'a valid admin token is required'],
  ];
  it.each(refused)(
    '%s: refused, no record, no token exchange, and never quoted back',
    async (_name, make, status, why) => {
      const given = make();
      const sessions = (await running.bridge.engine.store.listRecords(raw('session'))).length;
      const before = exchanges();
      const response = await call('/orders', given);
      expect(response.status).toBe(status);
      const text = await response.text();
      expect(text).toContain(why);
      expect(text).not.toContain(given);
      expect((await running.bridge.engine.store.listRecords(raw('session'))).length).toBe(sessions);
      expect(await session(SHOP_C)).toBeUndefined();
      expect(exchanges()).toBe(before);
    },
  );
});

it('never writes a session token, an access token or the client secret to the log', async () => {
  const given = token(SHOP_A);
  await call('/orders', given);
  await call('/orders', token(SHOP_C, { expiresInS: -60 }));
  const log = logLines.join('');
  const accessToken = (await session(SHOP_A))!.accessToken;
  for (const secret of [given, accessToken, APP_SECRET, APP_PREVIOUS_SECRET, ADMIN_TOKEN])
    expect(log).not.toContain(secret);
  // The log still says what happened.
  expect(log).toContain('"how":"token_exchange"');
  expect(log).toContain('the session token has expired');
});

it('refused by Shopify at token exchange (it expired on its way there): 401 with Shopify’s retry header, so the page tries once more with a fresh one', async () => {
  fake.clock.offsetMs = 5 * 60_000;
  try {
    const response = await call('/orders', token(SHOP_C));
    expect(response.status).toBe(401);
    expect(response.headers.get('x-shopify-retry-invalid-session-request')).toBe('1');
    expect(await session(SHOP_C)).toBeUndefined();
  } finally {
    fake.clock.offsetMs = 0;
  }
  // The retry, with a fresh token Shopify takes.
  expect((await call('/orders', token(SHOP_C))).status).toBe(200);
});
