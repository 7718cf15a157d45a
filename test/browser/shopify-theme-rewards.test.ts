// A customer spends their points in the store's launcher, in Chromium: the theme app extension's Liquid rendered by
// the stand-in (test/helpers/theme-store.ts), its script and stylesheet where Shopify's CDN would serve them, and
// the store's /apps/loyalty/* forwarded to the whole bridge as Shopify's app proxy does (signed, the POST too). The
// bridge beside the fake Shopify (its discount codes on Shopify's schema), a shop on a trial account on the
// bridge's sandbox, real signed webhooks. Set-up as test/e2e/shopify-rewards.test.ts.
//
// What a customer notices: the rewards with what they cost, a reward out of reach saying how many points are
// missing, a confirmation before points are spent, the code large with a Copy button and its last day; paying with
// it takes the points once, and the launcher then shows the lower balance and no unused code. Each kind of reward
// (issue 70), an amount off, a percentage off and free shipping, read in words, asked for and given in its own; and a
// bridge from before kinds (amountOff alone) still read as it was.
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

const SHOP = 'rewards-launcher.myshopify.com';
/** The cart the code pays for at checkout: the delivered order's subtotal (shopifyOrderJson's), above every reward's minimum here. */
const PAID = { subtotal: '120.00' };
const CDN = 'https://cdn.shopify.com/extensions/loyalty-theme/assets/';
const GRACE = { id: '7001', email: 'grace@example.com' };
/** Twelve fulfilled orders: 1,200 approved points (the sandbox's activity 1 gives 100 each). */
const EARNED = Array.from({ length: 12 }, (_, index) => String(6200008000 + index));

let fake: FakeShopify;
let running: ShopifyAppBridge;
let store: ThemeStore;
let browser: Browser;
let brandId = '';

const sandboxAccount = () => running.bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brandId)!;
const redemptions = () => sandboxAccount().store.snapshot().redemptions;

async function deliver(topic: string, body: string) {
  const response = await fetch(`${running.url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic, body, shop: SHOP, secret: APP_SECRET }),
    body,
  });
  expect(response.status).toBe(200);
}
/** What the bridge answers Grace through the proxy (for waiting on the bridge, never for what the page shows). */
async function graceAnswer() {
  const query = proxiedQuery({ shop: SHOP, customerId: GRACE.id }, APP_SECRET);
  return (await (await fetch(`${running.url}/shopify/storefront/points?${query}`)).json()) as Record<string, any>;
}

async function visitor(customerId?: string, width = 1280): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  if (customerId) await context.addCookies([{ name: SIGNED_IN_COOKIE, value: customerId, url: store.url }]);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: store.url });
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
async function openLauncher(page: Page) {
  await page.goto(store.url);
  const button = page.getByRole('button', { name: 'Your points' });
  await expect.poll(() => button.getAttribute('aria-expanded')).toBe('false');
  await button.click();
  const panel = page.getByRole('dialog', { name: 'Your points' });
  await panel.waitFor();
  await page.locator('[data-loyalty-body]:not([aria-busy])').waitFor();
  return panel;
}
const rewardLine = (page: Page, words: string) => page.locator('.loyalty-panel__line', { hasText: words });

beforeAll(async () => {
  if (!chromiumAvailable) return;
  fake = await startFakeShopifyForApp();
  fake.install(SHOP);
  fake.shop(SHOP).customers.set(GRACE.id, shopifyCustomerNode(GRACE.id, { email: GRACE.email }));
  fake.scopes = 'read_orders,write_app_proxy,read_customers,write_discounts';
  running = await startShopifyAppBridge(fake, {
    DATA_DIR: tempDataDir(),
    SHOPIFY_SHOPS: '',
    SHOPIFY_OPEN_INSTALLS: 'true',
    ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
  });
  const made = await asShop(running, SHOP).post('/account', { sandbox: true });
  expect(made.status).toBe(201);
  brandId = made.body.account.brandId as string;
  for (const id of EARNED) await deliver('orders/fulfilled', shopifyOrderJson({ id, fulfillmentStatus: 'fulfilled' }));
  await eventually(() => {
    const approved = sandboxAccount()
      .store.snapshot()
      .earnings.filter((each) => each.status === 'approved');
    expect(approved.reduce((total, each) => total + each.points, 0)).toBe(1_200);
  }, 30_000);
  expect((await asShop(running, SHOP).put('/storefront', { on: true })).status).toBe(200);
  // The amounts off as API clients sent them before kinds (amountOff); the other kinds as benefits, at 100 points
  // each so that the 200 left after the first code pays for both.
  const saved = await asShop(running, SHOP).put('/storefront/rewards', {
    rewards: [
      { points: 1_000, amountOff: '10.00', minimumOrder: null, expiresInDays: 30 },
      { points: 2_500, amountOff: '30.00', minimumOrder: '50.00', expiresInDays: 30 },
      { points: 100, benefit: { kind: 'percent_off', percent: 10 }, minimumOrder: '50.00', expiresInDays: 30 },
      { points: 100, benefit: { kind: 'free_shipping' }, minimumOrder: null, expiresInDays: 30 },
    ],
  });
  expect(saved.status).toBe(200);
  // Live orders come before a customer's read: wait, as a customer would, until Grace's balance is read.
  await running.bridge.engine.drain();
  await eventually(async () => expect((await graceAnswer()).balance?.available).toBe(1_200), 15_000);
  store = await startThemeStore({
    shop: SHOP,
    bridge: { url: running.url, secret: APP_SECRET, grantedScopes: () => fake.scopes },
    assetBase: CDN,
    pages: { index: { template: 'index' } },
  });
  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await store?.close();
  await running?.stop();
  if (fake) await stopFakeShopifyForApp(fake);
});

describe.skipIf(!chromiumAvailable)('a customer spends points in the launcher on a Shopify store', () => {
  it('shows a guest the rewards and "Sign in to redeem", with no button to press', async () => {
    const { context, page } = await visitor();
    const panel = await openLauncher(page);
    const text = await panel.innerText();
    expect(text).toContain('1,000 points for 10.00 off');
    expect(text).toContain('2,500 points for 30.00 off on orders of 50.00 or more');
    expect(text).toContain('100 points for 10% off on orders of 50.00 or more');
    expect(text).toContain('100 points for free shipping');
    expect(await panel.getByRole('button', { name: 'Redeem' }).count()).toBe(0);
    await panel.getByRole('link', { name: 'Sign in to redeem' }).click();
    await page.waitForURL(`${store.url}/account/login`);
    await context.close();
  });

  let code = '';
  it('redeems a reward after a confirmation and shows the code to copy; one out of reach says what is missing', async () => {
    const { context, page } = await visitor(GRACE.id);
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/apps/loyalty/')) asked.push(`${request.method()} ${request.url()}`);
    });
    // A second tab, opened before the first spends: it still shows 1,200.
    const other = await context.newPage();
    const otherPanel = await openLauncher(other);
    const panel = await openLauncher(page);
    expect(await panel.innerText()).toContain('1,200 points available');

    // Short by 1,300: its button cannot be pressed, and the line says why.
    const far = rewardLine(page, '2,500 points');
    expect(await far.innerText()).toContain('You need 1,300 more points');
    expect(await far.getByRole('button', { name: 'Redeem' }).isDisabled()).toBe(true);

    const near = rewardLine(page, '1,000 points for 10.00 off');
    await near.getByRole('button', { name: 'Redeem' }).click();
    expect(await near.innerText()).toContain('Spend 1,000 points for 10.00 off?');
    // Cancel spends nothing.
    await near.getByRole('button', { name: 'Cancel' }).click();
    expect(await near.innerText()).not.toContain('Spend 1,000 points');
    await near.getByRole('button', { name: 'Redeem' }).click();
    await near.getByRole('button', { name: 'Yes, spend them' }).click();

    const made = page.locator('.loyalty-made');
    await made.waitFor();
    code = (await made.locator('.loyalty-code__text').innerText()).trim();
    expect(code).toMatch(/^LB-[A-Z2-9]{16}$/);
    const madeText = await made.innerText();
    expect(madeText).toContain('10.00 off your order');
    const last = new Date(Date.now() + 30 * 86_400_000).toLocaleDateString('en', { dateStyle: 'medium' });
    expect(madeText).toContain(`Use it at checkout before ${last}`);
    await made.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(code);
    expect(await made.getByRole('button', { name: 'Copied' }).count()).toBe(1);
    // The balance shown anew: 200 left, and the 1,000 reward now out of reach.
    await page.locator('[data-loyalty-body]:not([aria-busy])').waitFor();
    const after = await panel.innerText();
    expect(after).toContain('200 points available');
    expect(await near.innerText()).toContain('You need 800 more points');
    // The page asked with the reward alone; Shopify's proxy added the rest.
    expect(asked.filter((each) => each.startsWith('POST'))).toHaveLength(1);
    expect(asked.find((each) => each.startsWith('POST'))).toMatch(
      /^POST http:\/\/[^/]+\/apps\/loyalty\/points\/redeem\?reward=[\w-]+$/,
    );

    // The other tab still offers it: the bridge refuses, and its words are shown as they are.
    const stale = rewardLine(other, '1,000 points for 10.00 off');
    await stale.getByRole('button', { name: 'Redeem' }).click();
    await stale.getByRole('button', { name: 'Yes, spend them' }).click();
    await expect.poll(() => stale.innerText()).toContain('You do not have enough points for this reward yet.');
    expect(await otherPanel.innerText()).not.toContain(code.slice(3));

    const shots = artifactsDir('shopify-rewards');
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const rights = await page
        .locator('.loyalty-launcher *')
        .evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().right));
      expect(Math.max(...rights)).toBeLessThanOrEqual(width);
      expect(await panel.evaluate((node) => node.scrollWidth <= node.clientWidth)).toBe(true);
      await page.screenshot({ path: `${shots}customer-shopify-rewards-${width}.png` });
    }
    await context.close();
  });

  it('lists the unused code on the next visit, takes the points once when it pays, then shows neither', async () => {
    expect(code).not.toBe('');
    const { context, page } = await visitor(GRACE.id);
    await openLauncher(page);
    const codes = page.locator('.loyalty-panel__part', { hasText: 'Your unused codes' });
    expect(await codes.innerText()).toContain(code);
    expect(await codes.innerText()).toContain('10.00 off your order');

    // Grace pays with it at checkout; Shopify says so twice.
    expect(fake.useCode(SHOP, code, GRACE.id, PAID)).toBe(true);
    const order = shopifyOrderJson({
      id: '6200009001',
      discountCodes: [{ code, amount: '10.00', type: 'fixed_amount' }],
    });
    await deliver('orders/paid', order);
    await deliver('orders/paid', order);
    await eventually(() => expect(redemptions()).toHaveLength(1), 15_000);
    expect(redemptions()[0]).toMatchObject({ points: 1_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(redemptions()).toHaveLength(1);

    // The paid order earns too (pending until fulfilled); the available points are what was left.
    // The bridge may count the spent points twice for a moment after the redeem (docs/storefront.md, "What a
    // reservation holds"): wait until it answers what a customer should then see.
    await eventually(async () => {
      const answer = await graceAnswer();
      expect(answer.codes).toEqual([]);
      expect(answer.balance.available).toBe(200);
    }, 15_000);
    const panel = await openLauncher(page);
    const text = await panel.innerText();
    expect(text).toContain('200 points available');
    expect(text).not.toContain('Your unused codes');
    expect(text).not.toContain(code);
    await context.close();
  });
  it('asks for a percentage and free shipping in their own words, and each code says what it gives (screenshots)', async () => {
    const { context, page } = await visitor(GRACE.id);
    const panel = await openLauncher(page);
    expect(await panel.innerText()).toContain('200 points available');
    const made = page.locator('.loyalty-made');

    const percent = rewardLine(page, '100 points for 10% off on orders of 50.00 or more');
    await percent.getByRole('button', { name: 'Redeem' }).click();
    expect(await percent.locator('.loyalty-confirm').innerText()).toContain('Spend 100 points for 10% off?');
    await percent.getByRole('button', { name: 'Yes, spend them' }).click();
    await made.waitFor();
    const percentCode = (await made.locator('.loyalty-code__text').innerText()).trim();
    expect(await made.innerText()).toContain('10% off your order');
    await page.locator('[data-loyalty-body]:not([aria-busy])').waitFor();

    const shipping = rewardLine(page, '100 points for free shipping');
    await shipping.getByRole('button', { name: 'Redeem' }).click();
    expect(await shipping.locator('.loyalty-confirm').innerText()).toContain('Spend 100 points for free shipping?');
    await shipping.getByRole('button', { name: 'Yes, spend them' }).click();
    await expect.poll(() => made.locator('.loyalty-code__text').innerText()).not.toBe(percentCode);
    expect(await made.innerText()).toContain('Free shipping on your order');
    await page.locator('[data-loyalty-body]:not([aria-busy])').waitFor();
    // The first code, now among the unused ones, still says what it gives.
    const codes = page.locator('.loyalty-panel__part', { hasText: 'Your unused codes' });
    const last = new Date(Date.now() + 30 * 86_400_000).toLocaleDateString('en', { dateStyle: 'medium' });
    expect(await codes.innerText()).toContain(`${percentCode}`);
    expect(await codes.innerText()).toContain(`10% off your order · Use it at checkout before ${last}`);
    expect(await panel.innerText()).toContain('0 points available');

    const shots = artifactsDir('shopify-rewards');
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const rights = await page
        .locator('.loyalty-launcher *')
        .evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().right));
      expect(Math.max(...rights)).toBeLessThanOrEqual(width);
      expect(await panel.evaluate((node) => node.scrollWidth <= node.clientWidth)).toBe(true);
      await page.screenshot({ path: `${shots}customer-shopify-reward-kinds-${width}.png` });
      // The panel scrolled to the rewards: the three kinds in words.
      await page.locator('.loyalty-panel__part', { hasText: 'Spend your points' }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${shots}customer-shopify-reward-kinds-list-${width}.png` });
    }
    await context.close();
  });

  it('reads a bridge from before kinds (amountOff alone), and a kind it does not know yet by the bridge’s words', async () => {
    const { context, page } = await visitor(GRACE.id);
    // What a bridge answered before rewards had kinds, and what a later one may answer of a kind this theme lacks.
    const answer = {
      customer: 'signed-in',
      balance: { available: 5_000, pending: 0, pendingUntil: null, asOf: new Date().toISOString(), stale: false },
      history: [],
      waysToEarn: [],
      rewards: [
        { id: 'r-old', points: 1_000, amountOff: '10.00', minimumOrder: null, words: '1,000 points for 10.00 off' },
        { id: 'r-new', points: 2_000, benefit: { kind: 'free_item', sku: 'MUG' }, words: '2,000 points for a mug' },
      ],
      codes: [
        { code: 'LB-OLDOLDOLDOLDOLD1', amountOff: '10.00', points: 1_000, expiresAt: '2099-01-31T12:00:00.000Z' },
        { code: 'LB-NEWNEWNEWNEWNEW1', benefit: { kind: 'free_item' }, expiresAt: '2099-01-31T12:00:00.000Z' },
      ],
    };
    await page.route(`${store.url}/apps/loyalty/points`, (route) => route.fulfill({ json: answer }));
    await openLauncher(page);
    const codes = page.locator('.loyalty-panel__part', { hasText: 'Your unused codes' });
    const lines = await codes.locator('.loyalty-panel__when').allInnerTexts();
    expect(lines).toEqual([
      '10.00 off your order · Use it at checkout before Jan 31, 2099',
      'Use it at checkout before Jan 31, 2099',
    ]);
    for (const [words, asked] of [
      ['1,000 points for 10.00 off', 'Spend 1,000 points for 10.00 off?'],
      ['2,000 points for a mug', 'Spend 2,000 points on this reward?'],
    ]) {
      const line = rewardLine(page, words!);
      await line.getByRole('button', { name: 'Redeem' }).click();
      expect(await line.locator('.loyalty-confirm').innerText()).toContain(asked);
      await line.getByRole('button', { name: 'Cancel' }).click();
    }
    await context.close();
  });
});
