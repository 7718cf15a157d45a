// A browser tab that plays the Shopify admin of one shop, framing the app as the admin does: App Bridge and
// Polaris served by their stand-ins, the bridge reached at a public-looking origin that routes to the test's bridge.
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { APP_BRIDGE_URL, POLARIS_URL, SHOPIFY_APP_URL_PATH } from '../../adapters/shopify/paths.ts';
import { fakePolaris } from './polaris-fake.ts';
import { ADMIN_ORIGIN, adminPage, fakeAppBridge } from './shopify-admin-frame.ts';
import { APP_KEY, APP_SECRET, CHROME_UA } from './shopify-app-bridge.ts';
import { appUrlQuery, mintSessionToken } from './shopify-app-links.ts';

export const BRIDGE_ORIGIN = 'https://bridge.test';

export interface AdminTabOptions {
  /** Where the test's bridge listens. */
  bridgeUrl: string;
  shop: string;
  /** Told of each answer the bridge gives the tab, by its path and whether it set a cookie. */
  answered?: (path: string, setsCookie: boolean) => void;
  /** Open the admin's page for the shop at once; otherwise the test goes to it. */
  open?: boolean;
}

export async function openShopifyAdmin(
  browser: Browser,
  { bridgeUrl, shop, answered, open = false }: AdminTabOptions,
): Promise<{ page: Page; app: FrameLocator }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1100 }, userAgent: CHROME_UA });
  const page = await context.newPage();
  const token = () => mintSessionToken({ shop, apiKey: APP_KEY, secret: APP_SECRET });
  await page.exposeFunction('mintSessionToken', (apiKey: string) => (apiKey === APP_KEY ? token() : ''));
  const appUrl = `${BRIDGE_ORIGIN}${SHOPIFY_APP_URL_PATH}?${appUrlQuery({ shop, secret: APP_SECRET, idToken: token() })}`;
  await context.route(`${ADMIN_ORIGIN}/**`, (route) =>
    route.fulfill({ contentType: 'text/html', body: adminPage(appUrl, BRIDGE_ORIGIN) }),
  );
  await context.route(APP_BRIDGE_URL, (route) =>
    route.fulfill({ contentType: 'text/javascript', body: fakeAppBridge() }),
  );
  await context.route(POLARIS_URL, (route) => route.fulfill({ contentType: 'text/javascript', body: fakePolaris() }));
  await context.route(`${BRIDGE_ORIGIN}/**`, async (route) => {
    const url = new URL(route.request().url());
    // Sent again once on a reset of a reused kept-alive connection, as a browser does (RFC 9112 §9.3.1).
    const response = await route.fetch({
      url: `${bridgeUrl}${url.pathname}${url.search}`,
      maxRedirects: 0,
      maxRetries: 1,
    });
    answered?.(url.pathname, Boolean(response.headers()['set-cookie']));
    await route.fulfill({ response });
  });
  if (open) await page.goto(`${ADMIN_ORIGIN}/store/${shop.split('.')[0]}/apps/${APP_KEY}`);
  return { page, app: page.frameLocator('#app') };
}
