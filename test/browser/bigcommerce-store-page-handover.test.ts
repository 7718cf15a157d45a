// Login CSRF on a BigCommerce store's page (issue 46, item 5), in Debian's
// Chromium. The attacker opens the app in their own store's control panel,
// takes the Load URL its frame was given, and hands it to a victim, who
// opens it in a browser of their own (at the top level, or framed by a page
// at a *.mybigcommerce.com address the attacker controls) and tries to set
// up: the victim's page must not act as the attacker's store. It says to
// open the app from their control panel, and nothing it asks of the bridge
// is answered. Each failed when written: the Load URL opened the store's
// page again, with a session, anywhere, for 15 minutes after its first use.
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { BRIDGE_ORIGIN, controlPanelContext, startOpenBigCommerceApp } from '../helpers/bigcommerce-control-panel.ts';
import { CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import type { FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { apiAnswers, pageText, trySettingUp } from '../helpers/page-handover.ts';
import { AUDIT_KIND } from '../../src/accounts/account-records.ts';

if (!chromiumAvailable) console.warn(`BigCommerce page hand-over browser test skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!chromiumAvailable)('a BigCommerce store’s Load URL handed to another browser', () => {
  const ATTACKER = 'attacker1';
  /** Its name, as the fake BigCommerce tells it to the app (which was granted Information & settings). */
  const ATTACKER_NAME = `The ${ATTACKER} Shop`;
  const PANEL = `https://store-${ATTACKER}.mybigcommerce.com/manage/app/42`;
  /** A page at a *.mybigcommerce.com address the attacker controls (their storefront), which may frame the app. */
  const STOREFRONT = `https://${ATTACKER}-shop.mybigcommerce.com/`;
  let bc: FakeBigCommerce;
  let bridge: RunningBridge;
  let browser: Browser;
  let loadUrl: string;
  let attackerPage: Page;

  beforeAll(async () => {
    ({ bc, bridge } = await startOpenBigCommerceApp('bc-handover-client-id', 'bc-handover-client-secret-for-tests'));
    bc.addStore(ATTACKER, `${ATTACKER}-token`);
    expect((await bc.install(ATTACKER)).status).toBe(200);
    browser = await launchChromium();
    // The attacker opens the app in their own store's control panel, which frames the Load URL.
    loadUrl = `${BRIDGE_ORIGIN}/bigcommerce/load?signed_payload_jwt=${bc.signedPayload(ATTACKER, { user: { id: 7, email: 'owner@attacker.example' } })}`;
    attackerPage = await (await controlPanelContext(browser, bridge, { [PANEL]: () => loadUrl })).newPage();
    await attackerPage.goto(PANEL);
    await attackerPage
      .frameLocator('#app')
      .locator('#signed-in', { hasText: `Signed in to ${ATTACKER_NAME}` })
      .waitFor({ timeout: 15_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.stop();
    await bc?.close();
  });

  /** What the victim's page showed, and what the bridge answered it. */
  async function victimSees(page: Page | Frame, answers: number[]): Promise<void> {
    await expect.poll(() => pageText(page), { timeout: 15_000 }).toMatch(/from your BigCommerce control panel/);
    await trySettingUp(page);
    expect(await pageText(page)).not.toContain(`Signed in to ${ATTACKER_NAME}`);
    expect(answers.filter((status) => status < 300)).toEqual([]);
    expect(await bridge.engine.store.listRecords(AUDIT_KIND)).toEqual([]);
  }

  it('opens no store’s page when the Load URL is opened outside a frame', async () => {
    const context = await controlPanelContext(browser, bridge, {});
    const answers = apiAnswers(context);
    const page = await context.newPage();
    await page.goto(loadUrl);
    await victimSees(page, answers);
    await context.close();
  }, 30_000);

  it('opens no session in another browser’s frame (a used Load URL), while the attacker’s own frame reloads signed in', async () => {
    const context = await controlPanelContext(browser, bridge, { [STOREFRONT]: () => loadUrl });
    const answers = apiAnswers(context);
    const page = await context.newPage();
    await page.goto(STOREFRONT);
    const framed = () => page.frame({ url: (address) => address.pathname === '/bigcommerce/load' });
    await expect.poll(() => Boolean(framed())).toBe(true);
    await victimSees(framed()!, answers);
    await context.close();
    // The attacker's own frame, loaded again as a merchant reloads it, signs in again: the same browser.
    const own = attackerPage.frame({ url: (address) => address.pathname === '/bigcommerce/load' })!;
    await own.goto(own.url());
    const reloaded = attackerPage.frameLocator('#app');
    await expect
      .poll(() => reloaded.locator('#signed-in').textContent(), { timeout: 15_000 })
      .toBe(`Signed in to ${ATTACKER_NAME}`);
    expect(await reloaded.locator('#notice').isHidden()).toBe(true);
  }, 30_000);
});
