// The points launcher and the points panel on a WooCommerce store, in Chromium, against the whole bridge behind https
// (issue 54, docs/wordpress-plugin.md §3-4): the store's plugin connected with a code from the merchant's page, the
// storefront on, and customer 42 with points from a completed order. A local server plays the store's WordPress as
// the plugin makes it: every page prints the widget's script (deferred), with the site's address, its wp-admin's and a
// REST nonce on its tag; the My Account "Points" tab prints <div data-loyalty-points-panel>; the identity route
// (?rest_route=) answers the plugin's token for the signed-in customer (its cookie) with the right X-WP-Nonce, 401
// otherwise.
//
// What a customer notices: on the Points tab, their balance in the page itself, and the launcher on every page; a
// guest sees the ways to earn and a sign-in link to My Account.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import { eventually } from '../helpers/engine.ts';
import type { FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { opensslAvailable } from '../helpers/https-front.ts';
import { wooOrderJson } from '../helpers/woocommerce.ts';
import {
  connectPlugin,
  identityToken,
  signInByApproval,
  type PluginConnection,
} from '../helpers/woocommerce-plugin.ts';
import { startWooPageWorld, type WooPageWorld } from '../helpers/woocommerce-store-page.ts';

const ADA = { id: 42, email: 'ada@example.com' };
/** WordPress's login cookie, opaque there; this one says who. */
const SIGNED_IN = 'wordpress_logged_in_test';
const REST_NONCE = '0a1b2c3d4e';
const runs = chromiumAvailable && opensslAvailable;

if (!chromiumAvailable) console.warn(`WooCommerce widget browser test skipped: no Chromium at ${CHROMIUM}`);

let world: WooPageWorld;
let woo: FakeWooCommerce;
let connection: PluginConnection;
let storePage: { server: Server; url: string };
let browser: Browser;

const cookieOf = (request: IncomingMessage, name: string) =>
  (request.headers.cookie ?? '')
    .split(';')
    .map((pair) => pair.trim().split('='))
    .find(([key]) => key === name)?.[1];

/** The store's WordPress pages, as the plugin prints them. */
async function startStorePage(): Promise<{ server: Server; url: string }> {
  let site = '';
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://store.invalid');
    const customer = Number(cookieOf(request, SIGNED_IN));
    if (url.pathname === '/' && url.searchParams.get('rest_route') === '/loyalty-bridge/v1/identity') {
      // rest_cookie_check_errors: a logged-in cookie counts only with the wp_rest nonce; else not signed in.
      if (customer !== ADA.id || request.headers['x-wp-nonce'] !== REST_NONCE) {
        response.writeHead(401, { 'content-type': 'application/json' });
        return response.end(JSON.stringify({ code: 'rest_not_logged_in', data: { status: 401 } }));
      }
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store, private' });
      return response.end(JSON.stringify({ token: identityToken(connection, ADA) }));
    }
    const content =
      url.pathname === '/my-account/points/'
        ? '<h1>Points</h1><div data-loyalty-points-panel></div>'
        : '<h1>Notebooks and pencils</h1>';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Store</title>
<script data-site="${site}/" data-admin="${site}/wp-admin/" data-rest-nonce="${REST_NONCE}" defer src="${world.front.url}/woocommerce/storefront/widget.js?store=${encodeURIComponent(woo.host)}"></script>
</head><body><main>${content}</main>
</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url: site };
}

beforeAll(async () => {
  if (!runs) return;
  world = await startWooPageWorld(1);
  [woo] = world.stores as [FakeWooCommerce];
  connection = await connectPlugin(world, woo);
  const session = await signInByApproval(world, woo);
  const on = await world.asPage(session, '/storefront', { method: 'PUT', body: JSON.stringify({ on: true }) });
  expect(on.status).toBe(200);
  woo.orders.set(
    8101,
    JSON.parse(wooOrderJson({ id: 8101, status: 'completed', email: ADA.email })) as Record<string, unknown>,
  );
  expect(await woo.deliver('order.created', 8101)).toEqual([200]);
  await world.bridge.engine.drain();
  await eventually(async () => {
    const shown = await fetch(`${world.bridge.http.localUrl}/woocommerce/storefront/points`, {
      headers: { authorization: `Bearer ${identityToken(connection, ADA)}` },
    });
    const body = (await shown.json()) as { balance?: { available: number; pending: number } };
    expect((body.balance?.available ?? 0) + (body.balance?.pending ?? 0)).toBeGreaterThan(0);
  }, 20_000);
  storePage = await startStorePage();
  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  if (storePage) {
    storePage.server.closeAllConnections();
    await new Promise((resolve) => storePage.server.close(resolve));
  }
  await world?.stop();
});

async function visitor(signedIn: boolean) {
  // The test bridge's https front has a certificate of its own making.
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  if (signedIn) await context.addCookies([{ name: SIGNED_IN, value: String(ADA.id), url: storePage.url }]);
  return { context, page: await context.newPage() };
}

describe.skipIf(!runs)('the points on a WooCommerce store', () => {
  it('shows a signed-in customer their balance in the Points tab, and the launcher', async () => {
    const { context, page } = await visitor(true);
    await page.goto(`${storePage.url}/my-account/points/`);
    const panel = page.locator('[data-loyalty-points-panel]');
    await expect
      .poll(() => panel.locator('.loyalty-panel__body').textContent(), { timeout: 10_000 })
      .toMatch(/points available/);
    // In the page, not a dialog over it; the launcher is there besides.
    expect(await panel.getByRole('region').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Your points' }).isVisible()).toBe(true);
    await context.close();
  }, 30_000);

  it('shows a guest the ways to earn and a sign-in at My Account', async () => {
    const { context, page } = await visitor(false);
    await page.goto(`${storePage.url}/my-account/points/`);
    const panel = page.locator('[data-loyalty-points-panel]');
    const signIn = panel.locator('a.loyalty-panel__sign-in').first();
    await signIn.waitFor({ timeout: 10_000 });
    expect(await signIn.getAttribute('href')).toBe('/my-account/');
    const body = await panel.locator('.loyalty-panel__body').textContent();
    expect(body).toContain('Ways to earn');
    expect(body).not.toMatch(/points available/);
    await context.close();
  }, 30_000);
});
