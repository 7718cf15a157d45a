// The merchant's switch in Set up, in Chromium: off at first, a refusal shown in words with its fix while the
// store has not granted what the storefront needs, then on once it has.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { RunningBridge } from '../../../src/composition/main.ts';
import { artifactsDir, chromiumAvailable, launchChromium } from '../../helpers/browser.ts';
import { startTestBridge } from '../../helpers/bridge.ts';
import { signInPath, startFakeTinyShop, type FakeTinyShop } from './fake-tinyshop.ts';
import { tinyShop } from './module.ts';

const STORE = 'acme-bikes';
const SECRET = 'tinyshop-webhook-secret-0123456789';
const TOKEN = 'tinyshop-api-token';

let shop: FakeTinyShop;
let bridge: RunningBridge;
let browser: Browser;

beforeAll(async () => {
  shop = await startFakeTinyShop(TOKEN);
  bridge = await startTestBridge(
    { TINYSHOP_STORE: STORE, TINYSHOP_WEBHOOK_SECRET: SECRET, TINYSHOP_API_URL: shop.url, TINYSHOP_API_TOKEN: TOKEN },
    undefined,
    { modules: [tinyShop] },
  );
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await bridge?.stop();
  await shop?.stop();
});

describe.skipIf(!chromiumAvailable)("the storefront's switch in Set up", () => {
  for (const width of [1280, 390])
    it(`shows why it cannot be on yet, then turns on (${width} px)`, async () => {
      shop.granted.delete('customers');
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(`${bridge.http.localUrl}${signInPath(SECRET, STORE)}`);
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
      shop.granted.add('customers');
      await toggle.click();
      await problem.waitFor({ state: 'hidden' });
      expect(await toggle.isChecked()).toBe(true);
      await page.screenshot({ path: `${artifactsDir('storefront')}on-${width}.png`, fullPage: true });
      await toggle.click();
      await page.close();
    });
});
