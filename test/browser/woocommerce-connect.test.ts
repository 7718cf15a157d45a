// "Connect a WooCommerce store", clicked through in Debian's Chromium: the
// dashboard (behind https, as WooCommerce sends keys only to an https
// callback), the store's WordPress login and WooCommerce's consent screen
// (the fake WordPress over HTTP), back to the dashboard with the store
// connected and its webhooks made, and an order from it earning points.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WooConnection } from '../../adapters/woocommerce/stores.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { artifactsDir, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { opensslAvailable, startHttpsFront, type HttpsFront } from '../helpers/https-front.ts';
import { wooOrderJson } from '../helpers/woocommerce.ts';
import { raw } from '../helpers/raw-records.ts';

const TOKEN = 'woo-connect-admin-token-0123456789abcdef';

describe.skipIf(!chromiumAvailable || !opensslAvailable)('connecting a WooCommerce store from the dashboard', () => {
  let front: HttpsFront;
  let woo: FakeWooCommerce;
  let bridge: RunningBridge;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    front = await startHttpsFront();
    woo = await startFakeWooCommerce({ admin: { user: 'shopkeeper', password: 'correct horse' } });
    bridge = await startTestBridge({ PUBLIC_URL: front.url, ADMIN_TOKEN: TOKEN, RECONCILE_INTERVAL_MINUTES: '0' });
    front.forwardTo(bridge.http.localUrl);
    browser = await launchChromium(['--ignore-certificate-errors']);
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.stop();
    await front?.close();
    await woo?.close();
  });

  it('enters the address, logs in to WordPress, approves, and comes back connected with the webhooks made', async () => {
    await page.goto(`${front.url}/admin/`);
    await page.fill('#token', TOKEN);
    await page.click('#sign-in-form button');
    await page.waitForSelector('#stores');
    await page.fill('#woocommerce-store', woo.url);
    await page.click('#woocommerce-connect-form button');

    // The store's WordPress: log in, then WooCommerce's consent screen.
    await page.waitForSelector('#loginform');
    expect(new URL(page.url()).host).toBe(woo.host);
    await page.fill('#user_login', 'shopkeeper');
    await page.fill('#user_pass', 'correct horse');
    await page.click('#wp-submit');
    await page.waitForSelector('#approve');
    expect(await page.textContent('h1')).toContain('loyalty-bridge would like to connect to your store');
    expect(await page.textContent('#scope')).toBe('Read/Write');
    await page.screenshot({ path: `${artifactsDir('woocommerce-connect')}consent.png` });
    await page.click('#approve');

    // Back on the dashboard, at the bridge's https address.
    await page.waitForURL(`${front.url}/admin/`);
    await expect.poll(() => page.textContent('#stores-notice')).toContain(`Connected ${woo.host}`);
    const row = page.locator('#store-list tbody tr', { hasText: woo.url });
    await expect.poll(() => row.textContent(), { timeout: 15_000 }).toMatch(/WooCommerce.*connected.*4 active/);
    await page.screenshot({ path: `${artifactsDir('woocommerce-connect')}connected.png`, fullPage: true });

    const kept = await bridge.engine.store.getRecord(raw<WooConnection>('session'), `woocommerce:${woo.host}`);
    expect(kept).toMatchObject({ keyPermissions: 'read_write' });
    expect(woo.webhooks.map((webhook) => [webhook.topic, webhook.status, webhook.delivery_url])).toEqual(
      ['order.created', 'order.updated', 'order.deleted', 'order.restored'].map((topic) => [
        topic,
        'active',
        `${front.url}/webhooks/woocommerce`,
      ]),
    );
    const html = await page.content();
    for (const secret of [kept!.consumerKey, kept!.consumerSecret, kept!.webhookSecret])
      expect(html).not.toContain(secret);

    // Points flow without any webhook made by hand.
    woo.orders.set(
      9100,
      JSON.parse(wooOrderJson({ id: 9100, status: 'processing', email: 'browser@example.com' })) as Record<
        string,
        unknown
      >,
    );
    expect(await woo.deliver('order.created', 9100)).toEqual([200]);
    await bridge.engine.drain();
    expect(bridge.sandbox?.store.snapshot().earnings.filter((each) => each.orderId === '9100')).toEqual([
      expect.objectContaining({ status: 'pending', email: 'browser@example.com' }),
    ]);
    await expect.poll(() => page.locator('#order-list tbody').textContent(), { timeout: 15_000 }).toContain('#9100');
  }, 60_000);

  it('says so when the merchant declines in WordPress', async () => {
    await page.goto(`${front.url}/admin/`);
    await page.waitForSelector('#stores');
    await page.fill('#woocommerce-store', woo.url);
    await page.click('#woocommerce-connect-form button');
    await page.waitForSelector('#deny');
    await page.click('#deny');
    await page.waitForURL(`${front.url}/admin/`);
    await expect.poll(() => page.textContent('#stores-notice')).toMatch(/was not connected: the request was declined/);
  }, 30_000);
});
