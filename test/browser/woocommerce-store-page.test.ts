// A WooCommerce merchant's own page (issue 34, item 4), in Debian's
// Chromium: the connect link the operator made for them on the dashboard, the store's
// WordPress login and WooCommerce's consent screen (the fake WordPress over
// HTTP), a sign-in from their own browser (the link was made in the
// operator's, issue 46), then their store's page at the bridge's https
// address, drawn by the bridge's stand-ins. They try the app on the sandbox, send a test order and
// see it earn. Later, in a new browser session, they come back through the
// bridge's address form and another approval; the page survives a reload,
// and the address never shows the session.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WooConnection } from '../../adapters/woocommerce/stores.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { artifactsDir, CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { walkViews } from '../helpers/merchant-views.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { opensslAvailable, startHttpsFront, type HttpsFront } from '../helpers/https-front.ts';
import { AUDIT_KIND } from '../../src/accounts/account-records.ts';
import { raw } from '../helpers/raw-records.ts';

const ADMIN_TOKEN = 'woo-page-browser-admin-token-0123456789';
const ADMIN = { user: 'shopkeeper', password: 'correct horse' };

if (!chromiumAvailable) console.warn(`WooCommerce page browser test skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!chromiumAvailable || !opensslAvailable)('a WooCommerce merchant’s own page, in a browser', () => {
  let front: HttpsFront;
  let woo: FakeWooCommerce;
  let bridge: RunningBridge;
  let browser: Browser;
  let page: Page;
  const shots = artifactsDir('woocommerce-page');
  const toasts = () => page.locator('#toasts li').allTextContents();

  beforeAll(async () => {
    front = await startHttpsFront();
    woo = await startFakeWooCommerce({ admin: ADMIN });
    bridge = await startTestBridge({ PUBLIC_URL: front.url, ADMIN_TOKEN, RECONCILE_INTERVAL_MINUTES: '0' });
    front.forwardTo(bridge.http.localUrl);
    browser = await launchChromium(['--ignore-certificate-errors']);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.stop();
    await front?.close();
    await woo?.close();
  });

  /** WordPress's login (unless logged in already) and WooCommerce's consent screen, as the store's administrator. */
  async function approveInWordPress(logIn = true): Promise<void> {
    if (logIn) {
      await page.waitForSelector('#loginform');
      expect(new URL(page.url()).host).toBe(woo.host);
      await page.fill('#user_login', ADMIN.user);
      await page.fill('#user_pass', ADMIN.password);
      await page.click('#wp-submit');
    }
    await page.click('#approve');
    await page.waitForURL(`${front.url}/woocommerce/store`);
  }
  const connection = () => bridge.engine.store.getRecord(raw<WooConnection>('session'), `woocommerce:${woo.host}`);

  it('lands on the store’s page after connecting, sets up on the sandbox, and a test order earns there', async () => {
    // The operator makes the connect link for the merchant on the dashboard, in their own browser.
    const operator = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await operator.goto(`${front.url}/admin/`);
    await operator.fill('#token', ADMIN_TOKEN);
    await operator.click('#sign-in-form button');
    await operator.waitForSelector('#stores');
    await operator.fill('#woocommerce-store', woo.url);
    await operator.click('#woocommerce-merchant-link-button');
    await operator.waitForSelector('#woocommerce-merchant-link:not([hidden])');
    const link = (await operator.textContent('#woocommerce-merchant-link code'))!;
    expect(new URL(link).origin).toBe(new URL(woo.url).origin);
    await operator.close();

    // The merchant opens it in theirs, and approves: the store is connected. The link was made in another browser,
    // so its return signs nobody in: the merchant signs in from theirs, approving once more (logged in to WordPress).
    page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    await page.goto(link);
    await page.waitForSelector('#loginform');
    await page.fill('#user_login', ADMIN.user);
    await page.fill('#user_pass', ADMIN.password);
    await page.click('#wp-submit');
    await page.click('#approve');
    await page.waitForURL(`${front.url}/woocommerce/return?**`);
    expect(await page.textContent('h1')).toBe('Your store is connected');
    await page.click('text=Sign in to your store’s page');
    await approveInWordPress(false);
    await expect
      .poll(() => page.locator('#attention s-banner').first().getAttribute('heading'), { timeout: 15_000 })
      .toBe('No loyalty account yet');
    // The session was taken out of the address: no bookmark or copied link carries it.
    expect(page.url()).toBe(`${front.url}/woocommerce/store`);
    // The store's name, as its WordPress says it (the fake's "Bits & Bobs <port>", kept escaped): not its address.
    await expect
      .poll(() => page.locator('#signed-in').textContent(), { timeout: 15_000 })
      .toBe(`Signed in to ${woo.siteName}`);
    await page.screenshot({ path: `${shots}1-connected.png` });

    await page.locator('s-app-nav').getByRole('button', { name: 'Set up' }).click();
    await page.locator('#sandbox-choice:not([hidden]) #try-sandbox').click();
    await expect.poll(toasts, { timeout: 15_000 }).toContain('You are trying it on the sandbox');
    await page.locator('#try-it:not([hidden]) #send-test-order').click();
    await expect
      .poll(() => page.locator('#test-order-status').getAttribute('data-points'), { timeout: 20_000 })
      .toBe('earned');
    await page.screenshot({ path: `${shots}2-test-order.png` });
    const audit = await bridge.engine.store.listRecords(AUDIT_KIND);
    expect(audit.map(({ value }) => value)).toContainEqual(
      expect.objectContaining({ action: 'account.create', by: `woocommerce ${woo.host}` }),
    );
    await page.close();
  }, 90_000);

  it('comes back later by approving a sign-in in WordPress, which replaces the store’s key', async () => {
    const before = await connection();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    await page.goto(`${front.url}/woocommerce/open`);
    await page.fill('#store', woo.url);
    await page.click('button[type=submit]');
    await approveInWordPress();
    // Their own account, set up before: nothing about a missing one.
    await expect.poll(() => page.locator('#account-summary').textContent(), { timeout: 15_000 }).toContain('sandbox');
    expect(await page.locator('#attention').textContent()).not.toContain('No loyalty account yet');
    await page.screenshot({ path: `${shots}3-signed-in-again.png` });
    // Each view, at a laptop's width and a phone's, in the WordPress admin's look: none scrolls sideways.
    await walkViews({
      page,
      frameOf: () => page.mainFrame(),
      open: (label) => page.locator('s-app-nav').getByRole('button', { name: label }).click(),
      shots,
    });
    const after = await connection();
    expect(after!.consumerKey).not.toBe(before!.consumerKey);
    expect(after!.webhookSecret).toBe(before!.webhookSecret);
  }, 90_000);

  it('offers the WordPress plugin in Set up: its download, and a one-time code that connects it', async () => {
    await page.locator('s-app-nav').getByRole('button', { name: 'Set up' }).click();
    const block = page.locator('#plugin-connect');
    await expect.poll(() => block.isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await page.locator('#plugin-how').textContent()).toContain('Upload Plugin');
    const download = page.locator('#plugin-download');
    expect(await download.textContent()).toMatch(/^Download the plugin \(version \d+\.\d+\.\d+\)$/);
    expect(await download.getAttribute('href')).toMatch(/^\/woocommerce\/plugin\/loyalty-bridge-[\d.]+\.zip$/);
    await page.locator('#plugin-code-button').click();
    await expect
      .poll(() => page.locator('#plugin-code').evaluate((field) => (field as unknown as { value: string }).value), {
        timeout: 15_000,
      })
      .toMatch(/^lb1\.[\w-]+\.[\w-]{43}$/);
    expect(await page.locator('#plugin-code-note').textContent()).toMatch(
      /^Paste it in WordPress \(WooCommerce › Loyalty points\) before .+; it works once\./,
    );
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 1000 });
      await page.locator('#storefront').screenshot({ path: `${shots}storefront-${width}.png` });
    }
    await page.setViewportSize({ width: 1280, height: 1000 });
  }, 60_000);

  it('keeps the session through a reload, and offers a new sign-in once it has ended', async () => {
    await page.reload();
    await expect.poll(() => page.locator('#account-summary').textContent(), { timeout: 15_000 }).toContain('sandbox');
    expect(await page.locator('#notice').isHidden()).toBe(true);
    // The store disconnected by the operator: the page's session opens nothing, and the page says where to go.
    await bridge.engine.store.deleteRecord(raw('session'), `woocommerce:${woo.host}`);
    await page.reload();
    await expect.poll(() => page.locator('#notice').textContent(), { timeout: 15_000 }).toContain('sign in again');
    expect(await page.locator('#notice a').getAttribute('href')).toBe('/woocommerce/open');
  }, 60_000);
});
