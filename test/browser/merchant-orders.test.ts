// The merchant's Orders (issue 68, item 4), in Debian's Chromium: each order's row shows its date and its total
// in the reader's locale and the order's currency, and its status in one short line; the reason and its fix are
// on the order's detail, which a click on the row (a tap on a phone) opens. An order whose total the ledger never
// learnt (a refund came first) shows a dash. At 1280 px in en-GB, at 390 px in de-DE, where rows are cards.
// Screenshots in test-artifacts/merchant-orders/.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SHOPIFY_APP_URL_PATH } from '../../adapters/shopify/paths.ts';
import { appInChromium } from '../helpers/app-in-chromium.ts';
import { artifactsDir, CHROMIUM, chromiumAvailable } from '../helpers/browser.ts';
import { APP_SECRET, CHROME_UA } from '../helpers/shopify-app-bridge.ts';
import { appUrlQuery } from '../helpers/shopify-app-links.ts';
import { shopifyHeaders, shopifyOrderJson, shopifyRefundJson } from '../helpers/shopify.ts';

const SHOP = 'orders-store.myshopify.com';
const SKIPPED_ID = '9680000000001';
const EARNED_ID = '9680000000002';
const REFUND_FIRST_ID = '9680000000003';
const SAYS = 'This customer gave no phone number, and your program requires one, so the order earns no points.';
const FIX = 'Fix: ask the bridge’s operator, who runs your program, to let orders without a phone earn.';

if (!chromiumAvailable) console.warn(`merchant orders browser test skipped: no Chromium at ${CHROMIUM}`);

/** An order in euros: its total the shop's own, as Shopify's webhook carries it. */
function euroOrder(id: string, total: string, phone: boolean): string {
  const order = JSON.parse(shopifyOrderJson({ id, totalPrice: total })) as Record<string, unknown> & {
    billing_address: { phone: string | null };
  };
  order.currency = 'EUR';
  order.total_price_set = { shop_money: { amount: total, currency_code: 'EUR' } };
  if (!phone) order.billing_address.phone = null;
  return JSON.stringify(order);
}

describe.skipIf(!chromiumAvailable)('the merchant’s Orders: date, total, one line; the reason on the detail', () => {
  const shots = artifactsDir('merchant-orders');
  const world = appInChromium({ SHOPIFY_SHOP: SHOP, SHOPIFY_EMBEDDED: 'false' }, async (running) => {
    const send = async (topic: string, body: string) => {
      const headers = shopifyHeaders({ topic, body, shop: SHOP, secret: APP_SECRET });
      const response = await fetch(`${running.url}/webhooks/shopify`, { method: 'POST', headers, body });
      expect(response.status).toBe(200);
    };
    await send('orders/paid', euroOrder(SKIPPED_ID, '1234.50', false));
    await send('orders/paid', euroOrder(EARNED_ID, '54.00', true));
    await send('refunds/create', shopifyRefundJson(REFUND_FIRST_ID, '9680000000099', '5.00'));
    await running.bridge.engine.drain();
  });

  /** The merchant's Orders in a page of its own, in `locale`, `width` wide. */
  async function ordersIn(locale: string, width: number): Promise<Page> {
    const phone = width < 600;
    const context = await world.browser.newContext({
      userAgent: CHROME_UA,
      locale,
      viewport: { width, height: 900 },
      hasTouch: phone,
      isMobile: phone,
    });
    const page = await context.newPage();
    await page.goto(`${world.running.url}${SHOPIFY_APP_URL_PATH}?${appUrlQuery({ shop: SHOP, secret: APP_SECRET })}`);
    await page.waitForURL(`${world.running.url}/shopify/store`);
    await page.locator('s-app-nav').getByRole('button', { name: 'Orders' }).click();
    await expect.poll(() => page.locator('#orders s-table-row[data-order]').count(), { timeout: 15_000 }).toBe(3);
    return page;
  }

  const cell = (page: Page, id: string, label: string) =>
    page.locator(`#orders s-table-row[data-order="${id}"] s-table-cell[data-label="${label}"]`);

  /** How many lines a cell's text takes, as drawn. */
  const linesOf = (page: Page, id: string, label: string) =>
    cell(page, id, label).evaluate((node) => {
      const range = node.ownerDocument.createRange();
      range.selectNodeContents(node);
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
    });

  /** Today as the merchant's page and the dashboard write a day (dates.js): short, no year this year, on one line. */
  const today = (locale: string) =>
    new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric' }).format(new Date()).replace(/\s/g, '\u00a0');

  it('at 1280 px in en-GB: each row’s date, euros, a one-line status; a click on the row opens why, and the fix', async () => {
    const page = await ordersIn('en-GB', 1280);
    await page.screenshot({ path: `${shots}orders-1280.png`, fullPage: true });
    expect(await cell(page, SKIPPED_ID, 'Date').textContent()).toBe(today('en-GB'));
    expect(await cell(page, SKIPPED_ID, 'Total').textContent()).toBe('€1,234.50');
    expect(await cell(page, EARNED_ID, 'Total').textContent()).toBe('€54.00');
    // The refund came first: the ledger never learnt the order's total.
    expect(await cell(page, REFUND_FIRST_ID, 'Total').textContent()).toBe('—');
    expect(await cell(page, SKIPPED_ID, 'Status').textContent()).toBe('Earns no points: see why');
    expect(await cell(page, EARNED_ID, 'Status').textContent()).toBe('Earned, pending');
    for (const id of [SKIPPED_ID, EARNED_ID, REFUND_FIRST_ID]) expect(await linesOf(page, id, 'Status')).toBe(1);
    // The sentence and its fix are not in the table.
    expect(await page.locator('#orders').textContent()).not.toContain(SAYS);
    // Nothing of a row is cut off at the table's side: every cell within the section's box.
    const box = await page.locator('#orders').evaluate((table) => table.getBoundingClientRect().right);
    const cut = await page
      .locator('#orders s-table-cell')
      .evaluateAll(
        (cells, right) =>
          cells.filter((each) => each.getBoundingClientRect().right > right).map((each) => each.textContent),
        box,
      );
    expect(cut).toEqual([]);
    // A click anywhere on the row, not only on its name.
    await cell(page, SKIPPED_ID, 'Customer').click();
    await expect.poll(() => page.locator('#order-detail').isVisible()).toBe(true);
    expect(await page.locator('#orders').isVisible()).toBe(false);
    expect(await page.locator('#order-detail-section').getAttribute('heading')).toBe('Order #0001');
    expect(await page.locator('#order-why').getAttribute('heading')).toBe('Earns no points');
    expect(await page.locator('#order-says').textContent()).toBe(SAYS);
    expect(await page.locator('#order-fix').textContent()).toBe(FIX);
    expect(await page.locator('#order-when').textContent()).toMatch(/^Received .* · €1,234\.50 · grace@example\.com$/);
    await page.screenshot({ path: `${shots}detail-1280.png`, fullPage: true });
    await page.locator('#back-to-orders').click();
    await expect.poll(() => page.locator('#orders').isVisible()).toBe(true);
    // From the keyboard: the order's name is a link, reached by Tab and followed by Enter.
    await cell(page, EARNED_ID, 'Order').locator('s-link[role="link"][tabindex="0"]').press('Enter');
    await expect.poll(() => page.locator('#order-detail-section').getAttribute('heading')).toBe('Order #0002');
    await page.context().close();
  }, 60_000);

  it('at 390 px in de-DE: the cards read the date, the total and one line; a tap opens the detail, calls made', async () => {
    const page = await ordersIn('de-DE', 390);
    expect(await cell(page, EARNED_ID, 'Date').textContent()).toBe(today('de-DE'));
    // Intl writes a narrow no-break space before the euro sign in German.
    expect((await cell(page, SKIPPED_ID, 'Total').textContent())?.replace(/\s/g, ' ')).toBe('1.234,50 €');
    expect(await cell(page, SKIPPED_ID, 'Status').textContent()).toBe('Earns no points: see why');
    for (const id of [SKIPPED_ID, EARNED_ID, REFUND_FIRST_ID]) expect(await linesOf(page, id, 'Status')).toBe(1);
    // Every cell is inside the window: nothing is clipped to the side of a card.
    const width = page.viewportSize()?.width ?? 390;
    const outside = await page
      .locator('#orders s-table-cell')
      .evaluateAll(
        (cells, right) =>
          cells.filter((each) => each.getBoundingClientRect().right > right).map((each) => each.textContent),
        width,
      );
    expect(outside).toEqual([]);
    await page.screenshot({ path: `${shots}orders-390.png`, fullPage: true });
    await page.locator('#orders').screenshot({ path: `${shots}orders-390-cards.png` });
    await cell(page, EARNED_ID, 'Status').tap();
    await expect.poll(() => page.locator('#order-detail').isVisible()).toBe(true);
    expect(await page.locator('#order-says').textContent()).toMatch(/^Points earned, pending/);
    expect(await page.locator('#order-fix').isVisible()).toBe(false);
    expect(await page.locator('#order-points').textContent()).toContain('earned 100 points, pending');
    expect(await page.locator('#order-calls li').first().textContent()).toContain('giving its points, done');
    await page.screenshot({ path: `${shots}detail-390.png`, fullPage: true });
    // The skipped order's detail, on the phone: its reason and fix.
    await page.locator('#back-to-orders').tap();
    await cell(page, SKIPPED_ID, 'Order').locator('s-link').tap();
    await expect.poll(() => page.locator('#order-fix').textContent()).toBe(FIX);
    expect(await page.locator('#order-says').textContent()).toBe(SAYS);
    await page.screenshot({ path: `${shots}detail-skipped-390.png`, fullPage: true });
    await page.context().close();
  }, 60_000);
});
