// The WordPress plugin in a real WordPress with the whole bridge beside it (test/helpers/real-wordpress.ts): the
// bridge behind https, the operator's connection of the store (WooCommerce's app authentication, played by the fake
// behind the site's own address), the merchant's session on their page (signed in by approving in WordPress), and
// Chromium. Shared by the real-WordPress browser tests: each starts its own world, so none depends on another's steps.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { WooConnection } from '../../adapters/woocommerce/stores.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { CHROMIUM, chromiumAvailable, launchChromium } from './browser.ts';
import { startTestBridge } from './bridge.ts';
import { eventually } from './engine.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from './fake-woocommerce.ts';
import { opensslAvailable, selfSignedCertificate, startHttpsFront, type HttpsFront } from './https-front.ts';
import { realWordPressMissing, startRealWordPress, type RealWordPress } from './real-wordpress.ts';
import { onBridge, sessionIn } from './woocommerce-store-page.ts';
import { answerConsent } from './wordpress-merchant.ts';
import { raw } from './raw-records.ts';

/** The site's title, as wp-cli.php's install step names it (the fake's REST index says the same). */
export const SITE_TITLE = 'Smoke store';
const ADMIN_TOKEN = 'real-wordpress-admin-token-0123456789';

/** Whether a real WordPress, Chromium and openssl are here; says why not once, under the test's name. */
export function realWordPressRuns(test: string): boolean {
  const missing = realWordPressMissing();
  if (missing) console.warn(`${test} skipped: ${missing}`);
  else if (!chromiumAvailable) console.warn(`${test} skipped: no Chromium at ${CHROMIUM}`);
  return !missing && chromiumAvailable && opensslAvailable;
}

export interface RealWordPressWorld {
  wp: RealWordPress;
  woo: FakeWooCommerce;
  bridge: RunningBridge;
  /** The bridge's public address, its https front, by name (localhost). */
  bridgeUrl: string;
  browser: Browser;
  /** The merchant's page's admin API, with their session. */
  asPage(path: string, init?: RequestInit): Promise<Response>;
  /** A browser signed in to WordPress with its own login form. */
  signedIn(
    account: { login: string; password: string },
    width?: number,
  ): Promise<{ context: BrowserContext; page: Page }>;
  /** Asks the merchant's page for a connection code and pastes it in wp-admin, in an administrator's page. */
  connectPlugin(page: Page): Promise<void>;
  stop(): Promise<void>;
}

export async function startRealWordPressWorld(): Promise<RealWordPressWorld> {
  // What was started, stopped last first: by stop(), or at once when a step of the start fails.
  const started: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const stopOne of started.splice(0).reverse()) await stopOne();
  };
  try {
    return await startIn(started, stop);
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startIn(started: Array<() => Promise<unknown>>, stop: () => Promise<void>): Promise<RealWordPressWorld> {
  const front: HttpsFront = await startHttpsFront();
  started.push(() => front.close());
  // The site trusts the front's certificate as a public one: the plugin's requests to the bridge check it.
  const wp = await startRealWordPress({ trust: [selfSignedCertificate().cert] });
  started.push(() => wp.stop());
  const woo = await startFakeWooCommerce({ homeUrl: `${wp.url}/`, siteName: SITE_TITLE });
  started.push(() => woo.close());
  wp.wooCommerceAt(woo.url);
  // By name: the Requests library in WordPress 6.1 matches a certificate's DNS names only, never its IP address.
  const bridgeUrl = front.url.replace('//127.0.0.1:', '//localhost:');
  const bridge = await startTestBridge({ PUBLIC_URL: bridgeUrl, ADMIN_TOKEN, RECONCILE_INTERVAL_MINUTES: '0' });
  started.push(() => bridge.stop());
  front.forwardTo(bridge.http.localUrl);
  const session = await connectStore(bridge, wp.url);

  const browser = await launchChromium();
  started.push(() => browser.close());
  const asPage = (path: string, init: RequestInit = {}) =>
    fetch(`${bridge.http.localUrl}/admin/api${path}`, {
      ...init,
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    });
  return {
    wp,
    woo,
    bridge,
    bridgeUrl,
    browser,
    asPage,
    async signedIn(account, width = 1280) {
      // The bridge's https front has a certificate of its own making.
      const context = await browser.newContext({ viewport: { width, height: 900 }, ignoreHTTPSErrors: true });
      const page = await context.newPage();
      await page.goto(`${wp.url}/wp-login.php`);
      await page.fill('#user_login', account.login);
      await page.fill('#user_pass', account.password);
      await Promise.all([page.waitForURL(/\/wp-admin\//), page.click('#wp-submit')]);
      return { context, page };
    },
    async connectPlugin(page) {
      const asked = await asPage('/storefront/plugin-code', { method: 'POST' });
      expect(asked.status).toBe(200);
      const { code } = (await asked.json()) as { code: string };
      await page.goto(`${wp.url}/wp-admin/options-general.php?page=loyalty-bridge`);
      await page.fill('#loyalty-bridge-code', code);
      await Promise.all([
        page.waitForURL(/loyalty_bridge=connected/, { timeout: 15_000 }),
        page.getByRole('button', { name: 'Connect' }).click(),
      ]);
    },
    stop,
  };
}

/** The operator connects the store at the bridge, and the merchant signs in to their page: the page's session. */
async function connectStore(bridge: RunningBridge, site: string): Promise<string> {
  const browse = (path: string, cookie = '') =>
    fetch(new URL(path, bridge.http.localUrl), { redirect: 'manual', headers: cookie ? { cookie } : {} });

  // The operator connects the store (WooCommerce's REST API and webhooks), at the WordPress site's address.
  const connecting = await fetch(`${bridge.http.localUrl}/admin/api/stores/woocommerce/connect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ store: site }),
  });
  expect(connecting.status).toBe(201);
  await answerConsent(((await connecting.json()) as { authorizeUrl: string }).authorizeUrl, 'approve');
  const host = new URL(site).host;
  await eventually(async () => {
    const kept = await bridge.engine.store.getRecord(raw<WooConnection>('session'), `woocommerce:${host}`);
    expect(kept?.consumerKey).toBeDefined();
  });

  // The merchant signs in to their page, approving in WordPress.
  const opened = await browse(`/woocommerce/open?store=${encodeURIComponent(site)}`);
  expect(opened.status).toBe(303);
  const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0]!;
  const back = await answerConsent(opened.headers.get('location')!, 'approve');
  const session = (await sessionIn(await browse(onBridge(back), cookie)))!;
  expect(session).toBeDefined();
  return session;
}
