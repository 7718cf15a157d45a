// The BigCommerce control panel as the browser tests play it: a bridge that
// serves a single-click app any store may install, beside the fake
// BigCommerce, and browser contexts in which pages at BigCommerce's
// addresses frame the app, reaching the bridge as https://bridge.test (the
// bridge itself listens on plain HTTP; the route passes each request
// through, redirects unfollowed).
import type { APIResponse, Browser, BrowserContext } from 'playwright-core';
import { freePort } from '../../bench/lib/bridge-process.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { appAt } from './bigcommerce.ts';
import { startTestBridge } from './bridge.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from './fake-bigcommerce.ts';

/** Where the browser reaches the bridge: https, as BigCommerce requires of an app's callbacks. */
export const BRIDGE_ORIGIN = 'https://bridge.test';

/** The fake BigCommerce and a bridge serving the app (`clientId`, `clientSecret`) to any store that installs it. */
export async function startOpenBigCommerceApp(
  clientId: string,
  clientSecret: string,
): Promise<{ bc: FakeBigCommerce; bridge: RunningBridge }> {
  const bc = await startFakeBigCommerce({ storeHash: 'unused0', accessToken: 'unused-token' });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  bc.registerApp(appAt(url, clientId, clientSecret));
  const bridge = await startTestBridge({
    PORT: String(port),
    PUBLIC_URL: url,
    RECONCILE_INTERVAL_MINUTES: '0',
    BIGCOMMERCE_CLIENT_ID: clientId,
    BIGCOMMERCE_CLIENT_SECRET: clientSecret,
    BIGCOMMERCE_LOGIN_URL: bc.url,
    BIGCOMMERCE_API_URL: bc.url,
    BIGCOMMERCE_OPEN_INSTALLS: 'true',
  });
  return { bc, bridge };
}

/**
 * A browser of its own: a page at each address of `framing` frames what its
 * function gives (the app's Load URL), and the bridge is reached as
 * BRIDGE_ORIGIN; `answered` sees each of the bridge's answers.
 */
export async function controlPanelContext(
  browser: Browser,
  bridge: RunningBridge,
  framing: Record<string, () => string>,
  answered: (path: string, response: APIResponse) => void = () => {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  for (const [at, src] of Object.entries(framing))
    await context.route(`${new URL(at).origin}/**`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><meta charset="utf-8"><title>BigCommerce control panel</title><h1>Apps · loyalty-bridge</h1><iframe id="app" src="${src()}" style="box-sizing:border-box;width:100%;max-width:1200px;height:880px"></iframe>`,
      }),
    );
  await context.route(`${BRIDGE_ORIGIN}/**`, async (route) => {
    const address = new URL(route.request().url());
    // A connection kept alive may be closed by the server as the next request goes out on it (ci5: ECONNRESET on
    // by-hand.js); a browser sends such a request again on a new connection (RFC 9112 §9.3.1), as this does once.
    const response = await route.fetch({
      url: `${bridge.http.localUrl}${address.pathname}${address.search}`,
      maxRedirects: 0,
      maxRetries: 1,
    });
    answered(address.pathname, response);
    await route.fulfill({ response });
  });
  return context;
}
