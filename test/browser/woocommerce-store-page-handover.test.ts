// Login CSRF on a WooCommerce store's page (issue 46, item 5), in Debian's
// Chromium. The attacker signs in to their own store's page (an approval in
// their WordPress), takes every address of the bridge's their tab went
// through (and the session itself, put in an address by hand), and hands it
// to a victim, who opens it in a browser of their own and tries to set up:
// the victim's page must not act as the attacker's store. It offers the
// victim a sign-in of their own, and nothing it asks of the bridge is
// answered. Each failed when written: the session came to /woocommerce/store
// in the address's fragment, and the return of a link the operator made for
// a merchant signed in whichever browser opened it first.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import { opensslAvailable } from '../helpers/https-front.ts';
import { apiAnswers, pageText, trySettingUp, watch, type Taken } from '../helpers/page-handover.ts';
import { startWooPageWorld, type WooPageWorld } from '../helpers/woocommerce-store-page.ts';

if (!chromiumAvailable) console.warn(`WooCommerce page hand-over browser test skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!chromiumAvailable || !opensslAvailable)('a WooCommerce store’s page handed to another browser', () => {
  let world: WooPageWorld;
  let browser: Browser;
  let taken: Taken;
  const attackerStore = () => world.stores[0]!;

  /** WordPress's login and WooCommerce's consent screen, as the attacker, the administrator of their own store. */
  async function approveInWordPress(page: Page): Promise<void> {
    await page.waitForSelector('#loginform');
    await page.fill('#user_login', 'admin');
    await page.fill('#user_pass', 'wordpress');
    await page.click('#wp-submit');
    await page.click('#approve');
  }

  beforeAll(async () => {
    world = await startWooPageWorld(1);
    browser = await launchChromium(['--ignore-certificate-errors']);
    const page = await (await browser.newContext()).newPage();
    taken = watch(page);
    await page.goto(`${world.front.url}/woocommerce/open?store=${encodeURIComponent(attackerStore().url)}`);
    await approveInWordPress(page);
    await page
      .locator('#signed-in', { hasText: `Signed in to ${attackerStore().siteName}` })
      .waitFor({ timeout: 15_000 });
    taken.addresses.push(page.url());
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await world?.stop();
  });

  /** The victim opens it in a browser of their own, tries to set up, and is offered their own sign-in, through WordPress. */
  async function victimOpens(address: string): Promise<void> {
    const context = await browser.newContext();
    const answers = apiAnswers(context);
    const page = await context.newPage();
    await page.goto(address);
    await expect
      .poll(() => page.locator('a[href^="/woocommerce/open"]').count(), { timeout: 15_000 })
      .toBeGreaterThan(0);
    await trySettingUp(page);
    expect(await pageText(page)).not.toContain(`Signed in to ${attackerStore().siteName}`);
    expect(answers.filter((status) => status < 300)).toEqual([]);
    await context.close();
  }

  it('opens nothing of the attacker’s store at any of the bridge’s addresses the attacker’s sign-in went through', async () => {
    expect(taken.session).toMatch(/^lbp1\.woocommerce\./);
    const onBridge = [...new Set(taken.addresses)].filter((address) => address.startsWith(world.front.url));
    expect(onBridge.length).toBeGreaterThan(1);
    for (const address of onBridge) await victimOpens(address);
  }, 60_000);

  it('takes no session from the page’s address, though the attacker put theirs there', async () => {
    await victimOpens(`${world.front.url}/woocommerce/store#session=${taken.session}`);
  }, 30_000);

  it('signs nobody in at the return of a link the operator made for the merchant, stopped short and handed over', async () => {
    // The operator makes the connect link for the attacker's store; the attacker approves in their own WordPress
    // and keeps the way back, unopened, for the victim.
    const back = await world.connectByOperator(attackerStore(), 'store-page');
    expect(back.pathname).toBe('/woocommerce/return');
    await victimOpens(back.href);
    // The store is connected all the same: the operator's connect is done.
    expect(await world.connection(attackerStore())).toMatchObject({ keyPermissions: 'read_write' });
  }, 60_000);
});
