// The operator changes an account's points each activity gives on the dashboard, in Debian's Chromium: the
// default account's card lists the configuration's numbers; another account's card has an edit that refuses a
// bad list line by line and saves a good one, and an order of that account then reads its new number of points
// on the orders table. Screenshots in test-artifacts/account-points/.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { artifactsDir, CHROMIUM, chromiumAvailable, launchChromium, signInToDashboard } from '../helpers/browser.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';

const TOKEN = 'points-edit-admin-token-0123456789';
const EMAIL = 'points-edit@example.com';
/** One line per bad activity, in words; the configuration's name only as a detail. */
const REFUSED = [
  'Activity 1: points must be a whole number (LOYALTY_ACTIVITY_POINTS)',
  'Activity 7: points must be a whole number (LOYALTY_ACTIVITY_POINTS)',
];

if (!chromiumAvailable) console.warn(`account points browser test skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!chromiumAvailable)('the points each activity gives, changed on the dashboard', () => {
  let bridge: RunningBridge;
  let browser: Browser;
  let page: Page;
  /** The whole page, and the accounts' panel alone (where the edit is) to read it at its size. */
  const shot = async (name: string) => {
    await page.screenshot({ path: `${artifactsDir('account-points')}${name}.png`, fullPage: true });
    await page.locator('#accounts').screenshot({ path: `${artifactsDir('account-points')}${name}-accounts.png` });
  };

  beforeAll(async () => {
    // The sandbox gives 100 points for activity 1, and the configuration declares as much.
    bridge = await startTestBridge({
      SANDBOX_ACTIVITIES: '1=100,7=250',
      LOYALTY_ACTIVITY_POINTS: '1=100,7=250',
      ADMIN_TOKEN: TOKEN,
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      RECONCILE_INTERVAL_MINUTES: '0',
    });
    const made = await fetch(`${bridge.http.localUrl}/admin/api/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sandbox: true, name: 'Points Club' }),
    });
    const { account } = (await made.json()) as { account: { id: string } };
    await bridge.accounts.link({ platform: 'shopify', shop: SHOP }, account.id, 'test');
    const body = shopifyOrderJson({ id: '5570000000001', email: EMAIL });
    await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body }),
      body,
    });
    await bridge.engine.drain();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await signInToDashboard(page, bridge.http.localUrl, TOKEN);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.stop();
  });

  const pointsOfOrder = async () => {
    const row = page.locator('#order-list tbody tr', { hasText: EMAIL });
    await row.waitFor({ timeout: 15_000 });
    const column = await page.locator('#order-list thead th').allTextContents();
    return row.locator('td').nth(column.indexOf('Points'));
  };
  const club = () => page.locator('#account-list .card', { hasText: 'Points Club' });

  it('lists the default account’s numbers from the configuration', async () => {
    const defaults = page.locator('#account-list .card', { hasText: 'default' });
    await expect
      .poll(() => defaults.textContent(), { timeout: 15_000 })
      .toMatch(
        /Points each activity gives\s*activity 1: 100 points, activity 7: 250 points \(from the configuration, LOYALTY_ACTIVITY_POINTS\)/,
      );
    // The environment's account is changed there: no edit on its card.
    expect(await defaults.locator('form').count()).toBe(0);
  });

  it('refuses a bad list line by line, and keeps what was typed', async () => {
    await expect
      .poll(async () => (await pointsOfOrder()).textContent(), { timeout: 15_000 })
      .toBe('earned 100 points, pending');
    // One row an activity, in words: "Activity [1] gives [100] points".
    const rows = () => club().locator('.points-row');
    const values = async () => Promise.all((await rows().locator('input').all()).map((input) => input.inputValue()));
    expect(await values()).toEqual(['1', '100']);
    expect(await rows().first().innerText()).toMatch(/Activity\s+gives\s+points/);
    await rows().first().getByLabel('Points').fill('lots');
    await club().getByRole('button', { name: 'Add an activity' }).click();
    await rows().nth(1).getByLabel('Activity').fill('7');
    await rows().nth(1).getByLabel('Points').fill('x');
    await club().getByRole('button', { name: 'Save points' }).click();
    await expect.poll(() => club().locator('.points-edit .error li').allTextContents()).toEqual(REFUSED);
    // Once the dashboard's next refresh has drawn the card again, the refusal and the typing are still there.
    const drawn = await club().elementHandle();
    await page.locator('h2', { hasText: 'Loyalty accounts' }).click();
    await page.waitForFunction((card) => !card?.isConnected, drawn, { timeout: 15_000 });
    expect(await values()).toEqual(['1', 'lots', '7', 'x']);
    expect(await club().locator('.points-edit .error li').allTextContents()).toEqual(REFUSED);
    await club().scrollIntoViewIfNeeded();
    await shot('refused');
  });

  it('saves a good list, and the account’s order reads its new number of points', async () => {
    await club().locator('.points-row').first().getByLabel('Points').fill('40');
    await club().locator('.points-row').nth(1).getByRole('button', { name: 'Remove' }).click();
    await club().getByRole('button', { name: 'Save points' }).click();
    await expect
      .poll(() => page.textContent('#points-result'))
      .toBe('Saved the points each activity gives for Points Club: its orders show them now.');
    await expect.poll(() => club().textContent()).toMatch(/Points each activity gives\s*activity 1: 40 points(?!,)/);
    expect(await club().locator('.points-edit .error li').count()).toBe(0);
    await expect
      .poll(async () => (await pointsOfOrder()).textContent(), { timeout: 15_000 })
      .toBe('earned 40 points, pending');
    await shot('saved');
  });
});
