// A newcomer's customer side of the BigCommerce demo store, in Debian's Chromium: the bridge started as `npm start`
// starts it (sandbox mode, no store, no ADMIN_TOKEN), the demo stores' link told at the terminal opened and the
// BigCommerce store picked. A guest sees the ways to earn in the widget a BigCommerce store loads (the script the
// Scripts API puts on its pages), and its sign-in link opens the page's sign-in; the demo's customer signs in (their
// current-customer token signed by the store's origin, which the bridge's plays), sees their balance and history,
// redeems the demo's reward, pays with its code at the page's checkout (BigCommerce's signed store/order/created,
// through the real webhook route, the order read from the demo store's API), and the balance drops once; the demo
// store's merchant sees the order paid with the code in Orders. Screenshots go to
// test-artifacts/demo-storefront-bigcommerce/ (docs/screenshots/customer-demo-bigcommerce-*.png are copies).
import { describe, expect, it } from 'vitest';
import { artifactsDir, chromiumAvailable } from '../helpers/browser.ts';
import { demoStorePage } from '../helpers/demo-store-page.ts';
import { eventually } from '../helpers/engine.ts';

const shots = artifactsDir('demo-storefront-bigcommerce');
const STORE = 'lbdemo01';

describe.skipIf(!chromiumAvailable)('the BigCommerce demo store page', () => {
  const demo = demoStorePage(shots);
  const { launcher, reopened, shoot } = demo;

  it('is reached from the link told at the terminal, and shows a guest the ways to earn and a reward', async () => {
    await demo.page.goto(demo.link);
    await shoot('stores');
    await demo.page.getByRole('link', { name: 'A BigCommerce store' }).click();
    await demo.page.waitForURL(/\/demo\/storefront\/bigcommerce\/$/);
    demo.link = demo.page.url();
    expect(await demo.page.locator('main').innerText()).toContain('40.00 USD');
    const text = await launcher();
    expect(text).toContain('100 points for 5.00 off');
    expect(text).toMatch(/ways to earn/i);
    expect(await demo.page.getByRole('button', { name: 'Redeem' }).count()).toBe(0);
    await shoot('guest');
    // Its sign-in link is BigCommerce's /login.php, on the store's origin: the page's own sign-in.
    await demo.page
      .getByRole('dialog', { name: 'Your points' })
      .getByRole('link', { name: 'Sign in', exact: true })
      .click();
    await demo.page.waitForURL(/\/demo\/storefront\/bigcommerce\/#account$/);
  }, 60_000);

  let code = '';
  it('signs the demo customer in: their balance and history, then a reward redeemed for a code', async () => {
    await demo.page.goto(demo.link);
    await demo.page.getByRole('button', { name: 'Sign in as Hedy Lamarr' }).click();
    await demo.page.getByText('Signed in as Hedy Lamarr').waitFor();
    // Hedy's first order shipped: its 100 points are approved once the bridge called.
    await eventually(async () => expect(await reopened()).toContain('100 points available'), 30_000);
    expect(await demo.page.locator('[data-loyalty-body]').innerText()).toMatch(/Earned on order #\d+/);
    await shoot('signed-in');
    // Free shipping, on this store: the demo's cart ships free, so the order pays the cart alone.
    code = await demo.redeemReward('100 points for free shipping', 'Free shipping on your order');
    await shoot('code');
  }, 60_000);

  it('pays with the code at the checkout, once: the balance drops by the reward, and the code pays no second order', async () => {
    await demo.page.goto(demo.link);
    await demo.page.getByLabel('Reward code').fill(code);
    await demo.page.getByRole('button', { name: 'Pay with the code' }).click();
    const paid = demo.page.getByRole('status');
    await paid.waitFor();
    // BigCommerce names an order by its id.
    const sent = demo.bridge.demo!.sentTo('bigcommerce', STORE);
    const order = sent.find((each) => each.order.code)!;
    expect(await paid.innerText()).toBe(
      `Order #${order.id} is paid: free shipping with the code ${code}, 40.00 to pay.`,
    );
    await shoot('paid');
    // What BigCommerce sent: store/order/created, naming the order alone; the code is on the order the API answers.
    const delivery = order.deliveries[0]!;
    expect(JSON.parse(delivery.body)).toMatchObject({
      scope: 'store/order/created',
      data: { type: 'order', id: order.id },
    });
    expect(delivery.body).not.toContain(code);
    // The same code again: the store refuses it, nothing is sent; the redeem reached the service once.
    await demo.paidOnce(code, () => demo.bridge.demo!.sentTo('bigcommerce', STORE).length);
    await shoot('spent');
  }, 90_000);

  it('shows the BigCommerce demo store’s merchant, from its own printed link, the order paid with the code in Orders', async () => {
    const merchant = await demo.browser.newPage({ viewport: { width: 1280, height: 1000 }, locale: 'en-US' });
    try {
      await merchant.goto(demo.bridge.firstRun!.pageLink('bigcommerce')!);
      await merchant.locator('#signed-in').waitFor({ timeout: 15_000 });
      await merchant.locator('s-app-nav').getByRole('button', { name: 'Orders' }).click();
      const order = demo.bridge.demo!.sentTo('bigcommerce', STORE).find((each) => each.order.code)!;
      const row = merchant.locator(`[data-order="${order.id}"]`);
      // Its one line: the reward's points it spent, and what was paid.
      await expect.poll(() => row.innerText(), { timeout: 15_000 }).toContain('100 redeemed');
      expect(await row.innerText()).toContain('$40.00');
      await merchant.getByRole('link', { name: `Open order #${order.id}` }).click();
      const codes = merchant.locator('#order-codes');
      await codes.waitFor();
      // As BigCommerce's order coupons give it: the code as made; a free-shipping code took no money off the goods.
      expect(await codes.innerText()).toBe(`Paid with the code ${code}.`);
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
