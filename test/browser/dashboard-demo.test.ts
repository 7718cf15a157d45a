// The operator's dashboard on the demo, as a newcomer sees it after `npm start`, in Debian's Chromium at a laptop's
// width and a phone's: nothing in a table is out of sight (at 390 px each row is a card), counts have the reader's
// separators, a budget is one short line with its bar for each account in use, colours say what a state means (an
// order the service refused is red, in words that say so), and the page agrees with the demo: resync is offered for
// its shops and works, and their Store API reads on; its shops are stores, each on its own trial account, which
// "Move to" and "Give points by hand" use. Screenshots go to test-artifacts/dashboard-demo/ (not in git).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startFirstRunBridge } from '../helpers/bridge.ts';
import { artifactsDir, cellsOutOfSight, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import { eventually } from '../helpers/engine.ts';

const SHOPS = ['loyalty-bridge-demo.myshopify.com', 'demo-woocommerce.loyalty-bridge.invalid', 'lbdemo01'];
/** The trial account each demo shop earns on (demo-accounts.ts), by shop. */
const TRIALS = ['Shopify demo shop', 'WooCommerce demo shop', 'BigCommerce demo shop'];
const DEFAULT = 'default (the environment’s)';

describe.skipIf(!chromiumAvailable)('the dashboard on the demo', () => {
  let bridge: RunningBridge;
  let browser: Browser;
  let page: Page;
  const shots = artifactsDir('dashboard-demo');
  // In the page, as a string: the tests are typed without the DOM's names.
  const inPage = (script: string) => page.evaluate<string>(script);

  beforeAll(async () => {
    bridge = await startFirstRunBridge();
    await eventually(() => expect(bridge.demo?.played ?? 0).toBeGreaterThanOrEqual(bridge.demo!.handful), 30_000);
    await bridge.engine.drain();
    // An account whose activity gives a number that needs a separator to read.
    const token = /#token=(.+)$/.exec(bridge.signInUrl ?? '')?.[1];
    const made = await fetch(`${bridge.http.localUrl}/admin/api/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        sandbox: true,
        name: 'Big Points Club',
        settings: { LOYALTY_ACTIVITY_POINTS: '1=98340' },
      }),
    });
    expect(made.status).toBe(201);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, locale: 'en-US' });
    await page.goto(bridge.signInUrl!);
    await page.waitForSelector('#app:not([hidden])');
    await page.locator('#order-list tbody tr').first().waitFor({ timeout: 15_000 });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.stop();
  });

  it('offers resync for the demo’s shops, and a resync runs to its end', async () => {
    await expect
      .poll(() => page.locator('#resync-platform option').allTextContents(), { timeout: 15_000 })
      .toEqual(expect.arrayContaining(['Shopify', 'WooCommerce']));
    expect(await page.isEnabled('#resync-form button')).toBe(true);
    expect(await page.textContent('#resync')).not.toContain('nothing to resync');
    // What a resync can read has its Store API on: the connections and the form agree.
    for (const label of ['Shopify', 'WooCommerce', 'BigCommerce']) {
      const connection = page.locator('#connections .card', {
        has: page.locator('h3', { hasText: new RegExp(`^${label}$`) }),
      });
      expect(
        await connection
          .locator('div', { hasText: /^Store API/ })
          .locator('dd')
          .textContent(),
      ).toBe('on');
    }
    await page.selectOption('#resync-platform', 'woocommerce');
    await page.click('#resync-form button');
    await expect.poll(() => page.textContent('#resync-progress'), { timeout: 15_000 }).toMatch(/^Done: fetched [1-9]/);
  });

  it('lists the demo’s shops as stores, each on its own trial account, and Move to shows that account', async () => {
    const stores = page.locator('#store-list tbody tr');
    await expect.poll(() => stores.count(), { timeout: 15_000 }).toBe(3);
    expect(await page.textContent('#store-list')).not.toContain('No store connected yet');
    for (const [index, shop] of SHOPS.entries()) {
      expect(await stores.filter({ hasText: shop }).textContent()).toContain('the demo’s, sending orders');
      const row = page.locator(`#shop-accounts tbody tr[data-shop="${shop}"]`);
      expect(await row.locator('td').nth(2).textContent()).toBe(TRIALS[index]);
      expect(
        await inPage(`document.querySelector('#shop-accounts tr[data-shop="${shop}"] select').selectedOptions[0].text`),
      ).toBe(TRIALS[index]);
    }
  });

  it('reads a budget as one short line with its bar for each account in use, and says once why it is below the service’s limit', async () => {
    // The demo's shops earn on their trial accounts: a line for each, with its bar; the default earns for none.
    for (const where of ['#connections .card:has(h3:text("Loyalty service"))', '#rate']) {
      const lines = page.locator(`${where} .budget-line`);
      await expect.poll(() => lines.allInnerTexts(), { timeout: 15_000 }).toHaveLength(3);
      const texts = await lines.allInnerTexts();
      for (const trial of TRIALS)
        expect(texts).toContainEqual(expect.stringMatching(new RegExp(`^${trial}:\\s+\\d+ of 489 calls this minute`)));
      expect(
        texts.some((text) => !/:\s+0 of/.test(text)),
        `${where}: the demo's calls counted`,
      ).toBe(true);
      expect(await page.locator(`${where} .budget-line meter`).count()).toBe(3);
      expect(await page.locator(where).textContent()).not.toContain(DEFAULT);
    }
    const account = page.locator('#account-list .card', { hasText: DEFAULT });
    expect(await account.textContent()).toMatch(/Calls\d+ of 489 calls this minute/);
    expect(await account.locator('meter').count()).toBe(1);
    const text = (await page.locator('#app').innerText()).split('kept spare').length - 1;
    expect(text).toBe(1);
  });

  it('writes counts with the reader’s separators', async () => {
    const club = page.locator('#account-list .card', { hasText: 'Big Points Club' });
    await expect.poll(() => club.textContent(), { timeout: 15_000 }).toContain('activity 1: 98,340 points');
    const german = await browser.newPage({ viewport: { width: 1280, height: 1000 }, locale: 'de-DE' });
    try {
      await german.goto(bridge.signInUrl!.replace(/#token=.*/, ''));
      await german.evaluate(
        `sessionStorage.setItem('loyalty-bridge-admin-token', ${JSON.stringify(/#token=(.+)$/.exec(bridge.signInUrl!)![1])})`,
      );
      await german.reload();
      const theirs = german.locator('#account-list .card', { hasText: 'Big Points Club' });
      await expect.poll(() => theirs.textContent(), { timeout: 15_000 }).toContain('activity 1: 98.340 points');
    } finally {
      await german.close();
    }
  });

  it('gives points by hand on the account of the shop chosen, a demo shop’s own trial account', async () => {
    const shop = await inPage(`document.querySelector('#give-shop').value`);
    const index = SHOPS.findIndex((each) => shop.endsWith(`:${each}`));
    expect(index).toBeGreaterThanOrEqual(0);
    expect(await inPage(`document.querySelector('#give-account').selectedOptions[0].text`)).toBe(TRIALS[index]);
    // Another shop chosen: its account follows.
    const other = (index + 1) % SHOPS.length;
    await page.selectOption('#give-shop', `${['shopify', 'woocommerce', 'bigcommerce'][other]}:${SHOPS[other]}`);
    expect(await inPage(`document.querySelector('#give-account').selectedOptions[0].text`)).toBe(TRIALS[other]);
    const form = page.locator('#give-form');
    await form.locator('[name="name"]').fill('Hedy Lamarr');
    await form.locator('[name="email"]').fill('hedy.by-hand@example.com');
    await form.locator('[name="mobile"]').fill('+442079460958');
    await form.locator('[name="points"]').fill('100');
    await form.locator('[name="reason"]').fill('a goodwill gesture');
    await form.locator('button[type="submit"]').click();
    await expect
      .poll(() => page.textContent('#give-result'), { timeout: 15_000 })
      .toMatch(new RegExp(`^Gave 100 points to hedy.by-hand@example.com: activity \\w+ of ${TRIALS[other]}\\.$`));
    // The shop chosen stays for the next; the customer's fields are empty.
    expect(await inPage(`document.querySelector('#give-account').selectedOptions[0].text`)).toBe(TRIALS[other]);
    expect(await form.locator('[name="email"]').inputValue()).toBe('');
  });

  it('shows an order whose earn the service refused in red, saying no points were given, not as earned', async () => {
    bridge.sandbox!.faults.configure({
      onlyPath: '/loyalty/v1/earn',
      forced: { status: 400, count: 1, message: 'Invalid Source' },
    });
    const player = bridge.demo!.players.find((each) => each.platform === 'shopify')!;
    await bridge.demo!.checkout(player, player.demo.orders[0]!);
    await bridge.engine.drain();
    bridge.sandbox!.faults.configure({});
    const held = page.locator('#order-list tbody tr', { has: page.locator('.state.tone-bad') }).first();
    await held.waitFor({ timeout: 15_000 });
    expect(await held.locator('.state').textContent()).toBe('No points given yet');
    expect(await held.textContent()).toContain('Held: the loyalty service refused giving its points');
    expect(await held.textContent()).not.toMatch(/earned, pending/i);
    expect(
      await inPage(`getComputedStyle(document.querySelector('#order-list .state.tone-bad')).backgroundColor`),
    ).toBe('rgb(198, 40, 40)');
    // The states chart counts it so too: a red bar of its own, not one more under the state it plans.
    const heldBar = page.locator('#chart-states rect[data-series="no points given yet"]');
    await expect.poll(() => heldBar.getAttribute('fill'), { timeout: 15_000 }).toBe('#c62828');
    expect(await page.locator('#chart-states svg').getAttribute('aria-label')).toMatch(/no points given yet 1\b/);
    await page.locator('#chart-states').screenshot({ path: `${shots}dashboard-demo-states-held.png` });
  });

  it('colours by meaning: earned green, no points grey, in the chart and the orders’ badges', async () => {
    const fill = (label: string) => page.locator(`#chart-states rect[data-series="${label}"]`).getAttribute('fill');
    await expect.poll(() => fill('earned and approved'), { timeout: 15_000 }).toBe('#2e7d32');
    expect(await fill('earns no points')).toBe('#9aa5b1');
    const badge = (text: string) =>
      inPage(
        `getComputedStyle([...document.querySelectorAll('#order-list .state')].find((node) => node.textContent === '${text}')).backgroundColor`,
      );
    expect(await badge('Earned and approved')).toBe('rgb(46, 125, 50)');
    expect(await badge('Earns no points')).toBe('rgb(230, 232, 235)');
    // The calls chart: done in green.
    expect(await page.locator('#chart-calls rect').first().getAttribute('fill')).toBe('#2e7d32');
  });

  for (const width of [1280, 390]) {
    it(`shows every table cell's text inside the window at ${width} px, each row a card on a phone`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.locator('#order-list tbody tr').first().waitFor();
      expect(await cellsOutOfSight(page)).toEqual([]);
      expect(await page.evaluate<number>('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(width);
      const display = await inPage(`getComputedStyle(document.querySelector('#order-list tbody tr')).display`);
      expect(display).toBe(width < 600 ? 'block' : 'table-row');
      await page.screenshot({ path: `${shots}dashboard-demo-${width}.png`, fullPage: true });
      // What issue 68's last walk-through changed, each on its own: the budgets, the orders' badges, by hand.
      for (const part of ['health', 'orders', 'by-hand'])
        await page.locator(`#${part}`).screenshot({ path: `${shots}dashboard-demo-${part}-${width}.png` });
    });
  }
});
