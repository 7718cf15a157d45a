// The merchant sets the rewards customers turn their points into, in Set up inside the Shopify admin (issue 52), in
// Debian's Chromium: two rewards added and read back in words, one turned off, one removed, the list as saved after
// a reload; a bad value refused beside its field; and, while the install lacks write_discounts, the admin's dialog
// for optional scopes (shopify.scopes.request), then the rewards saved. Each kind of reward (issue 70): a percentage
// and free shipping added and read in words, and a kind the store cannot make saying why as soon as it is picked
// (the bridge's own Shopify codes told so: platform-codes.ts). The pictures are docs/screenshots'
// merchant-rewards-*.png (scripts/screenshots.ts copies them there).
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactsDir, CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { ADMIN_ORIGIN } from '../helpers/shopify-admin-frame.ts';
import { platformCodes } from '../helpers/platform-codes.ts';
import { openShopifyAdmin } from '../helpers/shopify-admin-tab.ts';
import {
  APP_KEY,
  APP_SECRET,
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { shopifyHeaders } from '../helpers/shopify.ts';
import { DEFAULT_ACCOUNT } from '../../src/core/accounts.ts';

const SHOP = 'rewards-run.myshopify.com';
const ADMIN_PAGE = `${ADMIN_ORIGIN}/store/rewards-run/apps/${APP_KEY}`;

if (!chromiumAvailable) console.warn(`merchant rewards browser test skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!chromiumAvailable)('a merchant’s rewards in Set up, inside the Shopify admin', () => {
  let fake: FakeShopify;
  let running: ShopifyAppBridge;
  let browser: Browser;
  let page: Page;
  let app: FrameLocator;
  const shots = artifactsDir('merchant-rewards');
  /** What the merchant was asked to approve in the admin's dialog, each time. */
  const asked: string[][] = [];

  /** Shopify's record of the merchant granting scopes (after shopify.scopes.request): the grant, then its webhook. */
  async function grantScopes(scopes: string) {
    const previous = fake.scopes.split(',');
    fake.scopes = scopes;
    const body = JSON.stringify({ id: 1, previous, current: scopes.split(','), updated_at: new Date().toISOString() });
    const response = await fetch(`${running.url}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'app/scopes_update', body, shop: SHOP, secret: APP_SECRET }),
      body,
    });
    expect(response.status).toBe(200);
  }

  beforeAll(async () => {
    fake = await startFakeShopifyForApp();
    fake.install(SHOP);
    running = await startShopifyAppBridge(fake, { SHOPIFY_SHOPS: '', SHOPIFY_OPEN_INSTALLS: 'true' });
    browser = await launchChromium();
    ({ page, app } = await openShopifyAdmin(browser, { bridgeUrl: running.url, shop: SHOP }));
    // The merchant approves what the admin's dialog asks.
    await page.exposeFunction('approveScopes', async (scopes: string[]) => {
      asked.push(scopes);
      await grantScopes([...new Set([...fake.scopes.split(','), ...scopes])].join(','));
      return true;
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await stopFakeShopifyForApp(fake);
  });

  const toasts = () => page.locator('#toasts li').allTextContents();
  const rewardLines = () => app.locator('#reward-list .reward-words').allTextContents();
  const field = (name: string) => app.locator(`#reward-form [name="${name}"]`);

  async function openSetup() {
    await page.goto(ADMIN_PAGE);
    await page.locator('#app-nav button', { hasText: 'Set up' }).click();
    await app.locator('#page[data-loaded="setup"]').waitFor({ timeout: 15_000 });
    await app.locator('#rewards:not([hidden])').waitFor();
  }

  type Kind = 'amount_off' | 'percent_off' | 'free_shipping';
  const pickKind = (kind: Kind) => field('kind').locator('select').selectOption(kind);
  const kindBox = (kind: Kind) => app.locator(`#reward-form [data-kind="${kind}"]`);

  /** Fills the add form as the merchant types, from the keyboard, and presses Enter on its button. */
  async function addReward(reward: {
    points: string;
    /** An amount off unless told. */
    kind?: Kind;
    amountOff?: string;
    percent?: string;
    minimumOrder?: string;
    /** Left as the form offers it (30) when absent. */
    days?: string;
    combines?: boolean;
  }) {
    await field('points').locator('input').fill(reward.points);
    await pickKind(reward.kind ?? 'amount_off');
    if (reward.amountOff !== undefined) await field('amountOff').locator('input').fill(reward.amountOff);
    if (reward.percent !== undefined) await field('percent').locator('input').fill(reward.percent);
    await field('minimumOrder')
      .locator('input')
      .fill(reward.minimumOrder ?? '');
    if (reward.days !== undefined) await field('expiresInDays').locator('input').fill(reward.days);
    const combines = field('combines').locator('input');
    if ((await combines.isChecked()) !== Boolean(reward.combines)) {
      await combines.focus();
      await page.keyboard.press('Space');
    }
    await app.locator('#reward-form s-button[type="submit"]').locator('button').focus();
    await page.keyboard.press('Enter');
  }

  it('asks the admin for write_discounts the first time, then saves: two rewards in words, one off, one removed', async () => {
    await openSetup();
    expect(await app.locator('#no-rewards').isVisible()).toBe(true);
    // Every field of the add form is labelled in words.
    const labels = await app
      .locator('#reward-form [name] [part~="label"]')
      .evaluateAll((found) => found.map((label) => label.textContent?.trim() ?? ''));
    expect(labels).toEqual([
      'Points it costs',
      'What it gives',
      'Amount off the order',
      'Percentage off the order',
      'Smallest order it applies to (optional)',
      'Days the code can be used',
      'Combines with product and shipping discounts',
    ]);

    // The days left as the form offers them: 30, a value, not an example to be typed again.
    await addReward({ points: '500', amountOff: '5', minimumOrder: '50', combines: true });
    // The install lacked write_discounts: the admin asked the merchant once, and the reward was saved after.
    await expect.poll(toasts, { timeout: 15_000 }).toContain('Reward added');
    expect(asked).toEqual([['write_discounts']]);
    expect(await app.locator('#rewards-problem').isHidden()).toBe(true);
    await addReward({ points: '1000', amountOff: '12.50', days: '7' });
    await expect
      .poll(rewardLines, { timeout: 15_000 })
      .toEqual([
        '500 points for 5.00 off, on orders of 50.00 or more · codes last 30 days · combines with product and shipping discounts',
        '1,000 points for 12.50 off · codes last 7 days · combines with no other discount',
      ]);
    // The form is empty again for the next one.
    expect(await field('points').locator('input').inputValue()).toBe('');
    expect(asked).toHaveLength(1);

    // The first one turned off, the second removed.
    const first = app.locator('#reward-list .reward').first();
    await first.locator('s-button', { hasText: 'Turn off' }).click();
    await expect.poll(() => first.locator('s-badge').textContent()).toBe('Off');
    // Each button names its reward to a screen reader.
    await app.getByRole('button', { name: 'Remove: 1,000 points for 12.50 off', exact: false }).click();
    await expect.poll(() => app.locator('#reward-list .reward').count()).toBe(1);

    // What is saved, after a reload: the one reward, off, with its id kept since it was added.
    const saved = (await asShop(running, SHOP).get('/storefront/rewards')).body as {
      rewards: Array<Record<string, unknown>>;
    };
    expect(saved.rewards).toEqual([
      {
        id: expect.any(String),
        points: 500,
        // Typed as 5 and 50: kept with two decimals, as the store shows amounts.
        benefit: { kind: 'amount_off', amount: '5.00' },
        minimumOrder: '50.00',
        expiresInDays: 30,
        combines: true,
        on: false,
      },
    ]);
    await openSetup();
    await expect
      .poll(rewardLines, { timeout: 15_000 })
      .toEqual([
        '500 points for 5.00 off, on orders of 50.00 or more · codes last 30 days · combines with product and shipping discounts',
      ]);
    const kept = app.locator(`#reward-list .reward[data-reward="${String(saved.rewards[0]!.id)}"]`);
    expect(await kept.locator('s-badge').textContent()).toBe('Off');
    expect(await kept.locator('s-button', { hasText: 'Turn on' }).count()).toBe(1);
  }, 90_000);

  it('says how to get write_app_proxy when the install lacks it, with no dialog the admin cannot show', async () => {
    // A shop that earns (the storefront answers no shop without an account), on an install made before the app asked
    // for the app proxy's scope: a required one, which no dialog grants.
    const shop = { platform: 'shopify', shop: SHOP };
    await running.bridge.accounts.link(shop, DEFAULT_ACCOUNT, 'test');
    await grantScopes(
      fake.scopes
        .split(',')
        .filter((scope) => scope !== 'write_app_proxy')
        .join(','),
    );
    await openSetup();
    await app.locator('#storefront:not([hidden])').waitFor();
    const toggle = app.locator('#storefront-switch input');
    const askedBefore = asked.length;
    await toggle.click();
    await expect
      .poll(() => app.locator('#storefront-problem').textContent(), { timeout: 15_000 })
      .toMatch(/app proxy.*write_app_proxy.*releases the app’s version/);
    expect(asked).toHaveLength(askedBefore);
    // The page reads what is saved after a refusal, then sets the switch from it.
    await expect.poll(() => toggle.isChecked()).toBe(false);
    // Released and approved: the scope arrives with its webhook, and the switch turns on.
    await grantScopes(`${fake.scopes},write_app_proxy`);
    await toggle.click();
    await expect.poll(toasts, { timeout: 15_000 }).toContain('Customers now see their points in your store');
    // As the other views of this file found it.
    await toggle.click();
    await expect.poll(toasts, { timeout: 15_000 }).toContain('Customers no longer see their points');
    await running.bridge.accounts.link(shop, undefined, 'test');
  });

  it('shows a refused value beside its field, with what it must be, and saves nothing', async () => {
    await openSetup();
    const before = await rewardLines();
    await addReward({ points: '0', amountOff: '5.005', days: '30' });
    await expect
      .poll(() => field('points').getAttribute('error'), { timeout: 15_000 })
      .toBe('must be at least 1 point');
    expect(await field('amountOff').getAttribute('error')).toBe('must be an amount like 5.00 (the amount off)');
    // Shown to the merchant under the field it is about.
    expect(await field('points').locator('[part~="error"]').textContent()).toBe('must be at least 1 point');
    expect(await field('points').locator('[part~="error"]').isVisible()).toBe(true);
    expect(await field('expiresInDays').getAttribute('error')).toBeNull();
    expect(await rewardLines()).toEqual(before);
    expect((await asShop(running, SHOP).get('/storefront/rewards')).body.rewards).toHaveLength(before.length);

    // Corrected, it goes in, and the errors go.
    await addReward({ points: '2500', amountOff: '30', days: '60', combines: true });
    await expect.poll(rewardLines, { timeout: 15_000 }).toHaveLength(before.length + 1);
    expect(await field('points').getAttribute('error')).toBeNull();
    expect((await rewardLines()).at(-1)).toBe(
      '2,500 points for 30.00 off · codes last 60 days · combines with product and shipping discounts',
    );
  }, 60_000);

  it('adds a percentage off and free shipping, each with its own box, and reads them back in words', async () => {
    await openSetup();
    const before = await rewardLines();
    // Each kind shows its own box: the amount's, the percentage's, none for free shipping.
    await pickKind('percent_off');
    expect([await kindBox('amount_off').isVisible(), await kindBox('percent_off').isVisible()]).toEqual([false, true]);
    await addReward({ points: '800', kind: 'percent_off', percent: '150', minimumOrder: '50' });
    await expect
      .poll(() => field('percent').getAttribute('error'), { timeout: 15_000 })
      .toBe('must be a whole number from 1 to 100');
    await addReward({ points: '800', kind: 'percent_off', percent: '10', minimumOrder: '50' });
    await expect.poll(rewardLines, { timeout: 15_000 }).toHaveLength(before.length + 1);
    expect(await field('percent').getAttribute('error')).toBeNull();
    await pickKind('free_shipping');
    expect([await kindBox('amount_off').isVisible(), await kindBox('percent_off').isVisible()]).toEqual([false, false]);
    await addReward({ points: '500', kind: 'free_shipping', days: '14' });
    await expect.poll(rewardLines, { timeout: 15_000 }).toHaveLength(before.length + 2);
    expect((await rewardLines()).slice(-2)).toEqual([
      '800 points for 10% off, on orders of 50.00 or more · codes last 30 days · combines with no other discount',
      '500 points for free shipping · codes last 14 days · combines with no other discount',
    ]);
    const saved = (await asShop(running, SHOP).get('/storefront/rewards')).body.rewards as Array<{ benefit: unknown }>;
    expect(saved.slice(-2).map((each) => each.benefit)).toEqual([
      { kind: 'percent_off', percent: 10 },
      { kind: 'free_shipping' },
    ]);
  }, 90_000);

  it('says at once why the store cannot make a kind, offers no Add for it, and shows the bridge’s refusal beside the choice', async () => {
    const codes = platformCodes(running.bridge, 'shopify');
    const why = 'your store’s discount codes cannot give free shipping';
    const note = app.locator('#reward-kind-note');
    const add = app.locator('#reward-form s-button[type="submit"]');
    try {
      const said = 'Your store’s discount codes cannot give free shipping. Pick another kind of reward.';
      // The page was opened before the store said so: it offers Add; the bridge refuses, and the page, reading the
      // rewards again, says why beside the choice, with what to do, and offers Add no more.
      await openSetup();
      codes.notMade = { free_shipping: why };
      const before = await rewardLines();
      await addReward({ points: '300', kind: 'free_shipping' });
      await expect.poll(() => note.textContent(), { timeout: 15_000 }).toBe(said);
      expect([await note.isVisible(), await add.isVisible()]).toEqual([true, false]);
      // Said once: the note, not the same words again as the choice's error.
      expect(await field('kind').getAttribute('error')).toBeNull();
      expect(await rewardLines()).toEqual(before);

      // Opened again, the page knows: picking free shipping says why at once, and offers no Add.
      await openSetup();
      expect(await note.isVisible()).toBe(false);
      await pickKind('free_shipping');
      await expect.poll(() => note.isVisible()).toBe(true);
      expect(await note.textContent()).toBe(said);
      expect(await add.isVisible()).toBe(false);
      await page.setViewportSize({ width: 390, height: 1100 });
      await app.locator('#reward-form').screenshot({ path: `${shots}rewards-kind-not-made-390.png` });
      await page.setViewportSize({ width: 1280, height: 1100 });
      // Another kind: the note goes, and Add is back.
      await pickKind('percent_off');
      await expect.poll(() => note.isVisible()).toBe(false);
      expect(await add.isVisible()).toBe(true);
    } finally {
      codes.notMade = {};
    }
  }, 90_000);

  it('says what to set in the store first for a kind that needs it, and still offers Add', async () => {
    const codes = platformCodes(running.bridge, 'shopify');
    // As WooCommerce's codes say of free shipping (WOO_FREE_SHIPPING_NOTE): the store takes the code, set or not.
    const first = 'Free shipping codes work once your store offers free shipping to a code.';
    const banner = app.locator('#reward-kind-first');
    try {
      codes.setUpFirst = { free_shipping: first };
      await openSetup();
      await pickKind('free_shipping');
      await expect.poll(() => banner.textContent()).toBe(first);
      expect(await banner.isVisible()).toBe(true);
      expect(await app.locator('#reward-form s-button[type="submit"]').isVisible()).toBe(true);
      await pickKind('amount_off');
      await expect.poll(() => banner.isVisible()).toBe(false);
    } finally {
      codes.setUpFirst = {};
    }
  }, 60_000);

  it('is readable at a laptop’s width and a phone’s, nothing wider than the screen (docs/screenshots)', async () => {
    await openSetup();
    // The admin's frame as tall as the section, its add form under four rewards, on a phone too: a picture of what
    // lies past the frame's bottom would be cut.
    await page.locator('#app').evaluate((frame) => (frame.style.height = '2000px'));
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 1100 });
      const frame = page.frames().find((each) => each !== page.mainFrame())!;
      const overflow = (await frame.evaluate(
        '({ scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth })',
      )) as { scroll: number; width: number };
      expect(overflow.scroll, `Set up at ${width} px scrolls sideways`).toBeLessThanOrEqual(overflow.width);
      await app.locator('#rewards').scrollIntoViewIfNeeded();
      await app.locator('#rewards').screenshot({ path: `${shots}rewards-${width}.png` });
    }
    await page.setViewportSize({ width: 1280, height: 1100 });
    await page.locator('#app').evaluate((frame) => (frame.style.height = '900px'));
  }, 60_000);
});
