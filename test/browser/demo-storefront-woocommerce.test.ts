// A newcomer's customer side of the WooCommerce demo store, in Debian's Chromium: the bridge started as `npm start`
// starts it (sandbox mode, no store, no ADMIN_TOKEN), the demo stores' link told at the terminal opened and the
// WooCommerce store picked. A guest sees the ways to earn in the widget a WooCommerce store loads (the script the
// WordPress plugin prints); the demo's customer signs in, sees their balance and history, redeems the demo's reward,
// pays with its code at the page's checkout (WooCommerce's signed order.created, through the real webhook route), and
// the balance drops once; the demo shop's merchant sees the order paid with the code in Orders. Screenshots go to
// test-artifacts/demo-storefront-woocommerce/ (docs/screenshots/customer-demo-woocommerce-*.png are copies).
import { describe, expect, it } from 'vitest';
import { artifactsDir, chromiumAvailable } from '../helpers/browser.ts';
import { demoStorePage } from '../helpers/demo-store-page.ts';
import { eventually } from '../helpers/engine.ts';

const shots = artifactsDir('demo-storefront-woocommerce');
const SITE = 'demo-woocommerce.loyalty-bridge.invalid';

describe.skipIf(!chromiumAvailable)('the WooCommerce demo store page', () => {
  const demo = demoStorePage(shots);
  const { launcher, reopened, shoot } = demo;

  it('is reached from the link told at the terminal, and shows a guest the ways to earn and a reward', async () => {
    await demo.page.goto(demo.link);
    await shoot('stores');
    await demo.page.getByRole('link', { name: 'A WooCommerce store' }).click();
    await demo.page.waitForURL(/\/demo\/storefront\/woocommerce\/$/);
    demo.link = demo.page.url();
    expect(await demo.page.locator('main').innerText()).toContain('40.00 EUR');
    const text = await launcher();
    expect(text).toContain('100 points for 5.00 off');
    expect(text).toMatch(/ways to earn/i);
    expect(await demo.page.getByRole('button', { name: 'Redeem' }).count()).toBe(0);
    await shoot('guest');
  }, 60_000);

  let code = '';
  it('signs the demo customer in: their balance and history, then a reward redeemed for a code', async () => {
    await demo.page.goto(demo.link);
    await demo.page.getByRole('button', { name: 'Sign in as Katherine Johnson' }).click();
    await demo.page.getByText('Signed in as Katherine Johnson').waitFor();
    // Katherine's first order is completed: its 100 points are approved once the bridge called.
    await eventually(async () => expect(await reopened()).toContain('100 points available'), 30_000);
    expect(await demo.page.locator('[data-loyalty-body]').innerText()).toMatch(/Earned on order #\d+/);
    await shoot('signed-in');
    // A percentage, on this store: 10% of the 40.00 cart.
    code = await demo.redeemReward('100 points for 10% off', '10% off your order');
    await shoot('code');
  }, 60_000);

  it('pays with the code at the checkout, once: the balance drops by the reward, and the code pays no second order', async () => {
    await demo.page.goto(demo.link);
    await demo.page.getByLabel('Reward code').fill(code);
    await demo.page.getByRole('button', { name: 'Pay with the code' }).click();
    const paid = demo.page.getByRole('status');
    await paid.waitFor();
    expect(await paid.innerText()).toMatch(
      new RegExp(`Order #\\d+ is paid: 4.00 off with the code ${code}, 36.00 to pay`),
    );
    await shoot('paid');
    // What WooCommerce sent: order.created, processing, the coupon line with the code as WooCommerce keeps it.
    const sent = demo.bridge.demo!.sentTo('woocommerce', SITE);
    const order = sent.find((each) => each.order.code)!;
    const delivery = order.deliveries[0]!;
    expect(delivery.headers['x-wc-webhook-topic']).toBe('order.created');
    expect(JSON.parse(delivery.body)).toMatchObject({
      status: 'processing',
      coupon_lines: [{ code: code.toLowerCase(), discount: '4.00' }],
    });
    // The same code again: the store refuses it, nothing is sent; the redeem reached the service once.
    await demo.paidOnce(code, () => demo.bridge.demo!.sentTo('woocommerce', SITE).length);
    await shoot('spent');
  }, 90_000);

  it('shows the WooCommerce demo shop’s merchant, from its own printed link, the order paid with the code in Orders', async () => {
    const merchant = await demo.browser.newPage({ viewport: { width: 1280, height: 1000 }, locale: 'en-US' });
    try {
      await merchant.goto(demo.bridge.firstRun!.pageLink('woocommerce')!);
      await merchant.locator('#signed-in').waitFor({ timeout: 15_000 });
      await merchant.locator('s-app-nav').getByRole('button', { name: 'Orders' }).click();
      const order = demo.bridge.demo!.sentTo('woocommerce', SITE).find((each) => each.order.code)!;
      const row = merchant.locator(`[data-order="${order.id}"]`);
      // Its one line: the reward's points it spent, and what was paid.
      await expect.poll(() => row.innerText(), { timeout: 15_000 }).toContain('100 redeemed');
      expect(await row.innerText()).toContain('36.00');
      await merchant.getByRole('link', { name: `Open order #${order.number}` }).click();
      const codes = merchant.locator('#order-codes');
      await codes.waitFor();
      // As the customer was given it, though WooCommerce keeps its coupon codes in lower case.
      expect(await codes.innerText()).toBe(`Paid with the code ${code} (€4.00 off).`);
      expect(code).toBe(code.toUpperCase());
      for (const width of [1280, 390]) {
        await merchant.setViewportSize({ width, height: 1000 });
        const overflow = (await merchant.evaluate(
          '({ scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth })',
        )) as { scroll: number; width: number };
        expect(overflow.scroll, `the order at ${width} px scrolls sideways`).toBeLessThanOrEqual(overflow.width);
        await merchant.screenshot({ path: `${shots}merchant-order-${width}.png`, fullPage: true });
      }
    } finally {
      await merchant.close();
    }
  }, 60_000);
});
