// A newcomer's customer side of the Shopify demo store, in Debian's Chromium: the bridge started as `npm start` starts it (sandbox mode, no
// store, no ADMIN_TOKEN), the demo store page's link told at the terminal opened. A guest sees the ways to earn in
// the platform's own launcher; the demo's customer signs in, sees their balance, redeems the demo's reward, pays
// with its code at the page's checkout (the platform's signed order webhook, through the real route), and the
// balance drops once; the demo shop's merchant sees the order paid with the code in Orders. Screenshots go to
// test-artifacts/demo-storefront/ (docs/screenshots/customer-demo-store-*.png and merchant-demo-store-order-*.png are copies).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { artifactsDir, chromiumAvailable } from '../helpers/browser.ts';
import { demoStorePage } from '../helpers/demo-store-page.ts';
import { eventually } from '../helpers/engine.ts';

const shots = artifactsDir('demo-storefront');

describe.skipIf(!chromiumAvailable)('the demo store page', () => {
  const demo = demoStorePage(shots);
  const { launcher, reopened, shoot } = demo;

  it('is told at the terminal with the other links, and shows a guest the ways to earn and a reward', async () => {
    expect(demo.link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/demo\/storefront\/$/);
    // The link lists a store of each platform's: the Shopify one is picked.
    await demo.page.goto(demo.link);
    await demo.page.getByRole('link', { name: 'A Shopify store' }).click();
    await demo.page.waitForURL(/\/demo\/storefront\/shopify\/$/);
    demo.link = demo.page.url();
    const text = await launcher();
    // One reward of each kind (an amount, a percentage, free shipping), as the demo sets them.
    for (const words of ['100 points for 5.00 off', '100 points for 10% off', '100 points for free shipping'])
      expect(text).toContain(words);
    expect(text).toMatch(/ways to earn/i);
    expect(await demo.page.getByRole('button', { name: 'Redeem' }).count()).toBe(0);
    await shoot('guest');
  }, 60_000);

  let code = '';
  it('signs the demo customer in: their balance, then a reward redeemed for a code', async () => {
    await demo.page.goto(demo.link);
    await demo.page.getByRole('button', { name: 'Sign in as Ada Lovelace' }).click();
    await demo.page.getByText('Signed in as Ada Lovelace').waitFor();
    // Ada's first order is paid and fulfilled: its 100 points are approved once the bridge called.
    await eventually(async () => expect(await reopened()).toContain('100 points available'), 30_000);
    expect(await demo.page.locator('[data-loyalty-body]').innerText()).toContain('Earned on order #1001');
    await shoot('signed-in');
    code = await demo.redeemReward();
    await shoot('code');
  }, 60_000);

  it('pays with the code at the checkout, once: the balance drops by the reward, and the code pays no second order', async () => {
    await demo.page.goto(demo.link);
    await demo.page.getByLabel('Reward code').fill(code);
    await demo.page.getByRole('button', { name: 'Pay with the code' }).click();
    const paid = demo.page.getByRole('status');
    await paid.waitFor();
    expect(await paid.innerText()).toMatch(
      new RegExp(`Order #\\d+ is paid: 5.00 off with the code ${code}, 35.00 to pay`),
    );
    await shoot('paid');
    // The same code again: the store refuses it, nothing is sent; the redeem reached the service once.
    await demo.paidOnce(code, () => demo.bridge.demo!.sentTo('shopify', 'loyalty-bridge-demo.myshopify.com').length);
  }, 90_000);

  it('shows the demo shop’s merchant the storefront on with its reward, and the order paid with the code in Orders', async () => {
    const merchant = await demo.browser.newPage({ viewport: { width: 1280, height: 1000 }, locale: 'en-US' });
    try {
      await merchant.goto(demo.bridge.firstRun!.pageLink()!);
      await merchant.locator('#signed-in').waitFor({ timeout: 15_000 });
      // Set up: the storefront the demo turned on, and its one reward, as the merchant would have set them.
      await merchant.locator('s-app-nav').getByRole('button', { name: 'Set up' }).click();
      await merchant.locator('#storefront:not([hidden])').waitFor({ timeout: 15_000 });
      await expect.poll(() => merchant.locator('#storefront-switch input').isChecked()).toBe(true);
      await expect
        .poll(() => merchant.locator('#reward-list .reward-words').allTextContents())
        .toEqual([
          '100 points for 5.00 off · codes last 30 days · combines with no other discount',
          '100 points for 10% off · codes last 30 days · combines with no other discount',
          '100 points for free shipping · codes last 30 days · combines with no other discount',
        ]);
      await merchant.locator('s-app-nav').getByRole('button', { name: 'Orders' }).click();
      const order = demo.bridge
        .demo!.sentTo('shopify', 'loyalty-bridge-demo.myshopify.com')
        .find((each) => each.order.code)!;
      const row = merchant.locator(`[data-order="${order.id}"]`);
      // Its one line: what it earned, and the reward's points it spent.
      await expect.poll(() => row.innerText(), { timeout: 15_000 }).toContain('100 redeemed');
      expect(await row.innerText()).toContain('$35.00');
      await merchant.getByRole('link', { name: `Open order #${order.number}` }).click();
      const codes = merchant.locator('#order-codes');
      await codes.waitFor();
      expect(await codes.innerText()).toBe(`Paid with the code ${code} ($5.00 off).`);
      for (const width of [1280, 390]) {
        await merchant.setViewportSize({ width, height: 1000 });
        await merchant.screenshot({ path: `${shots}merchant-order-${width}.png`, fullPage: true });
      }
    } finally {
      await merchant.close();
    }
  }, 60_000);

  it('sends the customer’s data request; the merchant sees it on a phone with its buttons, exports and answers it', async () => {
    await demo.page.goto(demo.link);
    await demo.page.getByRole('button', { name: 'Ask for my data' }).click();
    await demo.page.getByText('The store has your request').waitFor();
    await shoot('data-request');
    const merchant = await demo.browser.newPage({ viewport: { width: 390, height: 1000 }, locale: 'en-US' });
    try {
      await merchant.goto(demo.bridge.firstRun!.pageLink()!);
      await merchant.locator('#signed-in').waitFor({ timeout: 15_000 });
      await merchant.locator('s-app-nav').getByRole('button', { name: 'Data requests' }).click();
      const request = merchant.locator('#data-requests s-banner');
      await expect.poll(() => request.count(), { timeout: 15_000 }).toBe(1);
      expect(await request.getAttribute('heading')).toContain('ada@example.com');
      // Its buttons are seen (slotted as Polaris slots them), not only present.
      const exportButton = request.locator('s-button', { hasText: 'Export their data' });
      expect(await exportButton.isVisible()).toBe(true);
      await merchant.screenshot({ path: `${shots}merchant-data-request-390.png` });
      const [download] = await Promise.all([merchant.waitForEvent('download'), exportButton.click()]);
      const exported = JSON.parse(readFileSync((await download.path())!, 'utf8')) as { orders: unknown[] };
      expect(exported.orders.length).toBeGreaterThan(0);
      await request.locator('s-button', { hasText: 'Mark answered' }).click();
      await expect.poll(() => request.count(), { timeout: 15_000 }).toBe(0);
    } finally {
      await merchant.close();
    }
  }, 60_000);

  it('shows the customer points the store took back as taken back, not as spent on a reward', async () => {
    const { bridge } = demo;
    // Ada orders again (paid, fulfilled): 100 points approved to take from.
    const player = bridge.demo!.players.find((each) => each.platform === 'shopify')!;
    await bridge.demo!.checkout(player, player.demo.orders[0]!);
    await bridge.engine.drain();
    await eventually(async () => expect(await reopened()).toContain('100 points available'), 30_000);
    // The store takes 30 back by hand, on the account the shop earns on.
    const account = await bridge.accounts.accountOf({ platform: 'shopify', shop: 'loyalty-bridge-demo.myshopify.com' });
    const token = /#token=(.+)$/.exec(bridge.signInUrl!)![1];
    const taken = await fetch(`${bridge.http.localUrl}/admin/api/adjustments/redeem`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com', points: 30, reason: 'given twice', account }),
    });
    expect(taken.status, await taken.text()).toBe(201);
    const text = await reopened();
    expect(text).toContain('70 points available');
    expect(text).toMatch(/Taken back by the store\n[^\n]*\n-30\n/);
    // The reward's 100 points, spent at the checkout, still read as spent on a reward.
    expect(text).toMatch(/Spent on a reward\n[^\n]*\n-100\n/);
    await shoot('taken-back');
  }, 60_000);
});
