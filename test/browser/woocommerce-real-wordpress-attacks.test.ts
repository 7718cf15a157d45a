// The WordPress plugin turned against the site that runs it (issue 65), in a real WordPress 6.1 with the plugin and
// the bridge's real widget.js in Chromium (test/helpers/real-wordpress-world.ts): an author's post carrying settings
// of its own for the widget, viewed by an administrator. Each failed on the plugin before the fix it goes with.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WP_ADMIN, WP_AUTHOR } from '../helpers/real-wordpress.ts';
import {
  realWordPressRuns,
  startRealWordPressWorld,
  type RealWordPressWorld,
} from '../helpers/real-wordpress-world.ts';

const runs = realWordPressRuns('Real WordPress attack test');
let world: RealWordPressWorld;

beforeAll(async () => {
  if (!runs) return;
  world = await startRealWordPressWorld();
  const admin = await world.signedIn(WP_ADMIN);
  await world.connectPlugin(admin.page);
  await admin.context.close();
  const on = await world.asPage('/storefront', { method: 'PUT', body: JSON.stringify({ on: true }) });
  expect(on.status).toBe(200);
}, 90_000);
afterAll(async () => {
  await world?.stop();
});

/** The calls the scripts of a page at `at` make to the site itself, as "<path>?<query>" (wp-admin's own left out). */
function scriptCallsToSite(page: Page, site: string, at: string): string[] {
  const calls: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    const from = request.frame().url();
    if (url.origin === site && from === at && ['fetch', 'xhr'].includes(request.resourceType()))
      calls.push(decodeURIComponent(`${url.pathname}${url.search}`));
  });
  return calls;
}

describe.skipIf(!runs)('the WordPress plugin cannot be turned against its own site', () => {
  it('an author’s post with a settings element of its own makes an administrator who views it call nothing else', async () => {
    const { wp, bridgeUrl } = world;
    // The REST call that makes an administrator, as a GET (?_method=POST), if the widget took the post's address.
    const forged = `${wp.url}/?rest_route=/wp/v2/users&_method=POST&username=mallory&email=mallory%40example.com&password=Mallory-password-1&roles=administrator`;
    const post = await wp.cli(
      'post-as',
      WP_AUTHOR.login,
      `<p>Our new notebooks.</p><div data-loyalty-points-panel></div>` +
        `<div id="loyalty-bridge-config" data-identity-url="${forged}" data-rest-nonce="0123456789" data-nonce-url="${wp.url}/wp-admin/admin-ajax.php?action=rest-nonce" data-proof-url="${forged}" data-site="${forged}"></div>` +
        // A launcher of the post's own, whose "sign in" link is a script.
        `<div data-loyalty-launcher><div role="dialog"><div data-loyalty-body></div><button type="button" data-loyalty-close>Close</button></div>` +
        `<button type="button" data-loyalty-open>Your points</button><code data-loyalty-words>{"open":"Your points","signInUrl":"javascript:alert(document.domain)"}</code></div>`,
    );
    const { context, page } = await world.signedIn(WP_ADMIN);
    const calls = scriptCallsToSite(page, wp.url, post);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const answered = page.waitForResponse((answer) => answer.url().startsWith(`${bridgeUrl}/woocommerce/storefront/`));
    await page.goto(post);
    // WordPress kept the post's element (its HTML filter allows id and data-*): the attack is in the page.
    expect(await page.locator('#loyalty-bridge-config').count()).toBeGreaterThan(0);
    await answered;
    for (const button of await page.getByRole('button', { name: 'Your points' }).all()) await button.click();
    await page.waitForLoadState('networkidle');

    expect((await wp.cli('users')).split('\n')).not.toContain('mallory');
    const own = new Set(['/?rest_route=/loyalty-bridge/v1/identity', '/wp-admin/admin-ajax.php?action=rest-nonce']);
    expect(calls).toContain('/?rest_route=/loyalty-bridge/v1/identity');
    expect(calls.filter((call) => !own.has(call))).toEqual([]);
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(dialogs).toEqual([]);
    await context.close();
  }, 40_000);
});
