// A Shopify customer's points in the store, end to end: the whole bridge in process as a Shopify app beside the
// fake Shopify (Admin API over HTTP), a shop installed by token exchange and linked to a trial account on the
// bridge's sandbox, a real signed orders/paid for its customer 7001, then /shopify/storefront/points asked the way
// Shopify's app proxy forwards https://<shop>/apps/loyalty/points (signed with the app's client secret). What a
// customer notices: nothing until the merchant turns it on (which waits for write_app_proxy, then read_customers),
// ways to earn for a guest, their own points for them and no one else's, and nothing at all for what Shopify did
// not sign.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { shopifyCustomerNode, type FakeShopify } from '../helpers/fake-shopify.ts';
import { shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import {
  APP_SECRET,
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { proxiedQuery } from '../helpers/shopify-proxy-signer.ts';

/** Linked to a trial account on the bridge's sandbox. */
const SHOP = 'storefront-shop.myshopify.com';
/** Installed and served, its storefront on, but linked to no account. */
const UNLINKED = 'unlinked-shop.myshopify.com';
/** Never installed: the bridge holds no access to it. */
const STRANGER = 'stranger-shop.myshopify.com';
const ORDER = '6100004217';
const SECOND_ORDER = '6100005318';
const GRACE = { email: 'grace@example.com', phone: '+12125550142' };

let fake: FakeShopify;
let running: ShopifyAppBridge;
let brandId = '';
const logLines: string[] = [];

type Answer = { status: number; text: string; body: Record<string, any> };
const points = async (query: string): Promise<Answer> => {
  const response = await fetch(`${running.url}/shopify/storefront/points?${query}`);
  const text = await response.text();
  return { status: response.status, text, body: (text ? JSON.parse(text) : {}) as Record<string, any> };
};
/** As Shopify's app proxy forwards a customer's (or, without one, a guest's) request from the shop's pages. */
const signed = (shop: string, customerId = '', options: { timestamp?: number; secret?: string } = {}) =>
  proxiedQuery(
    { shop, customerId, ...(options.timestamp ? { timestamp: options.timestamp } : {}) },
    options.secret ?? APP_SECRET,
  );
const turn = (shop: string, on: boolean) => asShop(running, shop).put('/storefront', { on });
/** The points the trial account's sandbox gave: approved ones are available, pending ones pending. */
const sandboxPoints = () => {
  const earnings =
    running.bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brandId)?.store.snapshot().earnings ??
    [];
  const sum = (status: string) =>
    earnings.filter((each) => each.status === status).reduce((total, each) => total + each.points, 0);
  return { orders: earnings.map((each) => each.orderId), available: sum('approved'), pending: sum('pending') };
};
/** Customer 7001 (grace@example.com, shopifyOrderJson's customer) pays for an order, and Shopify says so. */
async function payOrder(id: string) {
  const body = shopifyOrderJson({ id });
  const delivered = await fetch(`${running.url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic: 'orders/paid', body, shop: SHOP, secret: APP_SECRET }),
    body,
  });
  expect(delivered.status).toBe(200);
}
/** Shopify's record of the merchant granting scopes now (after shopify.scopes.request). */
async function grantScopes(shop: string, scopes: string) {
  const previous = fake.scopes.split(',');
  fake.scopes = scopes;
  const body = JSON.stringify({ id: 1, previous, current: scopes.split(','), updated_at: new Date().toISOString() });
  const response = await fetch(`${running.url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic: 'app/scopes_update', body, shop, secret: APP_SECRET }),
    body,
  });
  expect(response.status).toBe(200);
}

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  for (const shop of [SHOP, UNLINKED]) fake.install(shop);
  fake.shop(SHOP).customers.set('7001', shopifyCustomerNode('7001', GRACE));
  fake.shop(SHOP).customers.set('7002', shopifyCustomerNode('7002', { email: 'linus@example.com' }));
  // Customer ids are the shop's own: the other shop's 7001 is someone else.
  fake.shop(UNLINKED).customers.set('7001', shopifyCustomerNode('7001', { email: 'grace@example.com' }));
  fake.shop(UNLINKED).customers.set('9001', shopifyCustomerNode('9001', { email: 'ada@example.com' }));
  running = await startShopifyAppBridge(
    fake,
    {
      DATA_DIR: tempDataDir(),
      SHOPIFY_SHOPS: '',
      SHOPIFY_OPEN_INSTALLS: 'true',
      ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
      LOG_LEVEL: 'debug',
    },
    createLogger({ level: 'debug', destination: { write: (line: string) => void logLines.push(line) } }),
  );
  // The merchant opens the app (token exchange) and makes a trial account on the bridge's sandbox.
  const made = await asShop(running, SHOP).post('/account', { sandbox: true });
  expect(made.status).toBe(201);
  brandId = made.body.account.brandId as string;
  expect((await asShop(running, UNLINKED).get('/storefront')).body).toEqual({ offered: true, on: false });
  // Customer 7001 (grace@example.com) pays for an order, and Shopify says so.
  await payOrder(ORDER);
  await eventually(() => expect(sandboxPoints().orders).toEqual([ORDER]), 15_000);
}, 30_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

describe("a Shopify customer's points in the store", () => {
  it('is not there until the merchant turns it on: 404, guest or customer', async () => {
    expect((await asShop(running, SHOP).get('/storefront')).body).toEqual({ offered: true, on: false });
    expect((await points(signed(SHOP))).status).toBe(404);
    expect((await points(signed(SHOP, '7001'))).status).toBe(404);
  });

  it('waits for the app proxy’s scope on an install made without it, says how to get it, and turns on once Shopify says it was granted', async () => {
    // Installed before the app asked for write_app_proxy: it approved read_customers, and Shopify's proxy would
    // route nothing of the store's /apps/loyalty to the bridge.
    await grantScopes(SHOP, 'read_orders,read_customers');
    const refused = await turn(SHOP, true);
    expect(refused.status).toBe(409);
    expect(refused.body.missingScopes).toEqual(['write_app_proxy']);
    expect(refused.body.errors[0]).toContain(
      'its app proxy, which the points launcher and the “Earn points” block ask',
    );
    expect(refused.body.errors[0]).toContain(
      'the bridge’s operator releases the app’s version that asks for write_app_proxy',
    );
    expect(refused.body.fix).toBe('Approve what the app asks for, then turn it on again.');
    expect((await asShop(running, SHOP).get('/storefront')).body).toEqual({ offered: true, on: false });

    // The operator released the version; the merchant opened the app and approved: Shopify's app/scopes_update.
    await grantScopes(SHOP, 'read_orders,write_app_proxy,read_customers');
    expect((await turn(SHOP, true)).status).toBe(200);
    expect((await asShop(running, SHOP).get('/storefront')).body).toEqual({ offered: true, on: true });
    // Back as it was for the next test: off, and without read_customers (the merchant took it back).
    expect((await turn(SHOP, false)).status).toBe(200);
    await grantScopes(SHOP, 'read_orders,write_app_proxy');
  });

  it('waits for access to customers, says so in words, and turns on once the merchant grants it', async () => {
    const refused = await turn(SHOP, true);
    expect(refused.status).toBe(409);
    expect(refused.body.missingScopes).toEqual(['read_customers']);
    expect(refused.body.errors[0]).toContain('may not read your customers’ e-mail and phone');
    expect(refused.body.fix).toContain('Approve');
    expect((await asShop(running, SHOP).get('/storefront')).body).toEqual({ offered: true, on: false });
    expect((await points(signed(SHOP, '7001'))).status).toBe(404);

    // The merchant approves in Shopify's dialog (shopify.scopes.request) and the page turns it on at once:
    // Shopify's app/scopes_update may come after.
    fake.scopes = 'read_orders,write_app_proxy,read_customers';
    const on = await turn(SHOP, true);
    expect([on.status, on.body]).toEqual([200, { offered: true, on: true }]);
    expect((await asShop(running, SHOP).get('/storefront')).body).toEqual({ offered: true, on: true });
  });

  it('shows a signed-in guest the ways to earn and a sign-in, and no balance', async () => {
    const guest = await points(signed(SHOP));
    expect(guest.status).toBe(200);
    expect(guest.body).toMatchObject({ customer: 'guest', signIn: true });
    // An order earns what the sandbox gave customer 7001 for theirs.
    const given = sandboxPoints();
    expect(guest.body.waysToEarn).toEqual([
      { words: 'Place an order', points: given.available + given.pending, from: '0' },
    ]);
    expect(guest.body.balance).toBeUndefined();
    expect(guest.body.history).toBeUndefined();
  });

  it('shows customer 7001 the points the sandbox gave for their order, and their history, without their contact', async () => {
    const mine = await points(signed(SHOP, '7001'));
    expect(mine.status).toBe(200);
    expect(mine.body.customer).toBe('signed-in');
    const given = sandboxPoints();
    expect(given.available + given.pending).toBeGreaterThan(0);
    expect(mine.body.balance).toMatchObject({ available: given.available, pending: given.pending, stale: false });
    expect(mine.body.history).toHaveLength(1);
    expect(mine.body.history[0].points).toBe(given.available + given.pending);
    expect(mine.body.history[0].words).toContain(`#${ORDER.slice(-4)}`);
    for (const secret of [GRACE.email, 'grace', GRACE.phone, '2125550142']) expect(mine.text).not.toContain(secret);
  });

  it("shows customer 7001's next order once the bridge has earned it, not the balance kept before", async () => {
    const before = (await points(signed(SHOP, '7001'))).body.balance;
    await payOrder(SECOND_ORDER);
    await eventually(async () => {
      const given = sandboxPoints();
      expect(given.orders).toEqual([ORDER, SECOND_ORDER]);
      const after = (await points(signed(SHOP, '7001'))).body;
      expect(after.balance.available + after.balance.pending).toBe(given.available + given.pending);
      expect(after.balance.available + after.balance.pending).toBeGreaterThan(before.available + before.pending);
      expect(after.history).toHaveLength(2);
    }, 15_000);
  });

  it("never shows customer 7002 any of 7001's points", async () => {
    const other = await points(signed(SHOP, '7002'));
    expect(other.status).toBe(200);
    expect(other.body.customer).toBe('signed-in');
    expect(other.body.balance?.available ?? 0).toBe(0);
    expect(other.body.balance?.pending ?? 0).toBe(0);
    expect(other.body.history ?? []).toEqual([]);
    for (const order of [ORDER, SECOND_ORDER]) expect(other.text).not.toContain(`#${order.slice(-4)}`);
  });

  it('answers 401 and reads nothing for what Shopify did not sign as it is', async () => {
    const now = Math.floor(Date.now() / 1000);
    const changed = new URLSearchParams(signed(SHOP, '7002'));
    changed.set('logged_in_customer_id', '7001');
    const otherShop = new URLSearchParams(signed(SHOP, '7001'));
    otherShop.set('shop', UNLINKED);
    const refusals = [
      changed.toString(),
      signed(SHOP, '7001', { timestamp: now - 10 * 60 }),
      otherShop.toString(),
      signed(SHOP, '7001', { secret: 'another-apps-client-secret-0123' }),
      // Signed by the app's secret for a shop the bridge holds no install of.
      signed(STRANGER, '7001'),
      new URLSearchParams({ shop: SHOP, logged_in_customer_id: '7001' }).toString(),
    ];
    const asked = fake.requests.length;
    const logged = logLines.length;
    for (const query of refusals) {
      const answer = await points(query);
      expect([answer.status, answer.body]).toEqual([401, { error: 'this request is not signed by the store' }]);
    }
    // Nothing of any customer was read from Shopify for them.
    expect(fake.requests.length).toBe(asked);
    // The operator's log says why, each in words, and quotes none of what was sent.
    const reasons = logLines
      .slice(logged)
      .map((line) => JSON.parse(line) as { msg: string; reason?: string })
      .filter((line) => line.msg === 'a storefront request through the Shopify app proxy was refused')
      .map((line) => line.reason);
    const mismatch = 'the signature does not match (not signed with this app’s secret, or changed after signing)';
    expect(reasons).toEqual([
      mismatch,
      'the request is stale (its timestamp is more than 90 seconds off)',
      mismatch,
      mismatch,
      `${STRANGER} is not a shop this bridge serves`,
      'the request is not signed by Shopify’s app proxy',
    ]);
  });

  it("shows nothing of the first shop's to a shop linked to no account, or to another shop's customer", async () => {
    await grantScopes(UNLINKED, 'read_orders,write_app_proxy,read_customers');
    // Turning it on is refused, with the fix: every customer would read 404.
    const turned = await turn(UNLINKED, true);
    expect(turned.status).toBe(409);
    expect((turned.body as { fix: string }).fix).toMatch(/^Link this shop to an account first/);
    // The unlinked shop's own customer 7001 (the same e-mail, even) and its guests: nothing there.
    for (const query of [signed(UNLINKED, '7001'), signed(UNLINKED)]) {
      const answer = await points(query);
      expect(answer.status).toBe(404);
      expect(answer.text).not.toContain('balance');
    }
    // The other shop's customer 9001 through this shop's proxy: no record of this shop, no points.
    const stranger = await points(signed(SHOP, '9001'));
    expect(stranger.status).toBe(200);
    expect(stranger.body.balance).toBeUndefined();
    expect(stranger.body.history).toBeUndefined();
    expect(stranger.text).not.toContain(`#${ORDER.slice(-4)}`);
  });

  it('tells a customer the store has to finish setting up when the merchant took access to customers back', async () => {
    fake.shop(SHOP).customers.set('7003', shopifyCustomerNode('7003', { email: 'edsger@example.com' }));
    fake.scopes = 'read_orders,write_app_proxy';
    try {
      const answer = await points(signed(SHOP, '7003'));
      expect(answer.status).toBe(200);
      expect(answer.body.unavailable).toContain('the store has to finish setting this up');
      expect(answer.body.balance).toBeUndefined();
      expect(answer.text).not.toContain('edsger');
    } finally {
      await grantScopes(SHOP, 'read_orders,write_app_proxy,read_customers');
    }
    // Shopify's app/scopes_update said the merchant granted it again: the refusal kept for the shop went at once,
    // and a customer the service has never seen, with no order, reads 0 points with nothing missing elsewhere.
    const again = await points(signed(SHOP, '7003'));
    expect(again.body.unavailable).toBeUndefined();
    expect(again.body.balance).toMatchObject({ available: 0, pending: 0, missingElsewhere: false });
    expect(again.text).not.toContain('edsger');
  });

  it('tells the merchant on Home when the storefront, on, lost write_app_proxy (a release) or read_customers (revoked)', async () => {
    const attention = async () =>
      (
        (await asShop(running, SHOP).get('/attention')).body.attention as Array<{
          kind: string;
          why: string;
          fix: string;
        }>
      ).filter((item) => item.kind === 'storefront_not_ready');
    expect(await attention()).toEqual([]);
    // The operator released a version of the app without the scope: Shopify's proxy routes nothing to the bridge
    // now, and customers' launchers say they cannot be shown, while the switch still says on.
    await grantScopes(SHOP, 'read_orders,read_customers');
    try {
      const [item] = await attention();
      expect(item?.why).toContain('Your storefront is on, but customers cannot see their points now');
      expect(item?.why).toContain('the bridge’s operator releases the app’s version that asks for write_app_proxy');
      // The merchant's choice is kept: once the scope is back, it serves again with nothing to turn.
      expect((await asShop(running, SHOP).get('/storefront')).body).toEqual({ offered: true, on: true });
    } finally {
      await grantScopes(SHOP, 'read_orders,write_app_proxy,read_customers');
    }
    expect(await attention()).toEqual([]);
    // The merchant revoked the optional read_customers: only turning the switch again asks for it.
    await grantScopes(SHOP, 'read_orders,write_app_proxy');
    try {
      const [item] = await attention();
      expect(item?.why).toContain('approve access to customers');
      expect(item?.fix).toContain('turn it off and on again in Set up');
    } finally {
      await grantScopes(SHOP, 'read_orders,write_app_proxy,read_customers');
    }
  });

  it('is gone again once the merchant turns it off', async () => {
    expect((await turn(SHOP, false)).status).toBe(200);
    for (const query of [signed(SHOP, '7001'), signed(SHOP)]) expect((await points(query)).status).toBe(404);
  });

  it('wrote nothing of what it read from the customers’ records into the log', () => {
    expect(logLines.some((line) => line.includes('storefront'))).toBe(true);
    // Only the customer records held these (the orders carry grace@example.com, no phone).
    for (const secret of ['2125550142', 'linus@', 'edsger@', 'ada@']) {
      expect(logLines.filter((line) => line.includes(secret))).toEqual([]);
    }
  });
});
