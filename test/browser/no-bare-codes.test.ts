// No bare code on a page (issue 49), in Debian's Chromium: the operator's orders table, each order's detail and the
// states chart, and the merchant's Orders, read with skipped, pending, approved, cancelled, void, test and held
// orders, and the flow charts' legends. The codes come from their sources of truth (test/helpers/bare-codes.ts).
// Screenshots in test-artifacts/no-bare-codes/.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appInChromium, merchantTab } from '../helpers/app-in-chromium.ts';
import { bareCodes, withCodes } from '../helpers/bare-codes.ts';
import { artifactsDir, CHROMIUM, chromiumAvailable } from '../helpers/browser.ts';
import { APP_SECRET, type ShopifyAppBridge } from '../helpers/shopify-app-bridge.ts';
import { shopifyHeaders, shopifyOrderJson, type OrderOptions } from '../helpers/shopify.ts';

const SHOP = 'codes-store.myshopify.com';
const TOKEN = 'no-bare-codes-browser-admin-token-0123456789';

if (!chromiumAvailable) console.warn(`no-bare-codes browser test skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!chromiumAvailable)('no bare code on the dashboard or the merchant’s Orders', () => {
  const shots = artifactsDir('no-bare-codes');

  async function deliver(running: ShopifyAppBridge, topic: string, order: OrderOptions) {
    const body = shopifyOrderJson(order);
    const response = await fetch(`${running.url}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic, body, shop: SHOP, secret: APP_SECRET }),
      body,
    });
    expect(response.status).toBe(200);
    await running.bridge.engine.drain();
  }

  // Points are pending until the order is fulfilled, then approved.
  const world = appInChromium(
    { SHOPIFY_SHOP: SHOP, SHOPIFY_EMBEDDED: 'false', ADMIN_TOKEN: TOKEN, POINTS_PENDING_DAYS: '0' },
    async (running) => {
      const send = (topic: string, order: OrderOptions) => deliver(running, topic, order);
      const cancelledAt = new Date().toISOString();
      await send('orders/paid', { id: '9620000000001', email: null, customer: null }); // skipped
      await send('orders/paid', { id: '9620000000002' }); // earned, pending
      await send('orders/paid', { id: '9620000000003' });
      await send('orders/fulfilled', { id: '9620000000003', fulfillmentStatus: 'fulfilled' }); // approved
      await send('orders/paid', { id: '9620000000004' });
      await send('orders/cancelled', { id: '9620000000004', cancelledAt, financialStatus: 'refunded' }); // cancelled
      await send('orders/cancelled', { id: '9620000000005', cancelledAt, financialStatus: 'voided' }); // void
      await send('orders/paid', { id: '9620000000006', test: true }); // a test order, skipped
      running.bridge.sandbox?.faults.configure({ forced: { status: 400, count: 1, message: 'Invalid Source' } });
      await send('orders/paid', { id: '9620000000007' }); // held: its earn refused, a dead letter
    },
  );

  const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();

  it('reads each state it was given', async () => {
    const response = await fetch(`${world.running.url}/admin/api/status`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const states = ((await response.json()) as { orders: { byState: Record<string, number> } }).orders.byState;
    expect(Object.keys(states).sort()).toEqual(['approved', 'cancelled', 'earned', 'skipped', 'void']);
    expect(bareCodes('earned (missing_mobile)')).toEqual(['missing_mobile']);
    expect(bareCodes('approveConversion for order #1')).toEqual(['approveConversion']);
    expect(bareCodes('Points earned, pending until the order is fulfilled.')).toEqual([]);
  });

  it('the dashboard’s orders, each order’s detail, its calls and the states chart hold no bare code', async () => {
    const page = await world.browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${world.running.url}/admin/#token=${TOKEN}`);
    const rows = page.locator('#order-list tbody tr');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(7);
    expect(withCodes(await texts(page, '#order-list tbody td'))).toEqual([]);
    // Each platform by the name a person reads ("Shopify"), never its code name, in the table and the counts.
    const directory = await fetch(`${world.running.url}/admin/api/platforms`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const labels = ((await directory.json()) as any).platforms.map((each: any) => each.names.platform);
    const platformCells = await texts(page, '#order-list tbody td:nth-child(2)');
    expect(platformCells.length).toBe(7);
    for (const cellText of platformCells) expect(labels).toContain(cellText);
    await expect.poll(() => texts(page, '#by-platform td')).toEqual(expect.arrayContaining([platformCells[0]]));
    // The chart's bars are named in a few words.
    await expect.poll(() => texts(page, '#chart-states text'), { timeout: 10_000 }).toContain('earns no points');
    expect(withCodes(await texts(page, '#chart-states text'))).toEqual([]);
    // The flow charts' series: a refused call and the deliveries, in words.
    await expect.poll(() => texts(page, '#flow .legend li'), { timeout: 10_000 }).toContain('done');
    const legends = await texts(page, '#flow .legend li');
    expect(legends).toEqual(expect.arrayContaining(['Shopify: received', 'refused: a detail missing or malformed']));
    expect(withCodes(legends)).toEqual([]);
    await page.locator('#flow').screenshot({ path: `${shots}flow.png` });
    expect(await page.locator('#chart-states svg').getAttribute('aria-label')).not.toMatch(/\b(earned|void) \d/);
    expect(withCodes(await texts(page, '#by-state td, #skipped td, #attention td, #dead-letter-list td'))).toEqual([]);
    // The orders' filter offers each state in words, and narrows the table to it.
    expect(await texts(page, '#order-state option')).toEqual([
      'any state',
      'not earning yet',
      'earned, pending',
      'earned and approved',
      'points cancelled',
      'cancelled before earning',
      'earns no points',
    ]);
    await page.selectOption('#order-state', { label: 'points cancelled' });
    await expect.poll(() => rows.count()).toBe(1);
    await page.selectOption('#order-state', { label: 'any state' });
    await expect.poll(() => rows.count()).toBe(7);
    await page.screenshot({ path: `${shots}dashboard.png`, fullPage: true });

    const read: Record<string, string[]> = {};
    for (const name of ['#0001', '#0002', '#0003', '#0004', '#0005', '#0006', '#0007']) {
      await rows.filter({ hasText: name }).click();
      await expect.poll(() => page.locator('#order-title').textContent()).toContain(name);
      read[name] = [...(await texts(page, '#order-facts dd')), ...(await texts(page, '#order-calls td'))];
      expect({ name, codes: withCodes(read[name]) }).toEqual({ name, codes: [] });
    }
    // What the service holds, in words: the approved order's, the cancelled one's, the held one's refused call.
    expect(read['#0003']).toContain('points given and approved');
    expect(read['#0004']).toContain('points given, then taken back');
    expect(read['#0007']).toContain('refused; held until it is sent again');
    expect(read['#0002']).toEqual(expect.arrayContaining(['no referral to reward', 'no points spent on it']));
    await page.locator('#order-detail').screenshot({ path: `${shots}order-detail.png` });
    await page.close();
  }, 90_000);

  it('the merchant’s Orders and what could not go on hold no bare code', async () => {
    const page = await merchantTab(world, SHOP, 'Orders');
    const rows = page.locator('#orders s-table-row[data-order]');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(7);
    expect(withCodes(await texts(page, '#orders s-table-cell'))).toEqual([]);
    const letters = page.locator('#dead-letters s-banner');
    await expect.poll(() => letters.count()).toBe(1);
    expect(await letters.first().getAttribute('heading')).toBe('Order #0007: giving its points');
    expect(withCodes(await texts(page, '#dead-letters s-banner'))).toEqual([]);
    await page.screenshot({ path: `${shots}merchant-orders.png`, fullPage: true });
    // Each order's detail: why, its fix, the service's side and the calls made, all in words.
    const detail: Record<string, string[]> = {};
    for (const name of ['#0001', '#0002', '#0003', '#0004', '#0005', '#0006', '#0007']) {
      await rows.filter({ hasText: name }).locator('s-link').click();
      await expect.poll(() => page.locator('#order-detail-section').getAttribute('heading')).toBe(`Order ${name}`);
      const heading = (await page.locator('#order-why').getAttribute('heading')) ?? '';
      detail[name] = [heading, ...(await texts(page, '#order-detail s-paragraph, #order-calls li'))];
      expect({ name, codes: withCodes(detail[name]) }).toEqual({ name, codes: [] });
      await page.locator('#back-to-orders').click();
    }
    expect(detail['#0007']!.join(' ')).toContain('refused; held until it is sent again');
    await page.close();
  }, 60_000);
});
