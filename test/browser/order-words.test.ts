// Orders in words (issue 49), in Debian's Chromium: the operator's dashboard and the merchant's order detail read a
// skipped order's reason as a sentence with its fix, and a pending order says until when (the account keeps points
// pending 14 days). The operator alone sees the setting's name, in small print. Screenshots in
// test-artifacts/order-words/.
import { describe, expect, it } from 'vitest';
import { appInChromium, merchantTab } from '../helpers/app-in-chromium.ts';
import { artifactsDir, CHROMIUM, chromiumAvailable } from '../helpers/browser.ts';
import { APP_SECRET } from '../helpers/shopify-app-bridge.ts';
import { shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';

const SHOP = 'words-store.myshopify.com';
const TOKEN = 'order-words-browser-admin-token-0123456789';
const SKIPPED = 'This customer gave no phone number, and your program requires one, so the order earns no points.';
/** Fourteen days after the order earned: today's or tomorrow's date, should the day turn during the test. */
const PENDING = /Points earned, pending until (\d{4}-\d{2}-\d{2}), 14 days after it was paid\./;

if (!chromiumAvailable) console.warn(`order words browser test skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!chromiumAvailable)('orders in words, on the dashboard and the merchant’s Orders', () => {
  const shots = artifactsDir('order-words');
  const world = appInChromium(
    { SHOPIFY_SHOP: SHOP, SHOPIFY_EMBEDDED: 'false', ADMIN_TOKEN: TOKEN, POINTS_PENDING_DAYS: '14' },
    async (running) => {
      const noPhone = JSON.parse(shopifyOrderJson({ id: '9610000000001' })) as { billing_address: { phone: null } };
      noPhone.billing_address.phone = null;
      for (const body of [JSON.stringify(noPhone), shopifyOrderJson({ id: '9610000000002' })]) {
        const response = await fetch(`${running.url}/webhooks/shopify`, {
          method: 'POST',
          headers: shopifyHeaders({ topic: 'orders/paid', body, shop: SHOP, secret: APP_SECRET }),
          body,
        });
        expect(response.status).toBe(200);
      }
      await running.bridge.engine.drain();
    },
  );

  const expectedDay = (found: string) => {
    const days = (Date.parse(found) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(12.9);
    expect(days).toBeLessThan(14.1);
  };

  it('the dashboard reads the skip with its fix and the setting in small print, and pending until a date', async () => {
    const page = await world.browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${world.running.url}/admin/#token=${TOKEN}`);
    const skipped = page.locator('#order-list tbody tr', { hasText: '#0001' });
    await expect.poll(() => skipped.textContent(), { timeout: 15_000 }).toContain(SKIPPED);
    expect(await skipped.textContent()).toContain('Fix: Customers need a phone, in the account’s program settings.');
    expect(await skipped.locator('small.setting').textContent()).toBe(' REQUIRE_MOBILE');
    expect(await skipped.textContent()).not.toContain('missing_mobile');
    const pending = (await page.locator('#order-list tbody tr', { hasText: '#0002' }).textContent()) ?? '';
    expectedDay(PENDING.exec(pending)?.[1] ?? 'no date');
    // The counts by state and by reason read the same words.
    await expect.poll(() => page.locator('#skipped').textContent()).toContain(SKIPPED);
    expect(await page.locator('#by-state').textContent()).toContain('Earns no points.');
    await page.screenshot({ path: `${shots}dashboard.png`, fullPage: true });
    await page.close();
  }, 60_000);

  it('the merchant’s Orders read the same on each order’s detail, with the fix where they make it and no setting’s name', async () => {
    const page = await merchantTab(world, SHOP, 'Orders');
    const skipped = page.locator('#orders s-table-row', { hasText: '#0001' });
    // The table: one short line; the sentence and fix are the detail's.
    await expect
      .poll(() => skipped.locator('.order-status').textContent(), { timeout: 15_000 })
      .toBe('Earns no points: see why');
    expect(await page.locator('#orders').textContent()).not.toMatch(/REQUIRE_MOBILE|missing_mobile/);
    await skipped.click();
    // The shop earns on the operator's account: the program is the operator's to change, not the merchant's.
    await expect.poll(() => page.locator('#order-says').textContent()).toBe(SKIPPED);
    expect(await page.locator('#order-fix').textContent()).toBe(
      'Fix: ask the bridge’s operator, who runs your program, to let orders without a phone earn.',
    );
    expect(await page.locator('#order-detail').textContent()).not.toMatch(/REQUIRE_MOBILE|missing_mobile/);
    await page.screenshot({ path: `${shots}merchant-order-detail.png`, fullPage: true });
    await page.locator('#back-to-orders').click();
    await page.locator('#orders s-table-row', { hasText: '#0002' }).click();
    await expect.poll(() => page.locator('#order-says').textContent()).toMatch(PENDING);
    expectedDay(PENDING.exec((await page.locator('#order-says').textContent()) ?? '')?.[1] ?? 'no date');
    await page.locator('#back-to-orders').click();
    await page.screenshot({ path: `${shots}merchant-orders.png`, fullPage: true });
    await page.close();
  }, 60_000);
});
