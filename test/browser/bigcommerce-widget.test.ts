// The points launcher on a BigCommerce store, in Chromium: a local page plays the storefront (its footer loads the
// bridge's widget.js?store=<hash> as the Scripts API puts it there; /customer/current.jwt answers as BigCommerce's
// Current Customer API documents it: a JWT signed HS256 with the app's client secret, 15 minutes, or 404 for a
// guest; /login.php), and a stub bridge on another origin serves widget.js from bigCommerceWidgetRoute and answers
// /bigcommerce/storefront/points in the shapes of src/http/storefront-routes.ts, checking the bearer's signature.
// (A stub until the real bridge serves these routes; it also answers the CORS preflight a bearer needs.)
//
// What a customer notices: signed in, the launcher opens on their balance; a guest sees the ways to earn and a
// sign-in link to the store's own sign-in page.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigCommerceWidgetRoute } from '../../adapters/bigcommerce/storefront-widget.ts';
import { chromiumAvailable, launchChromium } from '../helpers/browser.ts';

const CLIENT_ID = 'widget-client-id';
const CLIENT_SECRET = 'widget-client-secret';
const STORE_HASH = 'abc123';
const SIGNED_IN = 'SHOP_SESSION';
const GRACE = { id: 4927, email: 'grace@example.com', group_id: '6' };
const WAYS = [{ words: 'Place an order', points: 100, from: '0' }];

const b64url = (value: string) => Buffer.from(value).toString('base64url');
/** The Current Customer JWT of BigCommerce's docs (its example payload's claims). */
function currentCustomerJwt(customer: typeof GRACE): string {
  const iat = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ typ: 'JWT', alg: 'HS256' }));
  const payload = b64url(
    JSON.stringify({
      customer,
      iss: 'bc/apps',
      sub: STORE_HASH,
      iat,
      exp: iat + 900,
      version: 1,
      aud: CLIENT_ID,
      application_id: CLIENT_ID,
      store_hash: STORE_HASH,
      operation: 'current_customer',
    }),
  );
  const signature = createHmac('sha256', CLIENT_SECRET).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}
/** The stub bridge's check of a bearer: its signature, audience and time (the real one checks more). */
function verified(token: string): Record<string, any> | undefined {
  const [header = '', payload = '', signature = ''] = token.split('.');
  const expected = createHmac('sha256', CLIENT_SECRET).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, any>;
  return claims.aud === CLIENT_ID && claims.exp > Date.now() / 1000 ? claims : undefined;
}

const cookieOf = (request: IncomingMessage, name: string) =>
  (request.headers.cookie ?? '')
    .split(';')
    .map((pair) => pair.trim().split('='))
    .find(([key]) => key === name)?.[1];

async function serve(handler: (request: IncomingMessage, response: ServerResponse, url: URL) => void) {
  const server = createServer((request, response) =>
    handler(request, response, new URL(request.url ?? '/', 'http://local.invalid')),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
const stop = (server: Server | undefined) =>
  new Promise<void>((resolve) => {
    if (!server) return resolve();
    server.closeAllConnections();
    server.close(() => resolve());
  });

let bridge: { server: Server; url: string };
let store: { server: Server; url: string };
let browser: Browser;
/** What the stub bridge was asked: the customer a bearer named, or the store a guest's ask named. */
const asked: Array<{ customer?: number; store?: string }> = [];

beforeAll(async () => {
  bridge = await serve((request, response, url) => {
    void (async () => {
      const cors = { 'access-control-allow-origin': '*', vary: 'origin' };
      if (request.method === 'OPTIONS') {
        response.writeHead(204, {
          ...cors,
          'access-control-allow-methods': 'GET, POST',
          'access-control-allow-headers': 'authorization',
          'access-control-max-age': '600',
        });
        return response.end();
      }
      if (url.pathname === '/bigcommerce/storefront/widget.js') {
        const answer = await bigCommerceWidgetRoute({ clientId: CLIENT_ID, bridgeUrl: bridge.url }).handle({
          method: 'GET',
          path: '/storefront/widget.js',
          query: Object.fromEntries(url.searchParams),
          headers: {},
          body: Buffer.alloc(0),
        });
        if (!('script' in answer)) throw new Error('widget.js answers a script');
        response.writeHead(answer.status, { 'content-type': 'application/javascript; charset=utf-8' });
        return response.end(answer.script);
      }
      if (url.pathname !== '/bigcommerce/storefront/points') {
        response.writeHead(404, cors);
        return response.end();
      }
      const json = (status: number, body: unknown) => {
        response.writeHead(status, { ...cors, 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (bearer) {
        const claims = verified(bearer);
        if (!claims) return json(401, { error: 'this request is not signed by the store' });
        asked.push({ customer: claims.customer.id });
        return json(200, {
          customer: 'signed-in',
          balance: {
            available: 1200,
            pending: 0,
            asOf: new Date().toISOString(),
            source: 'ledger',
            stale: false,
          },
          history: [{ words: 'Order #1001', points: 100, at: '2026-11-01T10:00:00Z' }],
          waysToEarn: WAYS,
          rewards: [],
          codes: [],
        });
      }
      const hash = url.searchParams.get('store');
      if (hash !== STORE_HASH) return json(401, { error: 'this request is not signed by the store' });
      asked.push({ store: hash });
      return json(200, { customer: 'guest', waysToEarn: WAYS, rewards: [], signIn: true });
    })().catch((error: unknown) => {
      response.writeHead(500);
      response.end(String(error));
    });
  });
  store = await serve((request, response, url) => {
    if (url.pathname === '/customer/current.jwt') {
      const customer = cookieOf(request, SIGNED_IN);
      if (url.searchParams.get('app_client_id') !== CLIENT_ID || !customer) {
        response.writeHead(404, { 'content-type': 'application/json' });
        return response.end(JSON.stringify({ status: 404, title: 'Not Found' }));
      }
      response.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
      return response.end(currentCustomerJwt(GRACE));
    }
    if (url.pathname === '/login.php') {
      response.writeHead(200, { 'content-type': 'text/html' });
      return response.end('<!doctype html><title>Sign in</title><h1>Sign in</h1>');
    }
    if (url.pathname !== '/') {
      response.writeHead(404);
      return response.end();
    }
    // A Stencil page: {{footer.scripts}} renders the Scripts API's script at the end of the body.
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Hopper &amp; Co.</title></head>
<body><header><a href="/">Hopper &amp; Co.</a> · <a href="/login.php">Sign in</a></header>
<main><h1>Hopper &amp; Co.</h1><p>Tools for people who write programs.</p></main>
<script src="${bridge.url}/bigcommerce/storefront/widget.js?store=${STORE_HASH}" defer></script>
</body></html>`);
  });
  if (chromiumAvailable) browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stop(store?.server);
  await stop(bridge?.server);
});

async function openLauncher(page: Page) {
  await page.goto(store.url);
  const button = page.getByRole('button', { name: 'Your points' });
  await expect.poll(() => button.getAttribute('aria-expanded')).toBe('false');
  await button.click();
  const panel = page.getByRole('dialog', { name: 'Your points' });
  await panel.waitFor();
  await page.locator('[data-loyalty-body]:not([aria-busy])').waitFor();
  return panel;
}

describe.skipIf(!chromiumAvailable)('the points launcher on a BigCommerce store', () => {
  it('opens on a signed-in customer’s balance, asked with the token BigCommerce signed for them', async () => {
    const context = await browser.newContext();
    await context.addCookies([{ name: SIGNED_IN, value: 'grace', url: store.url }]);
    const page = await context.newPage();
    asked.length = 0;
    const panel = await openLauncher(page);
    await expect.poll(() => panel.locator('.loyalty-balance__number').textContent()).toBe('1,200');
    expect(await panel.textContent()).toContain('points available');
    expect(await panel.textContent()).toContain('Order #1001');
    expect(asked).toEqual([{ customer: GRACE.id }]);
    // loyalty.css came with the script: the launcher sits in the page's corner, over the store's own content.
    const launcher = page.locator('[data-loyalty-launcher]');
    expect(await launcher.evaluate((node) => node.ownerDocument.defaultView!.getComputedStyle(node).position)).toBe(
      'fixed',
    );
    // The token is kept nowhere on the page.
    expect(await page.evaluate(() => Object.keys(localStorage).length + Object.keys(sessionStorage).length)).toBe(0);
    await context.close();
  });

  it('shows a guest the ways to earn and a link to the store’s sign-in page', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    asked.length = 0;
    const panel = await openLauncher(page);
    await expect.poll(() => panel.textContent()).toContain('Sign in to see your points');
    expect(await panel.textContent()).toContain('Place an order');
    expect(await panel.textContent()).toContain('100 points');
    const signIn = panel.getByRole('link', { name: 'Sign in' });
    expect(await signIn.getAttribute('href')).toBe('/login.php');
    expect(asked).toEqual([{ store: STORE_HASH }]);
    await signIn.click();
    await page.waitForURL(`${store.url}/login.php`);
    await context.close();
  });
});
