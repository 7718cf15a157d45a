// Login CSRF on a Shopify shop's page outside the admin (SHOPIFY_EMBEDDED=
// false; issue 46, item 5), in Debian's Chromium. The attacker opens the app
// from their own shop's admin, takes every address their tab went through
// (and the session itself, put in an address by hand), and hands it to a
// victim, who opens it in a browser of their own and tries to set up: the
// victim's page must not act as the attacker's shop. It says to open the app
// from their Shopify admin, and nothing it asks of the bridge is answered.
// Each failed when written: the session came to /shopify/store in the
// address's fragment, and the dashboard took a shop's session from its own.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { apiAnswers, pageText, trySettingUp, watch, type Taken } from '../helpers/page-handover.ts';
import {
  APP_SECRET,
  CHROME_UA,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { appUrlQuery } from '../helpers/shopify-app-links.ts';
import { SHOPIFY_APP_URL_PATH } from '../../adapters/shopify/paths.ts';
import { AUDIT_KIND } from '../../src/accounts/account-records.ts';

if (!chromiumAvailable) console.warn(`Shopify page hand-over browser test skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!chromiumAvailable)('Shopify outside the admin: a sign-in handed to another browser', () => {
  const ATTACKER = 'attacker-store.myshopify.com';
  let fake: FakeShopify;
  let running: ShopifyAppBridge;
  let browser: Browser;
  let taken: Taken;

  beforeAll(async () => {
    fake = await startFakeShopifyForApp();
    running = await startShopifyAppBridge(fake, { SHOPIFY_SHOP: ATTACKER, SHOPIFY_EMBEDDED: 'false' });
    browser = await launchChromium();
    // The attacker opens the app from their own shop's admin: Shopify's signed link.
    const page = await (await browser.newContext({ userAgent: CHROME_UA })).newPage();
    taken = watch(page);
    const link = `${running.url}${SHOPIFY_APP_URL_PATH}?${appUrlQuery({ shop: ATTACKER, secret: APP_SECRET })}`;
    await page.goto(link);
    await page.locator('#signed-in', { hasText: `Signed in to ${ATTACKER}` }).waitFor({ timeout: 15_000 });
    taken.addresses.unshift(link);
    taken.addresses.push(page.url());
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await stopFakeShopifyForApp(fake);
  });

  /** The victim opens it in a browser of their own, tries to set up, and is told to open the app from their admin. */
  async function victimOpens(address: string): Promise<void> {
    const context = await browser.newContext({ userAgent: CHROME_UA });
    const answers = apiAnswers(context);
    const page = await context.newPage();
    await page.goto(address);
    await expect.poll(() => pageText(page), { timeout: 15_000 }).toMatch(/from your Shopify admin/);
    await trySettingUp(page);
    expect(await pageText(page)).not.toContain(ATTACKER);
    expect(answers.filter((status) => status < 300)).toEqual([]);
    await context.close();
  }

  it('opens nothing of the attacker’s shop at any address the attacker’s sign-in went through', async () => {
    expect(taken.session).toMatch(/^lbp1\.shopify\./);
    for (const address of new Set(taken.addresses)) await victimOpens(address);
    expect(await running.bridge.engine.store.listRecords(AUDIT_KIND)).toEqual([]);
  }, 60_000);

  it('takes no session from the page’s address, though the attacker put theirs there', async () => {
    await victimOpens(`${running.url}/shopify/store#session=${taken.session}`);
  }, 30_000);

  it('takes no shop’s session from the dashboard’s address either: it asks for the admin token', async () => {
    const context = await browser.newContext({ userAgent: CHROME_UA });
    const answers = apiAnswers(context);
    const page = await context.newPage();
    await page.goto(`${running.url}/admin/#shop-token=${taken.session}`);
    await page.waitForLoadState('networkidle');
    expect(await page.locator('#sign-in-form').isVisible()).toBe(true);
    expect(await pageText(page)).not.toContain(ATTACKER);
    expect(answers.filter((status) => status < 300)).toEqual([]);
    await context.close();
  }, 30_000);
});
