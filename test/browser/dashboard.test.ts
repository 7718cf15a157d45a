// The dashboard in a real browser: Debian's Chromium driven by playwright-core.
// It signs in, sees an order that a signed webhook just created, retries a
// dead letter, and starts a resync and watches it finish. A screenshot of each
// view is kept in test-artifacts/dashboard/ (not in git).
import nock from 'nock';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { artifactsDir, CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import { startTestSandbox } from '../helpers/sandbox-server.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { WOO_SITE, wooHeaders, wooOrderJson, WOO_ENV } from '../helpers/woocommerce.ts';

const TOKEN = 'dashboard-admin-token-0123456789';

if (!chromiumAvailable)
  console.warn(
    `dashboard browser test skipped: no Chromium at ${CHROMIUM} (.ci/run installs it: apt-get install -y chromium)`,
  );

describe.skipIf(!chromiumAvailable)('the dashboard', () => {
  let bridge: RunningBridge;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    bridge = await startTestBridge({
      ADMIN_TOKEN: TOKEN,
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      ...WOO_ENV,
      RECONCILE_INTERVAL_MINUTES: '0',
      // Activity 21 gives back the 50 points a LOYALTY- code of 0.50 takes.
      SANDBOX_ACTIVITIES: '1=100,21=50',
      REDEEM_RETURN_ACTIVITIES: '50=21',
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.stop();
    nock.cleanAll();
    nock.enableNetConnect();
  });

  const shot = (name: string) => page.screenshot({ path: `${artifactsDir('dashboard')}${name}.png`, fullPage: true });

  it('refuses a wrong token and signs in with the right one, keeping it out of the URL', async () => {
    await page.goto(`${bridge.http.localUrl}/admin`);
    await page.fill('#token', 'not-the-token-at-all');
    await page.click('#sign-in-form button');
    await expect.poll(() => page.textContent('#sign-in-error')).toContain('refused');
    await shot('sign-in');
    await page.fill('#token', TOKEN);
    await page.click('#sign-in-form button');
    await page.waitForSelector('#app:not([hidden])');
    expect(page.url()).not.toContain(TOKEN);
  });

  it('shows an order that a signed webhook just created, and its history', async () => {
    const body = shopifyOrderJson({ id: '5550000000001', email: 'browser@example.com' });
    await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body }),
      body,
    });
    await bridge.engine.drain();
    const row = page.locator('#order-list tbody tr', { hasText: 'browser@example.com' });
    await row.waitFor({ timeout: 15_000 });
    await expect.poll(() => row.textContent()).toContain('earned');
    // Its points as a number, in the Points column: activity 1 gives 100 points in the sandbox.
    const column = await page.locator('#order-list thead th').allTextContents();
    const points = row.locator('td').nth(column.indexOf('Points'));
    await expect.poll(() => points.textContent(), { timeout: 15_000 }).toBe('earned 100 points, pending');
    await shot('overview');
    await row.click();
    await page.waitForSelector('#order-detail:not([hidden])');
    await expect.poll(() => page.textContent('#order-calls')).toContain('earn');
    expect(await page.textContent('#order-facts')).toContain('earned 100 points, pending');
    await shot('order-detail');
  });

  it('gives points by hand in points, and says which amounts can be given when none gives that many', async () => {
    const give = async (points: string) => {
      for (const [name, value] of [
        ['name', 'Hedy Lamarr'],
        ['email', 'hedy.by-hand@example.com'],
        ['mobile', '+12125550100'],
        ['points', points],
        ['reason', 'a parcel lost in the post'],
      ])
        await page.fill(`#give-form [name="${name}"]`, value!);
      await page.click('#give-form button');
    };
    await expect.poll(() => page.locator('#give-account option').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await give('120');
    await expect
      .poll(() => page.textContent('#give-result'), { timeout: 15_000 })
      .toBe(
        "No points given: points: no activity gives exactly 120 points; the amounts that can be given are 50, 100 (declare more in the account's settings (LOYALTY_ACTIVITY_POINTS))",
      );
    await give('100');
    await expect
      .poll(() => page.textContent('#give-result'), { timeout: 15_000 })
      .toBe('Gave 100 points to hedy.by-hand@example.com: activity 1 of default (the environment’s).');
    expect(
      bridge.sandbox?.store.snapshot().earnings.filter((each) => each.email === 'hedy.by-hand@example.com'),
    ).toEqual([expect.objectContaining({ activityId: '1', points: 100 })]);
    await page.locator('#by-hand').screenshot({ path: `${artifactsDir('dashboard')}by-hand.png` });
  });

  it('retries a dead letter with its button', async () => {
    bridge.sandbox?.faults.configure({ forced: { status: 400, count: 1, message: 'Invalid Source' } });
    const body = shopifyOrderJson({ id: '5550000000002', email: 'retry@example.com' });
    await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body }),
      body,
    });
    await bridge.engine.drain();
    // Named as the store shows the order (#0002), not by its key.
    const letter = page.locator('#dead-letter-list tbody tr', { hasText: 'for order #0002' });
    await letter.waitFor({ timeout: 15_000 });
    await shot('dead-letters');
    await letter.locator('button', { hasText: 'Retry' }).click();
    await letter.waitFor({ state: 'detached', timeout: 15_000 });
    await bridge.engine.drain();
    expect(bridge.sandbox?.store.snapshot().earnings.some((earning) => earning.orderId === '5550000000002')).toBe(true);
  });

  it('starts a resync and shows its progress until it is done', async () => {
    nock(WOO_SITE)
      .get('/wp-json/wc/v3/orders')
      .query(true)
      .reply(
        200,
        `[${wooOrderJson({ id: 6601, status: 'processing' })},${wooOrderJson({ id: 6602, status: 'completed' })}]`,
        { 'X-WP-TotalPages': '1' },
      );
    await page.selectOption('#resync-platform', 'woocommerce');
    await page.fill('#resync-since', '2026-11-01');
    await page.click('#resync-form button');
    await expect
      .poll(() => page.textContent('#resync-progress'), { timeout: 15_000 })
      .toContain('Done: fetched 2, changed 2');
    await shot('resync');
  });

  it('warns with a banner when the loyalty service refuses our credentials', async () => {
    bridge.sandbox?.faults.configure({ forced: { status: 401, count: 1, message: 'Invalid auth' } });
    const body = shopifyOrderJson({ id: '5550000000003' });
    await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body }),
      body,
    });
    await bridge.engine.drain();
    await page.waitForSelector('#banner:not([hidden])', { timeout: 15_000 });
    expect(await page.textContent('#banner')).toContain('LOYALTY_API_KEY');
    await shot('credentials-banner');
  });

  it('shows a banner when Shopify withholds customers’ contact details (protected customer data not granted)', async () => {
    // The previous test left every call paused (refused credentials); they are right again.
    await fetch(`${bridge.http.localUrl}/admin/api/upstream/probe`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const body = shopifyOrderJson({ id: '5550000000004', email: null, customer: { id: 7002, first_name: 'Withheld' } });
    await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body }),
      body,
    });
    await bridge.engine.drain();
    await page.waitForSelector('#protected-banner:not([hidden])', { timeout: 15_000 });
    expect(await page.textContent('#protected-banner')).toMatch(
      /1 Shopify order.*protected customer data.*Dev Dashboard/,
    );
    await shot('protected-data-banner');
  });

  it('lists points redeemed on a cancelled order and gives them back with one click', async () => {
    const email = 'redeemer.browser@example.com';
    const customer = { id: 7003, first_name: 'Rae', last_name: 'Deemer', email, phone: '+12125550177' };
    const send = async (topic: string, options: Parameters<typeof shopifyOrderJson>[0]) => {
      const body = shopifyOrderJson({ email, customer, ...options });
      await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic, body }),
        body,
      });
      await bridge.engine.drain();
    };
    const code = [{ code: 'LOYALTY-RAE', amount: '0.50', type: 'fixed_amount' }];
    await send('orders/fulfilled', { id: '5550000000011', fulfillmentStatus: 'fulfilled' });
    await send('orders/paid', { id: '5550000000012', discountCodes: code });
    await send('orders/cancelled', {
      id: '5550000000012',
      discountCodes: code,
      cancelledAt: '2026-11-20T12:00:00-05:00',
    });
    const row = page.locator('#redeemed-list tbody tr', { hasText: '#0012' });
    await row.waitFor({ timeout: 15_000 });
    await shot('redeemed-on-cancelled');
    await row.locator('button', { hasText: 'Give 50 points back' }).click();
    await row.waitFor({ state: 'detached', timeout: 15_000 });
    expect(
      bridge.sandbox?.store
        .snapshot()
        .earnings.filter((earning) => earning.email === email && earning.activityId === '21'),
    ).toMatchObject([{ points: 50 }]);
  });

  it('exports a customer’s data and erases it from the Privacy section', async () => {
    const email = 'privacy.browser@example.com';
    const body = wooOrderJson({ id: 5560, status: 'processing', email });
    await fetch(`${bridge.http.localUrl}/webhooks/woocommerce`, {
      method: 'POST',
      headers: wooHeaders('order.created', body),
      body,
    });
    await bridge.engine.drain();
    await page.fill('#privacy-email', email);
    const download = page.waitForEvent('download');
    await page.click('#privacy-export');
    expect((await download).suggestedFilename()).toBe('customer-data.json');
    await expect.poll(() => page.textContent('#privacy-result')).toMatch(/1 order,/);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#privacy-erase');
    await expect.poll(() => page.textContent('#privacy-result')).toMatch(/Erased from 1 order,.*loyalty service/);
    await shot('privacy');
    const order = await bridge.engine.store.getOrder(`woocommerce:${new URL(WOO_SITE).host}:5560`);
    expect(order?.snapshot.customer.email).toBeNull();
  });

  it('creates a loyalty account with its form, shows it without its key, and moves a shop to it', async () => {
    const key = 'browser-account-secret-key-8c7b6a5f4e3d-HJKL';
    const service = await startTestSandbox({ apiKey: key, brandId: 'brand-browser' });
    try {
      const fill = async (baseUrl: string) => {
        await page.fill('#account-name', 'Browser Club');
        await page.fill('#account-base-url', baseUrl);
        await page.fill('#account-api-key', key);
        await page.fill('#account-brand-id', 'brand-browser');
        await page.fill('#account-activity-points', '1=100');
        await page.click('#account-form button');
      };
      // Plain http beyond this machine would carry the key in the clear: one line says so.
      await fill('http://loyalty.example');
      await expect.poll(() => page.textContent('#account-errors')).toMatch(/^baseUrl: must be https/);
      await fill(service.url);
      const account = page.locator('#account-list .card', { hasText: 'Browser Club' });
      await account.waitFor({ timeout: 15_000 });
      await expect.poll(() => account.textContent()).toContain('connected');
      expect(await account.textContent()).toContain('…HJKL');
      // Its health, as the operator reads it: not paused, its calls against its limit, its dead letters.
      expect(await account.textContent()).toMatch(/Paused\s*no/);
      // Its budget in one short line, with its bar.
      expect(await account.textContent()).toMatch(/Calls\s*\d+ of \d+ calls this minute/);
      expect(await account.locator('meter').count()).toBe(1);
      expect(await account.textContent()).toMatch(/Dead letters\s*0/);
      // The points each activity gives, as declared with the account: what its orders' numbers come from.
      expect(await account.textContent()).toMatch(/Points each activity gives\s*activity 1: 100 points/);
      expect(await page.inputValue('#account-api-key')).toBe('');
      expect(await page.textContent('#account-errors')).toBe('');

      const id = (await bridge.accounts.list()).find((each) => each.name === 'Browser Club')?.id;
      const row = page.locator(`#shop-accounts tbody tr[data-shop="${SHOP}"]`);
      await row.locator('select').selectOption({ label: 'Browser Club' });
      await expect.poll(() => page.textContent('#shop-link-result')).toContain(`${SHOP} now earns on Browser Club`);
      expect(await bridge.accounts.accountOf({ platform: 'shopify', shop: SHOP })).toBe(id);
      await expect.poll(() => account.textContent()).toContain(SHOP);
      await shot('accounts');
      expect(await page.content()).not.toContain(key);

      // Back to what the environment says, for whatever runs after.
      // The choice says what it does, and the words under the table what it means for a shop.
      expect(await page.textContent('#unlink-hint')).toMatch(
        /takes a shop’s link away: .* earns on the default account/s,
      );
      await row.locator('select').selectOption({ label: 'the environment’s choice (unlink)' });
      await expect.poll(() => bridge.accounts.accountOf({ platform: 'shopify', shop: SHOP })).toBe('default');
    } finally {
      await service.close();
    }
  });
});
