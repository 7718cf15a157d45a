// The theme app extension in Chromium: a store's pages with the points launcher (the app embed) and "Earn N
// points" (the app block), their Liquid rendered by a tiny stand-in (test/helpers/theme-store.ts), the script
// and stylesheet served where Shopify's CDN would serve them (page.route: the only thing routed), and the
// store's own /apps/loyalty/* forwarding to the whole bridge as Shopify's app proxy does, signed with the
// app's client secret and carrying the customer the store's session names. The bridge beside the fake Shopify
// (Admin API over HTTP), a shop on a trial account on the bridge's sandbox, real signed orders/paid.
//
// What a customer notices: their balance and history (from the sandbox's figures, and from the ledger when the
// sandbox hides them, which the page says), a guest's ways to earn and sign-in, "Earn N points" by the price,
// and never another customer's points.
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactsDir, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
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
import { EXTENSION_DIR, SIGNED_IN_COOKIE, startThemeStore, type ThemeStore } from '../helpers/theme-store.ts';

const SHOP = 'hopper-and-co.myshopify.com';
/** Where asset_url points on a real store: Shopify's CDN, which the browser is routed to the extension's files for. */
const CDN = 'https://cdn.shopify.com/extensions/loyalty-theme/assets/';
const CUSTOMERS = {
  grace: { id: '7001', email: 'grace@example.com' },
  linus: { id: '7002', email: 'linus@example.com' },
  ada: { id: '7003', email: 'ada@example.com' },
  edsger: { id: '7004', email: 'edsger@example.com' },
};
/**
 * Grace pays twelve orders and eleven are fulfilled, so her available points run past a thousand with one order's
 * pending; Linus pays one; Ada one (read from the ledger).
 */
const GRACE_ORDERS = Array.from({ length: 12 }, (_, index) => String(6200004000 + index));
const LINUS_ORDER = '6200005318';
const ADA_ORDER = '6200007777';
/** The account's MIN_ORDER_TOTAL: a product below it earns nothing, and the block says nothing. */
const MINIMUM = '50';

let fake: FakeShopify;
let running: ShopifyAppBridge;
let store: ThemeStore;
let browser: Browser;
let brandId = '';

/** A customer pays an order (or, `fulfilled`, the order is fulfilled: its points are approved), and Shopify says so. */
async function payOrder(id: string, customer: { id: string; email: string }, fulfilled = false) {
  const body = shopifyOrderJson({
    id,
    email: customer.email,
    customer: { id: Number(customer.id), first_name: 'A', last_name: 'Customer', email: customer.email, phone: null },
    ...(fulfilled ? { fulfillmentStatus: 'fulfilled' } : {}),
  });
  const topic = fulfilled ? 'orders/fulfilled' : 'orders/paid';
  const delivered = await fetch(`${running.url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic, body, shop: SHOP, secret: APP_SECRET }),
    body,
  });
  expect(delivered.status).toBe(200);
}
/** What the trial account's sandbox gave a customer: approved points are available, pending ones pending. */
function sandboxPoints(email: string) {
  const earnings = (
    running.bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brandId)?.store.snapshot().earnings ??
    []
  ).filter((each) => each.email === email);
  const sum = (status: string) =>
    earnings.filter((each) => each.status === status).reduce((total, each) => total + each.points, 0);
  return { orders: earnings.map((each) => each.orderId), available: sum('approved'), pending: sum('pending') };
}

/** The day after a medium date, where a test runs across midnight. */
const tomorrowOf = (medium: string) =>
  new Date(Date.parse(medium) + 86_400_000).toLocaleDateString('en', { dateStyle: 'medium' });

/** A browser of the store: a guest, or signed in as a customer (the store's session cookie). */
async function visitor(customerId?: string, width = 1280): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  if (customerId) await signIn(context, customerId);
  // Only what would come from Shopify's CDN is routed: the extension's assets, read from the repository.
  await context.route(`${CDN}*`, (route) => {
    const name = new URL(route.request().url()).pathname.split('/').at(-1)!;
    return route.fulfill({
      status: 200,
      contentType: name.endsWith('.js') ? 'text/javascript' : 'text/css',
      body: readFileSync(`${EXTENSION_DIR}assets/${name}`, 'utf8'),
    });
  });
  return { context, page: await context.newPage() };
}
const signIn = (context: BrowserContext, customerId: string) =>
  context.addCookies([{ name: SIGNED_IN_COOKIE, value: customerId, url: store.url }]);

/** Opens the launcher and waits for what the app proxy answered. */
async function openLauncher(page: Page) {
  const button = page.getByRole('button', { name: 'Your points' });
  await expect.poll(() => button.getAttribute('aria-expanded')).toBe('false');
  await button.click();
  const panel = page.getByRole('dialog', { name: 'Your points' });
  await panel.waitFor();
  await page.locator('[data-loyalty-body]:not([aria-busy])').waitFor();
  return panel;
}

beforeAll(async () => {
  if (!chromiumAvailable) return;
  fake = await startFakeShopifyForApp();
  fake.install(SHOP);
  for (const { id, email } of Object.values(CUSTOMERS))
    fake.shop(SHOP).customers.set(id, shopifyCustomerNode(id, { email }));
  running = await startShopifyAppBridge(fake, {
    DATA_DIR: tempDataDir(),
    SHOPIFY_SHOPS: '',
    SHOPIFY_OPEN_INSTALLS: 'true',
    ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
  });
  // The merchant makes a trial account on the bridge's sandbox, and turns the storefront on.
  const made = await asShop(running, SHOP).post('/account', { sandbox: true });
  expect(made.status).toBe(201);
  brandId = made.body.account.brandId as string;
  // The account's program: orders of 50 or more earn.
  expect((await asShop(running, SHOP).patch('/account/settings', { MIN_ORDER_TOTAL: MINIMUM })).status).toBe(200);
  fake.scopes = 'read_orders,write_app_proxy,read_customers';
  expect((await asShop(running, SHOP).put('/storefront', { on: true })).status).toBe(200);
  for (const id of GRACE_ORDERS) await payOrder(id, CUSTOMERS.grace);
  await payOrder(LINUS_ORDER, CUSTOMERS.linus);
  await eventually(() => expect(sandboxPoints(CUSTOMERS.grace.email).orders).toHaveLength(GRACE_ORDERS.length));
  for (const id of GRACE_ORDERS.slice(1)) await payOrder(id, CUSTOMERS.grace, true);
  await eventually(() => {
    expect(sandboxPoints(CUSTOMERS.grace.email).available).toBe(100 * (GRACE_ORDERS.length - 1));
    expect(sandboxPoints(CUSTOMERS.linus.email).orders).toEqual([LINUS_ORDER]);
  }, 20_000);
  // Live orders come before a customer's read (docs/storefront.md, "The budget"): right after the orders' burst
  // of calls a read answers "try again in a moment". Wait, as a customer would, until one with no orders is read.
  await running.bridge.engine.drain();
  await eventually(async () => {
    const query = proxiedQuery({ shop: SHOP, customerId: CUSTOMERS.edsger.id }, APP_SECRET);
    const answer = (await (await fetch(`${running.url}/shopify/storefront/points?${query}`)).json()) as any;
    expect(answer.balance).toBeDefined();
  }, 15_000);
  store = await startThemeStore({
    shop: SHOP,
    bridge: { url: running.url, secret: APP_SECRET, grantedScopes: () => fake.scopes },
    assetBase: CDN,
    pages: {
      index: { template: 'index' },
      product: { template: 'product', total: 12_000 },
      cart: { template: 'cart', total: 4_999 },
    },
  });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await store?.close();
  await running?.stop();
  if (fake) await stopFakeShopifyForApp(fake);
});

describe.skipIf(!chromiumAvailable)('the points launcher and "Earn N points" on a Shopify store', () => {
  it('asks nothing until the launcher is opened, then shows a signed-in customer their balance and history', async () => {
    const { context, page } = await visitor(CUSTOMERS.grace.id);
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/apps/loyalty/')) asked.push(request.url());
    });
    // The page's own address carries a query: the widget must not pass it (or anything) on.
    await page.goto(`${store.url}/?utm_source=newsletter`);
    await page.waitForLoadState('networkidle');
    expect(asked).toEqual([]);

    const panel = await openLauncher(page);
    expect(asked).toEqual([`${store.url}/apps/loyalty/points`]);
    const given = sandboxPoints(CUSTOMERS.grace.email);
    const text = await panel.innerText();
    // Points as numbers, with the thousands separated: 1,100, never 1100; pending ones apart.
    expect(given).toMatchObject({ available: 1_100, pending: 100 });
    expect(text).toContain('1,100 points available');
    expect(text).toContain('100 more on the way');
    expect(text).toContain('Recent activity');
    for (const id of GRACE_ORDERS.slice(-3)) expect(text).toContain(`order #${id.slice(-4)}`);
    expect(text).not.toContain(`#${LINUS_ORDER.slice(-4)}`);
    expect(text).toContain('Ways to earn');
    expect(text).toContain(`Place an order of ${MINIMUM} or more`);
    // The sandbox gave its own figures: nothing is said to be missing.
    expect(text).not.toContain('may not be counted');
    expect(text).not.toContain('grace@');

    await page.keyboard.press('Escape');
    await expect.poll(() => panel.isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Your points' }).getAttribute('aria-expanded')).toBe('false');
    // Focus goes back to the launcher, so a keyboard user is where they were.
    expect(await page.getByRole('button', { name: 'Your points' }).evaluate((node) => node.matches(':focus'))).toBe(
      true,
    );
    await context.close();
  });

  it('says that points from elsewhere may be missing when the balance comes from the bridge’s own ledger', async () => {
    // The sandbox answers as the real service does: no figures of its own (its bareTransactions fault).
    running.bridge.sandbox!.faults.configure({ bareTransactions: true });
    // Points are approved 14 days after the order is paid: the ledger knows from when they are available.
    expect((await asShop(running, SHOP).patch('/account/settings', { POINTS_PENDING_DAYS: 14 })).status).toBe(200);
    try {
      await payOrder(ADA_ORDER, CUSTOMERS.ada);
      await eventually(() => expect(sandboxPoints(CUSTOMERS.ada.email).orders).toEqual([ADA_ORDER]), 15_000);
      const { context, page } = await visitor(CUSTOMERS.ada.id);
      await page.goto(store.url);
      const text = await (await openLauncher(page)).innerText();
      expect(text).toContain('Points you earned or spent elsewhere may not be counted here.');
      expect(text).toContain(`order #${ADA_ORDER.slice(-4)}`);
      const from = new Date(Date.now() + 14 * 86_400_000).toLocaleDateString('en', { dateStyle: 'medium' });
      expect(text).toMatch(new RegExp(`100 more on the way, available from (${from}|${tomorrowOf(from)})`));
      await context.close();
    } finally {
      expect((await asShop(running, SHOP).patch('/account/settings', { POINTS_PENDING_DAYS: 0 })).status).toBe(200);
      running.bridge.sandbox!.faults.configure({});
    }
  });

  it('shows a guest the ways to earn and a sign-in link, and no balance', async () => {
    const { context, page } = await visitor();
    await page.goto(store.url);
    const panel = await openLauncher(page);
    const text = await panel.innerText();
    expect(text).toContain('Sign in to see your points');
    expect(text).toContain(`Place an order of ${MINIMUM} or more`);
    expect(text).toContain('100 points');
    expect(text).not.toContain('points available');
    await panel.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(`${store.url}/account/login`);
    await context.close();
  });

  it('cannot show points while the app lacks write_app_proxy: Shopify routes nothing to the bridge', async () => {
    const granted = fake.scopes;
    fake.scopes = granted.replace(',write_app_proxy', '');
    try {
      const { context, page } = await visitor(CUSTOMERS.grace.id);
      await page.goto(`${store.url}/products/compiler`);
      const text = await (await openLauncher(page)).innerText();
      expect(text).toContain('Your points cannot be shown just now.');
      expect(text).not.toContain('points available');
      expect(await page.locator('[data-loyalty-earn]').isHidden()).toBe(true);
      await context.close();
    } finally {
      fake.scopes = granted;
    }
  });

  it('says "Earn N points" for a product at its price, and nothing for a cart below the minimum', async () => {
    const { context, page } = await visitor();
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/apps/loyalty/')) asked.push(request.url());
    });
    await page.goto(`${store.url}/products/compiler`);
    await expect.poll(() => page.locator('[data-loyalty-earn]').innerText()).toBe('Earn 100 points');
    // Once for the page; opening the launcher then reads the same answer.
    await openLauncher(page);
    expect(asked).toHaveLength(1);

    // A cart of 49.99 is below the account's minimum of 50: it earns nothing, and the block stays hidden.
    await page.goto(`${store.url}/cart`);
    await page.waitForLoadState('networkidle');
    expect(await page.locator('[data-loyalty-earn]').isHidden()).toBe(true);
    await context.close();
  });

  it("never shows a customer another's points: the same browser signed in as another shows that one's own", async () => {
    const { context, page } = await visitor(CUSTOMERS.grace.id);
    await page.goto(store.url);
    const grace = await (await openLauncher(page)).innerText();
    expect(grace).toContain(`#${GRACE_ORDERS[0]!.slice(-4)}`);

    await context.clearCookies();
    await signIn(context, CUSTOMERS.linus.id);
    await page.goto(store.url);
    const linus = await (await openLauncher(page)).innerText();
    const given = sandboxPoints(CUSTOMERS.linus.email);
    expect(linus).toContain(`order #${LINUS_ORDER.slice(-4)}`);
    for (const id of GRACE_ORDERS) expect(linus).not.toContain(`#${id.slice(-4)}`);
    expect(linus).toContain(given.available > 0 ? String(given.available) : `${given.pending} more on the way`);
    await context.close();
  });

  it('would be refused by the app proxy had it added a query parameter: the page asks with none', async () => {
    const { context, page } = await visitor(CUSTOMERS.grace.id);
    await page.goto(store.url);
    // The proxy forwards a parameter the page adds, and the bridge refuses what Shopify did not add alone.
    const withParameter = await page.evaluate(() =>
      fetch('/apps/loyalty/points?customer=7002', { credentials: 'same-origin' }).then((answer) => answer.status),
    );
    expect(withParameter).toBe(401);
    // The widget's own ask is answered: it added none.
    const text = await (await openLauncher(page)).innerText();
    expect(text).toContain('points available');
    await context.close();
  });

  it('is readable on a laptop and on a phone, signed in and as a guest (docs/screenshots)', async () => {
    const shots = artifactsDir('shopify-theme');
    for (const width of [1280, 390]) {
      for (const view of ['signed-in', 'guest'] as const) {
        const { context, page } = await visitor(view === 'signed-in' ? CUSTOMERS.grace.id : undefined, width);
        await page.goto(`${store.url}/products/compiler`);
        const panel = await openLauncher(page);
        // Nothing wider than the screen: the panel and every line in it fit.
        const rights = await page
          .locator('.loyalty-launcher *')
          .evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().right));
        const widest = Math.max(...rights);
        expect(widest).toBeLessThanOrEqual(width);
        expect(await panel.evaluate((node) => node.scrollWidth <= node.clientWidth)).toBe(true);
        await page.screenshot({ path: `${shots}customer-${width}-${view}.png` });
        await context.close();
      }
    }
  });
});
