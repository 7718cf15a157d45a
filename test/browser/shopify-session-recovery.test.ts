// Inside the Shopify admin, an expired session never shows an error page. In
// Debian's Chromium, a parent page plays the admin and frames the app, with
// App Bridge served by the test at its CDN address (test/helpers/
// shopify-admin-frame.ts). The bridge is reached as https://bridge.test, an
// https front (Chromium maps the name to it), so that its redirects are
// followed as a browser follows them. A reload after the App URL went stale (its hmac
// lasts 90 s) and its session token expired goes through the bounce page and
// comes back with a fresh token, once; a session token that can never be
// accepted ends on a page the admin shows, after one bounce; an API call
// whose token expired on the way is answered 401 with Shopify's retry header
// and tried once more with a fresh one.
import type { BrowserContext, Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { artifactsDir, CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import { opensslAvailable, startHttpsFront, type HttpsFront } from '../helpers/https-front.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { ADMIN_ORIGIN, adminPage, fakeAppBridge } from '../helpers/shopify-admin-frame.ts';
import { fakePolaris } from '../helpers/polaris-fake.ts';
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
import { appUrlQuery, mintSessionToken } from '../helpers/shopify-app-links.ts';
import {
  APP_BRIDGE_URL,
  POLARIS_URL,
  SHOPIFY_APP_URL_PATH,
  SHOPIFY_BOUNCE_PATH,
} from '../../adapters/shopify/paths.ts';

const SHOP = 'gamma-store.myshopify.com';
const BRIDGE_ORIGIN = 'https://bridge.test';
const ADMIN_PAGE = `${ADMIN_ORIGIN}/store/gamma-store/apps/${APP_KEY}`;

if (!chromiumAvailable) console.warn(`session recovery browser test skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!chromiumAvailable || !opensslAvailable)('an expired session inside the Shopify admin', () => {
  let front: HttpsFront;
  let fake: FakeShopify;
  let running: ShopifyAppBridge;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Every request the browser made to the bridge: path, and the status it got. */
  let seen: Array<{ path: string; status: number; retryHeader: string | undefined }> = [];
  /** What the admin hands out next, for each request App Bridge makes for a session token. */
  let mint: () => string = () => '';

  const good = () => mintSessionToken({ shop: SHOP, apiKey: APP_KEY, secret: APP_SECRET });
  const expired = () =>
    mintSessionToken({ shop: SHOP, apiKey: APP_KEY, secret: APP_SECRET, expiresInS: -120, notBeforeS: -180 });
  const staleLink = (idToken: string) =>
    `${BRIDGE_ORIGIN}${SHOPIFY_APP_URL_PATH}?${appUrlQuery({ shop: SHOP, secret: APP_SECRET, idToken, timestamp: Math.floor(Date.now() / 1000) - 600 })}`;
  const openAdmin = async (appUrl: string) => {
    await context.route(`${ADMIN_ORIGIN}/**`, (route) =>
      route.fulfill({ contentType: 'text/html', body: adminPage(appUrl, BRIDGE_ORIGIN) }),
    );
    await page.goto(ADMIN_PAGE);
    return page.frameLocator('#app');
  };
  const bounces = () => seen.filter((each) => each.path === SHOPIFY_BOUNCE_PATH).length;

  beforeAll(async () => {
    fake = await startFakeShopifyForApp();
    fake.install(SHOP);
    // The bridge's public address is the one the admin frames: App Bridge comes back to it from the bounce page.
    running = await startShopifyAppBridge(fake, { SHOPIFY_SHOPS: SHOP, SHOPIFY_APP_URL: BRIDGE_ORIGIN });
    await deliverPaidOrders(running, [[SHOP, '8400000031']]);
    front = await startHttpsFront();
    front.forwardTo(running.url);
    // The admin (a public origin) frames the bridge, which this machine serves: Chromium's local network access checks would block that.
    browser = await launchChromium([
      '--ignore-certificate-errors',
      `--host-resolver-rules=MAP bridge.test ${new URL(front.url).host}`,
      '--disable-features=LocalNetworkAccessChecks,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,BlockInsecurePrivateNetworkRequests',
    ]);
  }, 60_000);

  beforeEach(async () => {
    seen = [];
    await context?.close();
    context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, userAgent: CHROME_UA });
    page = await context.newPage();
    await page.exposeFunction('mintSessionToken', (apiKey: string) => (apiKey === APP_KEY ? mint() : ''));
    await context.route(APP_BRIDGE_URL, (route) =>
      route.fulfill({ contentType: 'text/javascript', body: fakeAppBridge() }),
    );
    await context.route(POLARIS_URL, (route) => route.fulfill({ contentType: 'text/javascript', body: fakePolaris() }));
    // What the browser asked the bridge, and what it answered, redirects included, in the order the answers came.
    context.on('response', (response) => {
      const url = new URL(response.url());
      if (url.origin === BRIDGE_ORIGIN)
        seen.push({
          path: url.pathname,
          status: response.status(),
          retryHeader: response.headers()['x-shopify-retry-invalid-session-request'],
        });
    });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await running?.stop();
    await stopFakeShopifyForApp(fake);
  });

  it('comes back from a reload with a stale link and an expired session token through the bounce page, once, and shows the shop', async () => {
    mint = good;
    // The page's script comes late, as on a busy machine: the admin shows the title before the page can answer its
    // nav, and a click on Orders then must still open Orders (it once went unheard, and the page stayed on Home).
    await context.route(`${BRIDGE_ORIGIN}/merchant/merchant.js`, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await route.continue();
    });
    const app = await openAdmin(staleLink(expired()));
    await expect.poll(() => page.locator('#title-bar').textContent(), { timeout: 15_000 }).toBe('Loyalty points');
    await page.locator('#app-nav button', { hasText: 'Orders' }).click();
    await expect.poll(() => app.locator('#orders s-table-row').allTextContents(), { timeout: 15_000 }).toHaveLength(1);
    expect(await app.locator('#orders').textContent()).toContain('#0031');
    expect(bounces()).toBe(1);
    // The first answer was the bounce, never a page the admin would refuse to show.
    const appUrlAnswers = seen.filter((each) => each.path === SHOPIFY_APP_URL_PATH).map((each) => each.status);
    expect(appUrlAnswers).toEqual([302, 200]);
    await page.screenshot({ path: `${artifactsDir('shopify-session-recovery')}reloaded.png` });
  }, 60_000);

  it('ends on a page the admin shows, after one bounce, when no session token is ever accepted', async () => {
    // Tokens signed with another secret: what a bridge with a wrong SHOPIFY_API_SECRET would see.
    mint = () => mintSessionToken({ shop: SHOP, apiKey: APP_KEY, secret: 'not-this-apps-secret' });
    const app = await openAdmin(staleLink(mint()));
    await expect
      .poll(
        () =>
          app
            .locator('h1')
            .textContent()
            .catch(() => ''),
        { timeout: 15_000 },
      )
      .toContain('could not confirm your session');
    expect(bounces()).toBe(1);
    expect(await app.locator('body').textContent()).toContain('SHOPIFY_API_SECRET');
    await page.screenshot({ path: `${artifactsDir('shopify-session-recovery')}never-accepted.png` });
  }, 60_000);

  it('retries an API call whose session token expired on the way, once, with a fresh one, and the merchant sees nothing of it', async () => {
    let calls = 0;
    // The token for the first API call has expired by the time it arrives; every later one is fresh.
    mint = () => (++calls === 1 ? expired() : good());
    const app = await openAdmin(
      `${BRIDGE_ORIGIN}${SHOPIFY_APP_URL_PATH}?${appUrlQuery({ shop: SHOP, secret: APP_SECRET, idToken: good() })}`,
    );
    await expect.poll(() => app.locator('#account-summary').textContent(), { timeout: 15_000 }).not.toBe('Loading…');
    const api = seen.filter((each) => each.path.startsWith('/admin/api/'));
    const refused = api.filter((each) => each.status === 401);
    expect(refused).toEqual([expect.objectContaining({ retryHeader: '1' })]);
    expect(
      api.slice(api.indexOf(refused[0]!) + 1).some((each) => each.path === refused[0]!.path && each.status === 200),
    ).toBe(true);
    expect(await app.locator('#notice').isHidden()).toBe(true);
  }, 60_000);
});
