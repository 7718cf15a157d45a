// The WordPress plugin in a real WordPress (issue 54): Debian's `wordpress` package (6.1) on PHP's built-in server
// with the local MariaDB, the whole bridge behind https beside it, and Chromium (test/helpers/real-wordpress-world.ts).
// The merchant pastes a connection code from their page into the plugin's settings page in wp-admin (the plugin's
// own PHP exchanges it with the bridge); a WordPress customer signs in with WordPress's own login, proves her
// account's e-mail with the link the plugin mails (caught by a must-use plugin's pre_wp_mail), and the page with
// [loyalty_points] shows the balance the bridge answers for the identity token the plugin's PHP signed, and so
// does the launcher; the admin menu entry "Open your loyalty program" opens the merchant's page through the door
// (the plugin's PHP signs the bridge's nonce).
//
// Only against a fake (fake-woocommerce.ts, behind the site's own address): WooCommerce itself, which is in neither
// Debian nor npm — its app authentication (the operator's connect and the merchant's sign-in to their page), its
// REST API and the order webhook that earns the points. So the plugin runs as it does without WooCommerce: its
// settings under Settings, no My Account tab (the PHPUnit tests cover that), and administrators given
// manage_woocommerce by hand as WooCommerce's installer gives it.
//
// Pictures: docs/screenshots' customer-woocommerce-points-{1280,390}.png, customer-woocommerce-confirm-email-{1280,390}.png
// and wordpress-plugin-settings-1280.png (scripts/screenshots.ts copies them there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactsDir } from '../helpers/browser.ts';
import { WP_ADMIN, WP_CUSTOMER } from '../helpers/real-wordpress.ts';
import {
  realWordPressRuns,
  SITE_TITLE,
  startRealWordPressWorld,
  type RealWordPressWorld,
} from '../helpers/real-wordpress-world.ts';
import { wooOrderJson } from '../helpers/woocommerce.ts';

const runs = realWordPressRuns('Real WordPress test');
const shots = artifactsDir('real-wordpress');
let world: RealWordPressWorld;
let merchant: Awaited<ReturnType<RealWordPressWorld['signedIn']>>;

beforeAll(async () => {
  if (!runs) return;
  world = await startRealWordPressWorld();
  merchant = await world.signedIn(WP_ADMIN);
}, 60_000);
afterAll(async () => {
  await world?.stop();
});

describe.skipIf(!runs)('the WordPress plugin in a real WordPress, with the bridge', () => {
  it('connects in wp-admin with the code from the merchant’s page, and the storefront turns on', async () => {
    const { wp, asPage } = world;
    const { page } = merchant;
    await world.connectPlugin(page);
    const wrap = page.locator('.wrap');
    expect(await wrap.textContent()).toContain(
      'Connected. Your customers see their points here once "Show customers their points in the store" is on in your loyalty program (Open your loyalty program, Set up).',
    );
    expect(await wrap.textContent()).toContain(`Connected to localhost as store ${new URL(wp.url).host}.`);
    await page.screenshot({ path: `${shots}wordpress-plugin-settings-1280.png` });

    const on = await asPage('/storefront', { method: 'PUT', body: JSON.stringify({ on: true }) });
    expect(on.status, await on.clone().text()).toBe(200);
  }, 30_000);

  it('shows a signed-in WordPress customer their balance from the bridge in the page and the launcher', async () => {
    const { wp, woo, bridge, bridgeUrl, browser, signedIn } = world;
    // An order of hers, by her account's e-mail, completed in WooCommerce (the fake) and delivered by its webhook.
    woo.orders.set(
      8301,
      JSON.parse(wooOrderJson({ id: 8301, status: 'completed', email: WP_CUSTOMER.email })) as Record<string, unknown>,
    );
    expect(await woo.deliver('order.created', 8301)).toEqual([200]);
    await bridge.engine.drain();

    // WooCommerce never checked her account's address: before it names her, she proves it with the plugin's link.
    const proving = await signedIn(WP_CUSTOMER, 1280);
    await proving.page.goto(wp.rewardsPage);
    const panel = proving.page.locator('[data-loyalty-points-panel]').first();
    await expect.poll(() => panel.textContent(), { timeout: 10_000 }).toContain('Confirm your e-mail address');
    expect(await panel.textContent()).not.toContain('Earned on order #8301');
    await panel.scrollIntoViewIfNeeded();
    await proving.page.screenshot({ path: `${shots}customer-woocommerce-confirm-email-1280.png` });
    // The same on a phone's width.
    await proving.page.setViewportSize({ width: 390, height: 900 });
    await panel.scrollIntoViewIfNeeded();
    await proving.page.screenshot({ path: `${shots}customer-woocommerce-confirm-email-390.png` });
    await proving.page.setViewportSize({ width: 1280, height: 900 });
    await panel.getByRole('button', { name: 'Send me the link' }).click();
    await expect
      .poll(() => panel.textContent(), { timeout: 10_000 })
      .toContain('We sent a link to a•••@example.com. Open it, then come back to this page.');
    const mail = wp.mails().at(-1)!;
    expect(mail.to).toBe(WP_CUSTOMER.email);
    const link = /https?:\/\/\S+loyalty_bridge_proof=\S+/.exec(mail.message)![0];
    // Opened from her mailbox, in another browser where she is not signed in: a page asks her to sign in to the
    // account that asked for it (a mail provider's link scanner, or anyone else the link reaches, proves nothing),
    // and signing in brings her back to the link, which proves the address.
    const mailbox = await browser.newContext();
    const opened = await mailbox.newPage();
    await opened.goto(link);
    expect(await opened.locator('body').textContent()).toContain('sign in to the account that asked for this link');
    await opened.getByRole('link', { name: 'Sign in to confirm' }).click();
    await opened.fill('#user_login', WP_CUSTOMER.login);
    await opened.fill('#user_pass', WP_CUSTOMER.password);
    await Promise.all([opened.waitForURL(/loyalty_bridge_proof=confirmed/), opened.click('#wp-submit')]);
    // Once only: the same link again proves nothing more.
    await opened.goto(link);
    expect(opened.url()).toContain('loyalty_bridge_proof=expired');
    await mailbox.close();
    await proving.context.close();

    for (const width of [1280, 390]) {
      const { context, page } = await signedIn(WP_CUSTOMER, width);
      const answered = page.waitForResponse(
        (answer) => answer.url().startsWith(`${bridgeUrl}/woocommerce/storefront/points`) && answer.status() === 200,
      );
      await page.goto(wp.rewardsPage);
      const shown = (await (await answered).json()) as {
        customer: string;
        balance: { available: number; pending: number };
      };
      expect(shown.customer).toBe('signed-in');
      const points = shown.balance.available + shown.balance.pending;
      expect(points).toBeGreaterThan(0);
      // The shortcode's panel (and the block's) in the page itself.
      const panels = page.locator('[data-loyalty-points-panel] .loyalty-panel__body');
      await expect.poll(() => panels.first().textContent(), { timeout: 10_000 }).toContain(String(points));
      expect(await panels.first().textContent()).toContain('Earned on order #8301');
      // The picture: the page's own panel, as a customer reads it (the launcher closed, not drawn over it).
      await panels.first().scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${shots}customer-woocommerce-points-${width}.png` });

      const button = page.getByRole('button', { name: 'Your points' });
      await button.click();
      const launcher = page.getByRole('dialog', { name: 'Your points' });
      await launcher.waitFor();
      await expect.poll(() => launcher.textContent(), { timeout: 10_000 }).toContain(String(points));
      await context.close();
    }
  }, 60_000);

  it('shows her balance on a page a cache kept with a stale REST nonce', async () => {
    const { wp, bridgeUrl, signedIn } = world;
    const { context, page } = await signedIn(WP_CUSTOMER, 1280);
    // A page cache's copy: the nonce it printed is not hers (a guest's, or one past its day). Changed as the page
    // is parsed, before the widget's deferred script runs.
    await page.addInitScript({
      content: `new MutationObserver(function () {
        var widget = document.getElementById('loyalty-bridge-widget-js');
        if (widget && widget.getAttribute('data-rest-nonce') !== '0123456789')
          widget.setAttribute('data-rest-nonce', '0123456789');
      }).observe(document, { childList: true, subtree: true });`,
    });
    const refused = page.waitForResponse((answer) => answer.url().includes('/loyalty-bridge/v1/identity'));
    const answered = page.waitForResponse(
      (answer) => answer.url().startsWith(`${bridgeUrl}/woocommerce/storefront/points`) && answer.status() === 200,
    );
    await page.goto(wp.rewardsPage);
    // WordPress refuses the stale nonce; the widget asks WordPress for a fresh one, and she is signed in.
    expect((await refused).status()).toBe(403);
    expect(((await (await answered).json()) as { customer: string }).customer).toBe('signed-in');
    const panels = page.locator('[data-loyalty-points-panel] .loyalty-panel__body');
    await expect.poll(() => panels.first().textContent(), { timeout: 10_000 }).toContain('Earned on order #8301');
    await context.close();
  }, 30_000);

  it('opens the merchant’s page from the wp-admin menu, through the door', async () => {
    const { wp, bridgeUrl } = world;
    const { page } = merchant;
    // Under Settings (no WooCommerce menu here), shown open on its pages.
    await page.goto(`${wp.url}/wp-admin/options-general.php`);
    await page.locator('#adminmenu').getByRole('link', { name: 'Open your loyalty program' }).click({ timeout: 5_000 });
    // Through the bridge's door, WordPress's admin-post.php (the plugin signs the nonce) and back, signed in.
    await page.waitForURL(`${bridgeUrl}/woocommerce/store`, { timeout: 10_000 });
    await expect
      .poll(() => page.locator('body').textContent(), { timeout: 10_000 })
      .toContain(`Signed in to ${SITE_TITLE}`);
  }, 30_000);

  it('leaves no PHP notice of the plugin’s in WordPress’s debug.log', () => {
    expect(world.wp.pluginNotices()).toEqual([]);
  });
});
