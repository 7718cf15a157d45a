// The WordPress plugin turned against the site that runs it (issue 65), in a real WordPress 6.1 with the plugin and
// the bridge's real widget.js in Chromium (test/helpers/real-wordpress-world.ts): an author's post carrying settings
// of its own for the widget, viewed by an administrator, or an element named as loyalty.js's flag; a shop manager
// reaching Connect and Disconnect; a bridge address with markup in its path, in wp-admin; sixteen presses of "Send me
// the link" at once; and the plugin deleted while the bridge still holds its key. Each failed on the plugin before the fix it goes with.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/engine.ts';
import { startHttpsFront, type HttpsFront } from '../helpers/https-front.ts';
import { WP_ADMIN, WP_AUTHOR, WP_CUSTOMER_2, WP_SHOP_MANAGER } from '../helpers/real-wordpress.ts';
import {
  realWordPressRuns,
  startRealWordPressWorld,
  type RealWordPressWorld,
} from '../helpers/real-wordpress-world.ts';
import { identityToken } from '../helpers/woocommerce-plugin.ts';

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

/** A "bridge" of an attacker's, over https, that hands any code a key of its own making. */
async function attackersBridge(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const key = Buffer.alloc(32, 7).toString('base64url');
    response.end(JSON.stringify({ store: new URL(world.wp.url).host, keyId: 'pk_AttackerKey1', key }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const front: HttpsFront = await startHttpsFront();
  front.forwardTo(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return {
    url: front.url.replace('//127.0.0.1:', '//localhost:'),
    async close() {
      await front.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
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
  }, 60_000);

  it('an author’s post with an element named as the launcher’s “already ran” flag does not turn the widget off', async () => {
    const { wp, browser } = world;
    // id="loyaltyBridgePoints" makes window.loyaltyBridgePoints that element, which loyalty.js took for its own flag.
    const post = await wp.cli(
      'post-as',
      WP_AUTHOR.login,
      '<p>Back to school.</p><div id="loyaltyBridgePoints"></div><div data-loyalty-points-panel></div>',
    );
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await page.goto(post);
    expect(await page.locator('#loyaltyBridgePoints').count()).toBe(1);
    // The guest's panel, filled by loyalty.js: its sign-in link.
    await page.locator('[data-loyalty-points-panel] a.loyalty-panel__sign-in').first().waitFor({ timeout: 10_000 });
    await context.close();
  }, 30_000);

  it('keeps Connect and Disconnect from a shop manager, so the store cannot be pointed at a bridge of theirs', async () => {
    const { wp, bridgeUrl } = world;
    const settings = `${wp.url}/wp-admin/options-general.php?page=loyalty-bridge`;
    const { context, page } = await world.signedIn(WP_SHOP_MANAGER);
    await page.goto(settings);
    expect(await page.getByRole('button', { name: 'Disconnect' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Connect' }).count()).toBe(0);
    await context.close();
    // Not even with a nonce of their own for the form, made here as WordPress would make it for them.
    for (const action of ['disconnect', 'connect']) {
      const [name, value, nonce, loggedIn, loggedInName] = (
        await wp.cli('session', WP_SHOP_MANAGER.login, 'auth', `loyalty_bridge_${action}`)
      ).split(' ');
      const posted = await fetch(settings, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: `${name}=${value}; ${loggedInName}=${loggedIn}` },
        body: new URLSearchParams({ loyalty_bridge_action: action, _wpnonce: nonce!, connection_code: 'lb1.x.y' }),
      });
      expect(posted.status).toBe(403);
    }
    // The store's pages still load the widget from its own bridge.
    expect(await (await fetch(wp.rewardsPage)).text()).toContain(`${bridgeUrl}/woocommerce/storefront/widget.js`);
  }, 60_000);

  // The door opens the loyalty program's page for whoever manages WooCommerce, and that page made connection codes;
  // a code is exchanged for the store's plugin key by whoever holds it, from anywhere. The plugin now signs at its
  // door whether the user may connect it (manage_options and unfiltered_html), and the bridge gives codes to them
  // alone (and, before any plugin is connected, to whoever signed in as the store's manager).
  it('keeps the store’s plugin key from a shop manager who opens the loyalty program through the door', async () => {
    const { wp, bridgeUrl } = world;
    const { context, page } = await world.signedIn(WP_SHOP_MANAGER);
    try {
      await page.goto(`${wp.url}/wp-admin/options-general.php?page=loyalty-bridge-open`);
      await page.waitForURL(`${bridgeUrl}/woocommerce/store`, { timeout: 10_000 });
      await expect.poll(() => page.locator('body').textContent(), { timeout: 10_000 }).toContain('Signed in to');
      const asked = page.waitForResponse((answer) => answer.url().endsWith('/admin/api/storefront/plugin-code'));
      await page.locator('#plugin-code-button').dispatchEvent('click');
      expect((await asked).status()).toBe(403);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('prints a bridge address with markup in its path as an address: nothing of it runs in wp-admin', async () => {
    const { wp } = world;
    const { context, page } = await world.signedIn(WP_ADMIN);
    const settings = `${wp.url}/wp-admin/options-general.php?page=loyalty-bridge`;
    const markup = `/'><svg/onload=alert(document.domain)>`;
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const kept = await wp.cli('option', 'loyalty_bridge_connection');
    const evil = await attackersBridge();
    try {
      // A code naming it, pasted by an administrator.
      await wp.cli('option', 'loyalty_bridge_connection', 'delete');
      await page.goto(settings);
      const address = Buffer.from(`${evil.url}${markup}`).toString('base64url');
      await page.fill('#loyalty-bridge-code', `lb1.${address}.${Buffer.alloc(32, 1).toString('base64url')}`);
      await Promise.all([
        page.waitForResponse((answer) => answer.request().method() === 'POST'),
        page.getByRole('button', { name: 'Connect' }).click(),
      ]);
      await page.waitForLoadState('load');
      expect(await page.locator('.wrap').textContent()).toContain(
        'This connection code names an address this plugin will not connect to.',
      );
      await page.goto(`${wp.url}/wp-admin/profile.php`);
      expect(dialogs).toEqual([]);

      // A connection kept with such an address (by an earlier version of the plugin).
      const connection = { ...(JSON.parse(kept) as object), bridge_url: `${evil.url}${markup}` };
      await wp.cli('option', 'loyalty_bridge_connection', JSON.stringify(connection));
      await page.goto(`${wp.url}/wp-admin/profile.php`);
      await page.goto(settings);
      expect(dialogs).toEqual([]);
      expect(await page.locator('svg[onload]').count()).toBe(0);
    } finally {
      await wp.cli('option', 'loyalty_bridge_connection', kept);
      await evil.close();
      await context.close();
    }
  }, 60_000);

  it('sends one mail for sixteen presses of “Send me the link” at once', async () => {
    const { wp } = world;
    const [name, value, nonce] = (await wp.cli('session', WP_CUSTOMER_2.login, 'logged_in')).split(' ');
    const answers = await Promise.all(
      Array.from({ length: 16 }, () =>
        fetch(`${wp.url}/?rest_route=/loyalty-bridge/v1/email-proof`, {
          method: 'POST',
          headers: { cookie: `${name}=${value}`, 'x-wp-nonce': nonce! },
        }),
      ),
    );
    expect(wp.mails().filter((mail) => mail.to === WP_CUSTOMER_2.email)).toHaveLength(1);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array<number>(15).fill(429)]);
  }, 60_000);

  it('tells the bridge when the plugin is deleted: a backup of its key opens nothing, and the storefront closes', async () => {
    const { wp, bridge } = world;
    const backup = JSON.parse(await wp.cli('option', 'loyalty_bridge_connection')) as {
      store: string;
      key_id: string;
      key: string;
    };
    const connection = { store: backup.store, keyId: backup.key_id, key: backup.key };
    const asked = (token: string) =>
      fetch(`${bridge.http.localUrl}/woocommerce/storefront/points`, { headers: { authorization: `Bearer ${token}` } });
    const token = () => identityToken(connection, { id: 3, email: WP_CUSTOMER_2.email }, { emailProven: true });
    expect((await asked(token())).status).toBe(200);

    expect(await wp.cli('uninstall')).toBe('null');

    expect((await asked(token())).status).toBe(401);
    await eventually(async () => {
      expect(((await (await world.asPage('/storefront')).json()) as { on: boolean }).on).toBe(false);
    });
  }, 60_000);
});
