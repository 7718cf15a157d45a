// The merchant's switch in Set up, in Chromium: off at first, a refusal shown in words with its fix while the
// store has not granted what the storefront needs, then on once it has.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { artifactsDir, chromiumAvailable, launchChromium } from '../../helpers/browser.ts';
import { startTinyBridge } from './tiny-bridge.ts';

let world: Awaited<ReturnType<typeof startTinyBridge>>;
let browser: Browser;

beforeAll(async () => {
  world = await startTinyBridge();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await world?.stop();
});

describe.skipIf(!chromiumAvailable)("the storefront's switch in Set up", () => {
  for (const width of [1280, 390])
    it(`shows why it cannot be on yet, then turns on (${width} px)`, async () => {
      world.shop.granted.delete('customers');
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(world.signInUrl);
      await page.locator('#go-setup').click();
      const toggle = page.locator('#storefront-switch input');
      await toggle.waitFor();
      expect(await toggle.isChecked()).toBe(false);
      await toggle.click();
      const problem = page.locator('#storefront-problem');
      await problem.waitFor({ state: 'visible' });
      expect(await problem.textContent()).toContain('the app may not read your customers yet');
      expect(await toggle.isChecked()).toBe(false);
      await page.locator('#storefront').screenshot({ path: `${artifactsDir('storefront')}refused-${width}.png` });
      world.shop.granted.add('customers');
      await toggle.click();
      await problem.waitFor({ state: 'hidden' });
      expect(await toggle.isChecked()).toBe(true);
      await page.screenshot({ path: `${artifactsDir('storefront')}on-${width}.png`, fullPage: true });
      await toggle.click();
      await page.close();
    });

  it('opens Set up when pressed at once, while the views’ modules are still on their way', async () => {
    // The page's load does not wait for the views' modules (merchant.js imports them): a slow one must not leave the
    // first press of a button without its effect.
    const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
    await page.route('**/merchant/setup.js', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await route.continue();
    });
    await page.goto(world.signInUrl);
    await page.locator('#go-setup').click();
    await page.locator('#storefront-switch input').waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-view="setup"]').isVisible()).toBe(true);
    await page.close();
  });

  it('shows what is saved after a refusal, not the opposite of what was asked', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(world.signInUrl);
    await page.locator('#go-setup').click();
    const toggle = page.locator('#storefront-switch input');
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(false);
    // Turned on meanwhile from another tab, then the store takes back what it granted.
    const turned = await fetch(`${world.bridge.http.localUrl}/admin/api/storefront`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${world.session}`, 'content-type': 'application/json' },
      body: JSON.stringify({ on: true }),
    });
    expect(turned.status).toBe(200);
    world.shop.granted.delete('customers');
    await toggle.click();
    await page.locator('#storefront-problem').waitFor({ state: 'visible' });
    // The switch is on (the other tab's), and the page says so once it has read it again.
    await expect.poll(() => toggle.isChecked()).toBe(true);
    world.shop.granted.add('customers');
    await page.close();
  });
});
