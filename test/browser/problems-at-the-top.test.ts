// The case, in Debian's Chromium, where people read it: a shop linked to an account whose address the
// bridge refuses (the bridge's own sandbox, typed in by hand) piles up 9 dead letters. The operator's dashboard
// shows each problem at its top with the fix for its cause, counts them under "Needing your eye", and names
// the dead letters' orders as the store does; its account form makes an account on the bridge's sandbox. The
// shop's merchant reads the same on Home, in their words; a neighbour's merchant reads none of it; a merchant
// on a trial is told they are not live yet, and what to do. Screenshots in test-artifacts/problems/.
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { openShopifyAdmin } from '../helpers/shopify-admin-tab.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactsDir, CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import {
  APP_SECRET,
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';

const SHOP = 'unreached.myshopify.com';
const OTHER = 'neighbour.myshopify.com';
const TRIAL = 'trying.myshopify.com';
const TOKEN = 'problems-browser-admin-token-0123456789';
const ORDERS = 9;
/** What only an engineer reads: a problem's kind, an order's internal key. */
const CODES = /address_refused|dead_letters|shopify:unreached|9000301/;

if (!chromiumAvailable) console.warn(`problems browser test skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!chromiumAvailable)('problems reach the top of every page', () => {
  let fake: FakeShopify;
  let running: ShopifyAppBridge;
  let browser: Browser;
  let dashboard: Page;
  const shots = artifactsDir('problems');

  const admin = async (method: string, path: string, body?: unknown) => {
    const answer = await fetch(`${running.url}/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: answer.status, body: (await answer.json()) as Record<string, any> };
  };

  /** The Shopify admin of `shop`, framing the app. */
  const openAdmin = (shop: string) => openShopifyAdmin(browser, { bridgeUrl: running.url, shop, open: true });

  /** Home's attention banners, each as its heading and words. */
  async function homeBanners(app: FrameLocator): Promise<string[]> {
    await app.locator('#all-well').waitFor({ state: 'attached', timeout: 15_000 });
    await expect.poll(() => app.locator('#account-summary').textContent(), { timeout: 15_000 }).not.toBe('Loading…');
    return Promise.all(
      (await app.locator('#attention s-banner').all()).map(async (banner) =>
        `${await banner.getAttribute('heading')}: ${(await banner.innerText()).replace(/\s+/g, ' ')}`.trim(),
      ),
    );
  }

  beforeAll(async () => {
    fake = await startFakeShopifyForApp();
    for (const shop of [SHOP, OTHER, TRIAL]) fake.install(shop);
    // Sandbox mode, as a first run is: the operator's shops by name, any other shop may install and earns on none.
    running = await startShopifyAppBridge(fake, {
      SHOPIFY_SHOPS: `${SHOP},${OTHER}`,
      SHOPIFY_OPEN_INSTALLS: 'true',
      ADMIN_TOKEN: TOKEN,
    });
    const { apiKey, brandId } = running.bridge.sandbox!.accounts[0]!.credentials;
    const made = await admin('POST', '/accounts', {
      name: 'Typed in by hand',
      baseUrl: running.bridge.loyaltyBaseUrl,
      apiKey,
      brandId,
    });
    expect(made.body.account.check).toMatchObject({ status: 'unreachable' });
    expect((await admin('PATCH', `/shops/shopify/${SHOP}`, { account: made.body.account.id })).status).toBe(200);
    for (let n = 0; n < ORDERS; n++) {
      const body = shopifyOrderJson({ id: String(9000301 + n) });
      const headers = shopifyHeaders({ topic: 'orders/paid', body, shop: SHOP, secret: APP_SECRET });
      expect((await fetch(`${running.url}/webhooks/shopify`, { method: 'POST', headers, body })).status).toBe(200);
    }
    await running.bridge.engine.drain();
    expect((await admin('GET', '/status')).body.deadLetters).toBe(ORDERS);
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await stopFakeShopifyForApp(fake);
  });

  it('shows the operator a banner for the dead letters and the refused address, each with the fix for its cause', async () => {
    dashboard = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    await dashboard.goto(`${running.url}/admin/`);
    await dashboard.fill('#token', TOKEN);
    await dashboard.click('#sign-in-form button');
    const problems = dashboard.locator('#problems:not([hidden]) li');
    await problems.first().waitFor({ timeout: 15_000 });
    const [letters, address] = (await problems.allInnerTexts()).map((text) => text.replace(/\s+/g, ' '));
    expect(await problems.count()).toBe(2);
    // The three newest letters, by when each order's call was refused: the worker sends orders side by side, so
    // which of the last three came first is the service's to say, not the order numbers'.
    expect(letters).toMatch(/^9 dead letters: .*\(orders (#030[7-9], ){2}#030[7-9] and 6 more\)/);
    expect(letters).toMatch(/Put right the problem below first, then retry them/);
    expect(address).toMatch(
      /^Account Typed in by hand .*: the bridge will not send its calls to http:\/\/127\.0\.0\.1/,
    );
    expect(address).toMatch(/127\.0\.0\.1 is not a public internet address/);
    expect(address).toMatch(/Give it the loyalty service's public https address/);
    expect(address).not.toMatch(/key or brand id right/);
    // "Needing your eye" counts them: not "none".
    const eye = (await dashboard.locator('#attention').innerText()).replace(/\s+/g, ' ');
    expect(eye).toMatch(/dead letters 9/);
    expect(eye).toMatch(/Typed in by hand: address refused 1/);
    expect(eye).not.toMatch(/none/);
    // The dead letters' panel names each order as the store does.
    const firstLetter = (await dashboard.locator('#dead-letter-list tbody tr').first().innerText()).replace(
      /\s+/g,
      ' ',
    );
    expect(firstLetter).toMatch(/giving its points for order #0309/);
    expect(await dashboard.locator('#dead-letter-list').innerText()).not.toMatch(/shopify:/);
    await dashboard.screenshot({ path: `${shots}dashboard.png`, fullPage: true });
  }, 60_000);

  it('makes an account on the bridge’s sandbox from the operator’s form, connected', async () => {
    await dashboard.locator('#account-sandbox-choice:not([hidden])').waitFor({ timeout: 15_000 });
    await dashboard.fill('#account-name', 'Operator’s trial');
    await dashboard.check('#account-sandbox');
    expect(await dashboard.locator('#account-base-url').isVisible()).toBe(false);
    await dashboard.click('#account-form button[type="submit"]');
    await expect
      .poll(() => dashboard.textContent('#account-created'), { timeout: 15_000 })
      .toMatch(/^Created Operator’s trial: credentials connected/);
    await dashboard.locator('#account-list .card', { hasText: 'Operator’s trial' }).waitFor();
    await dashboard.locator('#accounts').screenshot({ path: `${shots}dashboard-sandbox-account.png` });
  }, 30_000);

  it('shows the shop’s merchant, on Home, the refused address and its 9 orders, in words', async () => {
    const { page, app } = await openAdmin(SHOP);
    await app.locator('#attention s-banner').nth(1).waitFor({ timeout: 15_000 });
    const [address, letters] = await homeBanners(app);
    expect(address).toMatch(
      /^The app will not send points to your loyalty service’s address: The loyalty account’s address is not a public internet address, so the app sends nothing there/,
    );
    // The operator's account: whom to ask, not the operator's address.
    expect(address).toMatch(/Ask the bridge’s operator to give the loyalty account the service’s public address/);
    expect(letters).toMatch(
      /^Some orders could not go on: 9 orders or deliveries .*\(orders (#030[7-9], ){2}#030[7-9] and 6 more\)/,
    );
    expect(await app.locator('body').innerText()).not.toMatch(CODES);
    await page.screenshot({ path: `${shots}merchant-home.png`, fullPage: true });
  }, 60_000);

  it('shows a neighbour’s merchant none of another shop’s dead letters', async () => {
    const { page, app } = await openAdmin(OTHER);
    await app.locator('#all-well:not([hidden])').waitFor({ timeout: 15_000 });
    expect(await homeBanners(app)).toEqual([]);
    const text = await app.locator('body').innerText();
    expect(text).not.toMatch(/#030|dead|could not go on|unreached|127\.0\.0\.1/);
    await page.screenshot({ path: `${shots}neighbour-home.png`, fullPage: true });
  }, 60_000);

  it('tells a merchant on a trial that they are not live yet, and what to do next', async () => {
    expect((await asShop(running, TRIAL).post('/account', { sandbox: true })).status).toBe(201);
    const { page, app } = await openAdmin(TRIAL);
    await app.locator('#attention s-banner[heading="You are not live yet"]').waitFor({ timeout: 15_000 });
    const [trial] = await homeBanners(app);
    expect(trial).toMatch(/^You are not live yet: You are trying the app on the sandbox: orders earn points there/);
    expect(trial).toMatch(/your customers see none/);
    expect(trial).toMatch(/open Set up and enter your loyalty service’s address, API key and brand id, then save/);
    expect(await app.locator('#attention s-banner').first().getAttribute('tone')).toBe('info');
    await page.screenshot({ path: `${shots}trial-home.png`, fullPage: true });
  }, 60_000);
});
