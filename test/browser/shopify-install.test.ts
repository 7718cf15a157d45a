// Installing the app on a shop by OAuth, clicked through in Debian's
// Chromium: the dashboard's install form, the shop's consent screen (the fake
// Shopify over HTTPS, reached through --host-resolver-rules for
// *.myshopify.com), and back to the dashboard with the shop installed, an
// expiring offline token kept and its subscriptions checked (the app's configuration declares them).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShopifySession } from '../../adapters/shopify/access.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startBridge, type RunningBridge } from '../../src/composition/main.ts';
import { freePort } from '../../bench/lib/bridge-process.ts';
import { artifactsDir, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { routeTokenEndpointToFake, startFakeShopify, type FakeShopify } from '../helpers/fake-shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const TOKEN = 'install-admin-token-0123456789abcdef';
const SHOP = 'browser-shop.myshopify.com';
const API_KEY = 'dev-dashboard-client-id';
const API_SECRET = 'dev-dashboard-client-secret';

/** A throwaway certificate for *.myshopify.com: the browser is told to accept it. */
function certificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lb-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=*.myshopify.com',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
}

const canRun =
  chromiumAvailable &&
  (() => {
    try {
      execFileSync('openssl', ['version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

describe.skipIf(!canRun)('installing on a Shopify shop from the dashboard', () => {
  let fake: FakeShopify;
  let bridge: RunningBridge;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    fake = await startFakeShopify({ apiKey: API_KEY, apiSecret: API_SECRET, tls: certificate() });
    await routeTokenEndpointToFake(fake);
    // Shopify sends the merchant back to SHOPIFY_APP_URL: the bridge's address must be known before it starts.
    const port = await freePort();
    const loaded = loadConfig({
      env: {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: tempDataDir(),
        LOG_LEVEL: 'silent',
        DEMO_STORE: 'off',
        ADMIN_TOKEN: TOKEN,
        SHOPIFY_API_KEY: API_KEY,
        SHOPIFY_API_SECRET: API_SECRET,
        SHOPIFY_APP_URL: `http://127.0.0.1:${port}`,
        RECONCILE_INTERVAL_MINUTES: '0',
      },
    });
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    bridge = await startBridge(loaded.config, createLogger({ level: 'silent' }), {
      platformOverrides: { apiUrls: { shopify: (shop) => fake.adminUrl(shop) } },
    });
    browser = await launchChromium([
      '--ignore-certificate-errors',
      `--host-resolver-rules=MAP *.myshopify.com 127.0.0.1:${fake.httpsPort}`,
    ]);
    // @shopify/shopify-api answers 410 to a user agent it takes for a bot, as "HeadlessChrome" is: a merchant's browser says Chrome.
    const userAgent = (
      await browser.newBrowserCDPSession().then((cdp) => cdp.send('Browser.getVersion'))
    ).userAgent.replace('HeadlessChrome', 'Chrome');
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, userAgent });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.stop();
    await fake?.close();
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it('goes to the consent screen, back to the dashboard, and the shop is installed', async () => {
    await page.goto(`${bridge.http.localUrl}/admin/`);
    await page.fill('#token', TOKEN);
    await page.click('#sign-in-form button');
    await page.waitForSelector('#install-shopify .install-form:not([hidden])');
    await page.fill('#install-shopify .install-shop', SHOP);
    await page.click('#install-shopify .install-form button');

    await page.waitForSelector('#install');
    expect(new URL(page.url()).host).toBe(SHOP);
    expect(await page.textContent('h1')).toContain(SHOP);
    await page.screenshot({ path: `${artifactsDir('shopify-install')}consent.png` });
    await page.click('#install');

    await page.waitForURL(/\/admin\/\?installed=/);
    const row = page.locator('#install-shopify tbody tr', { hasText: SHOP });
    await expect.poll(() => row.textContent(), { timeout: 15_000 }).toMatch(/installed \(expiring token\)/);
    await page.screenshot({ path: `${artifactsDir('shopify-install')}installed.png`, fullPage: true });

    const session = await bridge.engine.store.getRecord(raw<ShopifySession>('session'), `shopify:${SHOP}`);
    expect(session).toMatchObject({ mode: 'oauth_expiring', refreshToken: expect.stringMatching(/^shprt_/) });
    // The page never shows a token.
    expect(await page.content()).not.toContain(session!.accessToken);
    // The app's configuration declares every topic for every shop: the check made after the install makes none on the shop, and counts none working before Shopify delivers it.
    await expect
      .poll(
        async () =>
          (await bridge.engine.store.getRecord(raw<{ unconfirmed?: string[] }>('platform-health'), `shopify:${SHOP}`))
            ?.unconfirmed,
        { timeout: 15_000 },
      )
      .toHaveLength(10);
    expect(fake.shop(SHOP).subscriptions).toEqual([]);
  }, 60_000);
});
