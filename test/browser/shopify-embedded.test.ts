// The app inside the Shopify admin, in Debian's Chromium. A parent page at
// https://admin.shopify.com plays the admin and frames the App URL, as
// Shopify does, with a signed link carrying a session token. The page loads
// App Bridge from Shopify's CDN address, which this test serves: like App
// Bridge, it exposes shopify.idToken(), which asks the admin (the parent
// page, over postMessage) for a session token, minted here with the client
// secret. The bridge (reached as https://bridge.test, passed through to it
// over HTTP) gets the shop access by token exchange the first time, and the
// merchant's page (Polaris web components, served here at their CDN address
// from Shopify's manifest) shows that shop's orders and no other shop's, with
// no ADMIN_TOKEN anywhere. Outside the admin, the dashboard shows the shop.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShopifySession } from '../../adapters/shopify/access.ts';
import { artifactsDir, CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import {
  APP_KEY,
  APP_SECRET,
  CHROME_UA,
  deliverPaidOrders,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { ADMIN_ORIGIN, adminPage, fakeAppBridge } from '../helpers/shopify-admin-frame.ts';
import { appUrlQuery, mintSessionToken } from '../helpers/shopify-app-links.ts';
import { fakePolaris } from '../helpers/polaris-fake.ts';
import { APP_BRIDGE_URL, POLARIS_URL, SHOPIFY_APP_URL_PATH } from '../../adapters/shopify/paths.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP = 'alpha-store.myshopify.com';
const OTHER = 'beta-store.myshopify.com';
const BRIDGE_ORIGIN = 'https://bridge.test';
const ADMIN_PAGE = `${ADMIN_ORIGIN}/store/alpha-store/apps/${APP_KEY}`;

if (!chromiumAvailable) console.warn(`embedded Shopify browser test skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!chromiumAvailable)('the merchant’s page embedded in the Shopify admin', () => {
  let fake: FakeShopify;
  let running: ShopifyAppBridge;
  let browser: Browser;
  let page: Page;
  const bearers: string[] = [];
  let minted = 0;

  beforeAll(async () => {
    fake = await startFakeShopifyForApp();
    // Shopify installed the app itself (managed installation): the bridge has never heard of the shop.
    fake.install(SHOP);
    running = await startShopifyAppBridge(fake, { SHOPIFY_SHOPS: `${SHOP},${OTHER}` });
    await deliverPaidOrders(running, [
      [SHOP, '8100000011'],
      [SHOP, '8100000012'],
      [OTHER, '8200000099'],
    ]);

    browser = await launchChromium();
    // @shopify/shopify-api answers 410 to a user agent it takes for a bot, as "HeadlessChrome" is.
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, userAgent: CHROME_UA });
    page = await context.newPage();
    await page.exposeFunction('mintSessionToken', (apiKey: string) => {
      minted++;
      return apiKey === APP_KEY ? mintSessionToken({ shop: SHOP, apiKey, secret: APP_SECRET }) : '';
    });
    const appUrl = `${BRIDGE_ORIGIN}${SHOPIFY_APP_URL_PATH}?${appUrlQuery({ shop: SHOP, secret: APP_SECRET, idToken: mintSessionToken({ shop: SHOP, apiKey: APP_KEY, secret: APP_SECRET }) })}`;
    await context.route(`${ADMIN_ORIGIN}/**`, (route) =>
      route.fulfill({ contentType: 'text/html', body: adminPage(appUrl, BRIDGE_ORIGIN) }),
    );
    await context.route(APP_BRIDGE_URL, (route) =>
      route.fulfill({ contentType: 'text/javascript', body: fakeAppBridge() }),
    );
    await context.route(POLARIS_URL, (route) => route.fulfill({ contentType: 'text/javascript', body: fakePolaris() }));
    // The bridge's public address, passed through to the running bridge over HTTP, its answer (headers, CSP) untouched.
    await context.route(`${BRIDGE_ORIGIN}/**`, async (route) => {
      const url = new URL(route.request().url());
      if (url.pathname.startsWith('/admin/api/')) bearers.push(route.request().headers().authorization ?? '');
      const response = await route.fetch({ url: `${running.url}${url.pathname}${url.search}`, maxRedirects: 0 });
      await route.fulfill({ response });
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await stopFakeShopifyForApp(fake);
  });

  it('opens from the admin, gets the shop access by token exchange, and shows that shop’s orders and no other shop’s', async () => {
    await page.goto(ADMIN_PAGE);
    const app = page.frameLocator('#app');
    // The admin draws the app's title bar and nav, as App Bridge hands them over.
    await expect.poll(() => page.locator('#title-bar').textContent(), { timeout: 15_000 }).toBe('Loyalty points');
    await page.locator('#app-nav button', { hasText: 'Orders' }).click();
    await expect.poll(() => page.locator('#title-bar').textContent()).toBe('Orders');
    const rows = app.locator('#orders s-table-row');
    await expect.poll(() => rows.allTextContents(), { timeout: 15_000 }).toHaveLength(2);
    const text = (await rows.allTextContents()).join('\n');
    expect(text).toContain('#0011');
    expect(text).toContain('#0012');
    expect(text).not.toContain('#0099');
    // No operator's sign-in, panel or token anywhere in the page.
    expect(await app.locator('#sign-in, #health, .install-form').count()).toBe(0);
    await page.screenshot({ path: `${artifactsDir('shopify-embedded')}admin.png` });

    // Access came by token exchange, the first time the merchant opened the app.
    expect(
      await running.bridge.engine.store.getRecord(raw<ShopifySession>('session'), `shopify:${SHOP}`),
    ).toMatchObject({
      mode: 'token_exchange',
    });
    expect(
      fake.requests.filter((request) => request.shop === SHOP && request.what === 'token:token_exchange'),
    ).toHaveLength(1);
    // Every call the page made carried a session token App Bridge handed out for this shop.
    expect(minted).toBeGreaterThan(0);
    expect(bearers.length).toBeGreaterThan(0);
    for (const bearer of bearers) {
      const payload = JSON.parse(
        Buffer.from(bearer.replace(/^Bearer /, '').split('.')[1] ?? '', 'base64url').toString('utf8'),
      ) as { dest: string; aud: string };
      expect(payload).toMatchObject({ dest: `https://${SHOP}`, aud: APP_KEY });
    }
  }, 60_000);
});

describe.skipIf(!chromiumAvailable)('the app opened outside the Shopify admin (SHOPIFY_EMBEDDED=false)', () => {
  let fake: FakeShopify;
  let running: ShopifyAppBridge;
  let browser: Browser;

  beforeAll(async () => {
    fake = await startFakeShopifyForApp();
    // The merchant's own store (client credentials): the bridge has access already.
    running = await startShopifyAppBridge(fake, {
      SHOPIFY_SHOP: SHOP,
      SHOPIFY_SHOPS: OTHER,
      SHOPIFY_EMBEDDED: 'false',
      ADMIN_TOKEN: 'operator-admin-token-0123456789',
    });
    await deliverPaidOrders(running, [
      [SHOP, '8300000021'],
      [OTHER, '8300000098'],
    ]);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await stopFakeShopifyForApp(fake);
  });

  it('opens the merchant’s page signed in as the shop from Shopify’s signed link, the sign-in out of the address bar, that shop alone', async () => {
    const page = await browser.newPage({ userAgent: CHROME_UA });
    await page.goto(`${running.url}${SHOPIFY_APP_URL_PATH}?${appUrlQuery({ shop: SHOP, secret: APP_SECRET })}`);
    await page.waitForURL(`${running.url}/shopify/store`);
    await page.locator('s-app-nav').getByRole('button', { name: 'Orders' }).click();
    await expect.poll(() => page.locator('#orders').textContent(), { timeout: 15_000 }).toContain('#0021');
    expect(await page.locator('#orders').textContent()).not.toContain('#0098');
    // Outside the admin, the page says whose it is: a session of another shop would not pass unnoticed.
    expect(await page.locator('#signed-in').textContent()).toBe(`Signed in to ${SHOP}`);
    expect(new URL(page.url()).hash).toBe('');
    await page.screenshot({ path: `${artifactsDir('shopify-embedded')}outside-admin.png` });
  }, 60_000);

  it('leaves an operator’s tab the operator’s when such a link lands in it', async () => {
    const page = await browser.newPage({ userAgent: CHROME_UA });
    await page.goto(`${running.url}/admin/#token=operator-admin-token-0123456789`);
    await page.waitForSelector('#health:not([hidden])');
    await page.goto(`${running.url}${SHOPIFY_APP_URL_PATH}?${appUrlQuery({ shop: SHOP, secret: APP_SECRET })}`);
    await page.waitForURL(`${running.url}/shopify/store`);
    // Back on the dashboard in the same tab: still the operator's, every shop's orders.
    await page.goto(`${running.url}/admin/`);
    await expect
      .poll(() => page.locator('#order-list tbody tr').allTextContents(), { timeout: 15_000 })
      .toHaveLength(2);
    expect(await page.locator('#health').isHidden()).toBe(false);
  }, 60_000);
});
