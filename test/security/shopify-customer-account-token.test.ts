// Security: over HTTP against the running bridge (a Shopify app beside the fake Shopify, the sandbox behind it),
// the customer account extension's route /shopify/storefront/account-points, called as the extension calls it:
// from https://extensions.shopifycdn.com with `Authorization: Bearer <session token>`, signed as Shopify signs
// it (HS256 with the client secret). A customer reads their own points; every other token is refused with 401
// before anything of any customer is read; the token decides who asks, nothing else sent does, its origin
// included: Shopify documents that UI extensions run in a web worker whose origin may be null or change, and asks
// for `Access-Control-Allow-Origin: *` (https://shopify.dev/docs/apps/build/customer-accounts/capabilities#network-access),
// so any origin may read an answer, without credentials, and only the token opens one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { createLogger } from '../../src/logger.ts';
import { shopifyCustomerNode, type FakeShopify } from '../helpers/fake-shopify.ts';
import {
  APP_KEY,
  APP_PREVIOUS_SECRET,
  APP_SECRET,
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { mintCustomerAccountToken, mintSessionToken } from '../helpers/shopify-app-links.ts';
import { loadPoints, redeemReward } from '../../extensions/loyalty-account/src/fetch-points.ts';
import { crossOriginFetch } from '../helpers/cors-fetch.ts';
import { shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { sandboxEarned, storefrontShopWithPoints } from '../helpers/shopify-storefront-shop.ts';

const SHOP = 'account-shop.myshopify.com';
/** Installed and served, its storefront off. */
const OTHER = 'other-account-shop.myshopify.com';
/** Never installed. */
const STRANGER = 'stranger-shop.myshopify.com';
const ORDER = '6100008801';
const ORIGIN = 'https://extensions.shopifycdn.com';
const GRACE = { email: 'grace@example.com', phone: '+12125550142' };

let fake: FakeShopify;
let running: ShopifyAppBridge;
let brandId = '';
const logLines: string[] = [];

type Answer = { status: number; text: string; body: Record<string, any>; headers: Headers };
const accountPoints = async (token: string | undefined, origin = ORIGIN, query = ''): Promise<Answer> => {
  const response = await fetch(`${running.url}/shopify/storefront/account-points${query}`, {
    headers: { origin, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    body: (text ? JSON.parse(text) : {}) as Record<string, any>,
    headers: response.headers,
  };
};
const customerToken = (
  customerId: string | undefined,
  more: Partial<Parameters<typeof mintCustomerAccountToken>[0]> = {},
) => mintCustomerAccountToken({ shop: SHOP, apiKey: APP_KEY, secret: APP_SECRET, customerId, ...more });
const sandboxTotal = () => sandboxEarned(running, brandId);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
// What the operator's log says of each refusal (adapters/shopify/customer-account-token.ts).
const NO_BEARER = 'the request carries no session token of the shape Shopify makes (Authorization: Bearer)';
const BAD_SIG = "the session token is not signed with this app's client secret";
const AUD = 'the session token is for another app (aud is not this client id)';
const EXPIRED = 'the session token has expired';
const NBF = 'the session token is not valid yet';
const MISSING = 'the session token has no exp or nbf';
const ADMIN = "the session token is an admin's (iss names the admin), not a customer account extension's";
const NOT_CUSTOMER = 'the session token names no customer (sub is not a Customer GID): not a customer account token';
const STRANGER_REFUSED = `${STRANGER} is not a shop this bridge serves`;
const NO_SHOP = 'the session token does not name a shop domain (dest)';
const ALG = 'the session token is not signed with HS256';
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as object;

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  for (const shop of [SHOP, OTHER]) fake.install(shop);
  fake.shop(SHOP).customers.set('7001', shopifyCustomerNode('7001', GRACE));
  fake.shop(SHOP).customers.set('7002', shopifyCustomerNode('7002', { email: 'linus@example.com' }));
  fake.shop(OTHER).customers.set('7001', shopifyCustomerNode('7001', { email: 'grace@example.com' }));
  running = await startShopifyAppBridge(
    fake,
    {
      DATA_DIR: tempDataDir(),
      SHOPIFY_SHOPS: '',
      SHOPIFY_OPEN_INSTALLS: 'true',
      ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
      SHOPIFY_API_SECRET_PREVIOUS: APP_PREVIOUS_SECRET,
      LOG_LEVEL: 'debug',
    },
    createLogger({ level: 'debug', destination: { write: (line: string) => void logLines.push(line) } }),
  );
  brandId = await storefrontShopWithPoints(running, fake, SHOP, ORDER);
  expect((await asShop(running, OTHER).post('/account', { sandbox: true })).status).toBe(201);
}, 30_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

describe("the customer account extension's route", () => {
  it('shows a signed-in customer their own balance and history, readable by the extension wherever it runs', async () => {
    const mine = await accountPoints(customerToken('7001'));
    expect(mine.status).toBe(200);
    expect(mine.headers.get('access-control-allow-origin')).toBe('*');
    expect(mine.headers.get('access-control-allow-credentials')).toBeNull();
    expect(mine.body.customer).toBe('signed-in');
    expect(mine.body.balance.available + mine.body.balance.pending).toBe(sandboxTotal());
    expect(mine.body.history).toHaveLength(1);
    expect(mine.body.waysToEarn.length).toBeGreaterThan(0);
    for (const secret of [GRACE.email, GRACE.phone]) expect(mine.text).not.toContain(secret);
  });

  it("gives the extension's own call (fetch-points.ts) what it shows: her balance, history and ways to earn", async () => {
    const screen = await loadPoints(
      { bridgeUrl: running.url, token: async () => customerToken('7001') },
      { locale: 'en-US', timeZone: 'UTC' },
    );
    expect(screen.warning).toBeUndefined();
    expect(screen.balance?.values?.count).toBe((await accountPoints(customerToken('7001'))).body.balance.available);
    expect(screen.history).toHaveLength(1);
    expect(screen.ways.length).toBeGreaterThan(0);
    // A token Shopify did not sign: the extension says so as a warning, and shows no balance.
    const refused = await loadPoints(
      { bridgeUrl: running.url, token: async () => customerToken('7001', { secret: 'guessed' }) },
      { locale: 'en-US' },
    );
    expect([refused.warning?.key, refused.balance]).toEqual(['error', undefined]);
  });

  it('answers the same as the app proxy route: a guest (no sub) sees the ways to earn', async () => {
    const guest = await accountPoints(customerToken(undefined));
    expect(guest.status).toBe(200);
    // No rewards set yet in this shop: the list is there, empty.
    expect(guest.body).toEqual({ customer: 'guest', waysToEarn: expect.any(Array), rewards: [], signIn: true });
  });

  it('takes a token signed with the previous client secret during a rotation', async () => {
    const answer = await accountPoints(customerToken('7001', { secret: APP_PREVIOUS_SECRET }));
    expect(answer.status).toBe(200);
    expect(answer.body.history).toHaveLength(1);
  });

  it('lets the token alone say who asks: another customer sees none of her points, whatever else is sent', async () => {
    const linus = await accountPoints(customerToken('7002'));
    expect(linus.status).toBe(200);
    expect(linus.body.customer).toBe('signed-in');
    expect(linus.body.balance?.available ?? 0).toBe(0);
    expect(linus.body.history ?? []).toEqual([]);
    // Her id in the query, as the proxy's parameters or any other name: read by nothing.
    const query = '?logged_in_customer_id=7001&customer=7001&customerId=7001&shop=' + SHOP;
    const withQuery = await accountPoints(customerToken('7002'), ORIGIN, query);
    expect(withQuery.body.history ?? []).toEqual([]);
    // Her id in a second Authorization value: not a bearer of one token, refused.
    const twice = await fetch(`${running.url}/shopify/storefront/account-points`, {
      headers: [
        ['origin', ORIGIN],
        ['authorization', `Bearer ${customerToken('7002')}`],
        ['authorization', `Bearer ${customerToken('7001')}`],
      ],
    });
    expect(twice.status).toBe(401);
  });

  it('refuses every token that is not a good customer account token of this app for a served shop, 401, reading nothing', async () => {
    const good = customerToken('7001');
    const [header, payload] = good.split('.') as [string, string];
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rs256Header = b64({ alg: 'RS256', typ: 'JWT' });
    const refusals: Array<[string, string | undefined, string]> = [
      ['no token', undefined, NO_BEARER],
      ['not a JWT', 'not-a-token', NO_BEARER],
      [
        'forged signature',
        `${header}.${payload}.${createHmac('sha256', 'guessed').update(`${header}.${payload}`).digest('base64url')}`,
        BAD_SIG,
      ],
      [
        'claims changed after signing',
        `${header}.${b64({ ...claimsOf(good), sub: 'gid://shopify/Customer/7002' })}.${good.split('.')[2]}`,
        BAD_SIG,
      ],
      [
        "another app's secret and aud",
        customerToken('7001', { apiKey: 'another-app', secret: 'another-app-secret' }),
        BAD_SIG,
      ],
      ["this app's secret, another app's aud", customerToken('7001', { apiKey: 'another-app' }), AUD],
      ['expired', customerToken('7001', { expiresInS: -60 }), EXPIRED],
      ['not yet valid', customerToken('7001', { notBeforeS: 120 }), NBF],
      ['no exp', customerToken('7001', { claims: { exp: undefined } }), MISSING],
      [
        'an admin session token (numeric sub)',
        mintSessionToken({ shop: SHOP, apiKey: APP_KEY, secret: APP_SECRET }),
        ADMIN,
      ],
      [
        'an admin session token with a customer sub',
        mintSessionToken({
          shop: SHOP,
          apiKey: APP_KEY,
          secret: APP_SECRET,
          claims: { sub: 'gid://shopify/Customer/7001' },
        }),
        ADMIN,
      ],
      ['a staff sub without the admin issuer', customerToken(undefined, { claims: { sub: '42' } }), NOT_CUSTOMER],
      [
        'another GID in sub',
        customerToken(undefined, { claims: { sub: 'gid://shopify/CompanyContact/7001' } }),
        NOT_CUSTOMER,
      ],
      ['a shop never installed', customerToken('7001', { shop: STRANGER }), STRANGER_REFUSED],
      ['dest not a shop domain', customerToken('7001', { claims: { dest: 'https://evil.example' } }), NO_SHOP],
      ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`, ALG],
      [
        'RS256 signed with a key of its own',
        `${rs256Header}.${payload}.${sign('sha256', Buffer.from(`${rs256Header}.${payload}`), privateKey).toString('base64url')}`,
        ALG,
      ],
      [
        'RS256 header, HMAC with the client secret',
        `${rs256Header}.${payload}.${createHmac('sha256', APP_SECRET).update(`${rs256Header}.${payload}`).digest('base64url')}`,
        ALG,
      ],
      [
        'HS512 with the client secret',
        `${b64({ alg: 'HS512', typ: 'JWT' })}.${payload}.${createHmac('sha512', APP_SECRET)
          .update(`${b64({ alg: 'HS512', typ: 'JWT' })}.${payload}`)
          .digest('base64url')}`,
        ALG,
      ],
    ];
    const asked = fake.requests.length;
    const logged = logLines.length;
    for (const [why, token] of refusals) {
      const answer = await accountPoints(token);
      expect([why, answer.status, answer.body]).toEqual([
        why,
        401,
        { error: 'this request is not signed by the store' },
      ]);
      // The extension reads the refusal too, to say so.
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    }
    // Nothing of any customer was read from Shopify for them.
    expect(fake.requests.length).toBe(asked);
    const lines = logLines.slice(logged).map((line) => JSON.parse(line) as { msg: string; reason?: string });
    const reasons = lines.filter((line) => line.msg === 'a customer account extension’s request was refused');
    // The operator's log says why, each in words.
    expect(reasons.map((line) => line.reason)).toEqual(refusals.map(([, , reason]) => reason));
    // The log quotes no token, nor any part of one.
    const written = logLines.slice(logged).join('\n');
    for (const [, token] of refusals)
      for (const part of token?.split('.') ?? []) if (part.length > 8) expect(written).not.toContain(part);
  });

  it("opens no other shop's points: a token of a served shop whose storefront is off finds no route", async () => {
    // OTHER is installed and served, with an account, but its merchant never turned its storefront on.
    const answer = await accountPoints(customerToken('7001', { shop: OTHER }));
    expect(answer.status).toBe(404);
    expect(answer.text).not.toContain('balance');
  });

  it("opens no merchant's page with a customer's token: the admin API refuses it, as documented or admin-shaped", async () => {
    const admin = (token: string) =>
      fetch(`${running.url}/admin/api/storefront`, { headers: { authorization: `Bearer ${token}` } });
    expect((await admin(customerToken('7001'))).status).toBe(401);
    const adminShaped = customerToken('7001', { claims: { iss: `https://${SHOP}/admin`, dest: `https://${SHOP}` } });
    expect((await admin(adminShaped)).status).toBe(401);
    // The control: the merchant's own token opens it.
    expect((await asShop(running, SHOP).get('/storefront')).status).toBe(200);
  });

  it('answers the preflight of any origin, "null" included, for the method and header the route takes', async () => {
    const preflight = (origin: string | undefined, headers = 'authorization', method = 'GET') =>
      fetch(`${running.url}/shopify/storefront/account-points`, {
        method: 'OPTIONS',
        headers: {
          ...(origin === undefined ? {} : { origin }),
          'access-control-request-method': method,
          'access-control-request-headers': headers,
        },
      });
    for (const origin of [ORIGIN, 'null', 'https://extensions.shopifycdn-new.example', undefined]) {
      const approved = await preflight(origin);
      expect([origin, approved.status]).toEqual([origin, 204]);
      expect(approved.headers.get('access-control-allow-origin')).toBe('*');
      expect(approved.headers.get('access-control-allow-headers')).toBe('authorization');
      expect(approved.headers.get('access-control-allow-methods')).toBe('GET');
      expect(approved.headers.get('access-control-allow-credentials')).toBeNull();
    }
    // Only what the route takes: no other header, no other method.
    for (const refused of [
      await preflight('null', 'authorization, x-customer-id'),
      await preflight(ORIGIN, 'authorization', 'POST'),
    ]) {
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    }
    // The app proxy's route takes no cross-origin call at all.
    const proxied = await fetch(`${running.url}/shopify/storefront/points`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(proxied.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a call from any origin ("null", another) with her points for a good token, and 401 without one', async () => {
    for (const origin of ['null', 'https://extensions.shopifycdn-new.example']) {
      const mine = await accountPoints(customerToken('7001'), origin);
      expect([origin, mine.status, mine.body.customer]).toEqual([origin, 200, 'signed-in']);
      expect(mine.body.balance.available + mine.body.balance.pending).toBe(sandboxTotal());
      expect(mine.headers.get('access-control-allow-origin')).toBe('*');
      expect(mine.headers.get('access-control-allow-credentials')).toBeNull();
      // No token, or a token that is not Shopify's: refused, whatever the origin.
      for (const token of [undefined, 'not-a-token']) {
        const refused = await accountPoints(token, origin);
        expect([origin, token, refused.status, refused.body]).toEqual([
          origin,
          token,
          401,
          { error: 'this request is not signed by the store' },
        ]);
        expect(refused.text).not.toContain('balance');
      }
    }
  });
});

describe("the customer account extension's redeem (fetch-points.ts's redeemReward)", () => {
  it('spends her points on a reward with her token alone, lists the code, and refuses one out of reach in words', async () => {
    // Her order is fulfilled (its points approved), and the merchant offers rewards once codes may be made.
    const body = shopifyOrderJson({ id: ORDER, fulfillmentStatus: 'fulfilled' });
    const delivered = await fetch(`${running.url}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/fulfilled', body, shop: SHOP, secret: APP_SECRET }),
      body,
    });
    expect(delivered.status).toBe(200);
    await eventually(
      async () => expect((await accountPoints(customerToken('7001'))).body.balance.available).toBe(100),
      15_000,
    );
    fake.scopes = 'read_orders,write_app_proxy,read_customers,write_discounts';
    const saved = await asShop(running, SHOP).put('/storefront/rewards', {
      rewards: [
        { points: 100, amountOff: '2.00', expiresInDays: 7 },
        { points: 5_000, amountOff: '60.00', expiresInDays: 7 },
      ],
    });
    expect(saved.status).toBe(200);
    const [small, big] = saved.body.rewards as Array<{ id: string }>;
    // Called as the extension's web worker calls it: from an opaque origin, under the browser's CORS rules.
    const call = { bridgeUrl: running.url, token: async () => customerToken('7001'), fetch: crossOriginFetch('null') };
    const format = { locale: 'en-US', timeZone: 'UTC' };

    const before = await loadPoints(call, format);
    expect(before.canRedeem).toBe(true);
    expect(before.rewards.map((each) => [each.words, each.short?.values?.points])).toEqual([
      ['100 points for 2.00 off', undefined],
      ['5,000 points for 60.00 off', '4,900'],
    ]);

    const refused = await redeemReward(call, big!.id, format);
    expect(refused).toEqual({
      ok: false,
      error: { key: 'unavailable', values: { reason: 'You do not have enough points for this reward yet.' } },
    });
    const made = await redeemReward(call, small!.id, format);
    if (!made.ok) throw new Error(`not redeemed: ${JSON.stringify(made.error)}`);
    expect(made.code.code).toMatch(/^LB-[A-Z2-9]{16}$/);
    expect(made.code.gives).toEqual({ key: 'amountOff', values: { amount: '2.00' } });
    const after = await loadPoints(call, format);
    expect(after.balance?.values?.points).toBe('0');
    expect(after.codes.map((each) => each.code)).toEqual([made.code.code]);
    // Another customer's token sees neither her code nor a way to spend her points.
    const linus = await loadPoints({ ...call, token: async () => customerToken('7002') }, format);
    expect(linus.codes).toEqual([]);
    // A guest's token is told to sign in.
    const guest = await redeemReward({ ...call, token: async () => customerToken(undefined) }, small!.id, format);
    expect(guest).toEqual({ ok: false, error: { key: 'signInToRedeem' } });
  });
});
