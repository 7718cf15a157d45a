// The points launcher on a BigCommerce store, in Chromium, against the whole bridge (issue 53): the bridge in
// process as a BigCommerce single-click app beside the fake BigCommerce (its store API, Scripts API, customers and
// promotions from BigCommerce's documentation), set up as test/e2e/bigcommerce-rewards.test.ts sets it up: a store
// on a trial account on the bridge's sandbox, customer 4927 with 300 approved points. The merchant turns "In your
// store" on in Set up, in the control panel's frame (test/helpers/bigcommerce-control-panel.ts), and the bridge adds
// its script with the Scripts API. A local server plays the store's pages on an origin of its own: its footer loads
// the script from the `src` the Scripts API holds (as Stencil's {{footer.scripts}} does), its
// /customer/current.jwt answers as BigCommerce's Current Customer API documents it (a JWT signed with the app's
// client secret for the signed-in customer, 404 for a guest), and /login.php is its sign-in page.
//
// What a customer notices: signed in, their balance; a reward redeemed after a confirmation, its code shown with a
// Copy button, and the balance lower; a guest sees the ways to earn, the rewards and the store's sign-in. The
// pictures are docs/screenshots' customer-bigcommerce-rewards-*.png and merchant-bigcommerce-storefront-*.png
// (scripts/screenshots.ts copies them there).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/bridge-process.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { appAt, bcOrder, bcPageTokens } from '../helpers/bigcommerce.ts';
import { BRIDGE_ORIGIN, controlPanelContext } from '../helpers/bigcommerce-control-panel.ts';
import { currentCustomerJwt } from '../helpers/bigcommerce-customer-jwt.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { artifactsDir, CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { addCustomer, serveFakeCustomers } from '../helpers/fake-bigcommerce-customers.ts';
import { promotionsOf, withPromotions } from '../helpers/fake-bigcommerce-promotions.ts';
import { addFakeScripts, scriptsOf } from '../helpers/fake-bigcommerce-scripts.ts';

const CLIENT_ID = 'bc-widget-client-id';
const CLIENT_SECRET = 'bc-widget-client-secret-for-tests';
const STORE = 'hopper1';
const STORE_NAME = 'Hopper & Co.';
/** Everything the storefront and its rewards need, approved at install (the e2e test walks the approvals). */
const SCOPES =
  'store_v2_orders_read_only store_v2_information_read_only store_v2_content store_v2_customers_read_only store_channel_settings_read_only store_v2_marketing';
const PANEL = `https://store-${STORE}.mybigcommerce.com/manage/app/42`;
const GRACE = { id: 4927, email: 'grace@example.com' };
/** The store's own session cookie: the customer it names is signed in (BigCommerce's is opaque; this one says who). */
const SIGNED_IN = 'SHOP_TOKEN';

if (!chromiumAvailable) console.warn(`BigCommerce widget browser test skipped: no Chromium at ${CHROMIUM}`);

let bc: FakeBigCommerce;
let bridge: RunningBridge;
let bridgeUrl = '';
let brandId = '';
let storePage: { server: Server; url: string };
let browser: Browser;
/** The widget's address as the Scripts API holds it, once the merchant turned the storefront on. */
let scriptSrc = '';
const shots = artifactsDir('bigcommerce-rewards');

const sandboxAccount = () => bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brandId)!;
const merchant = async (method: string, path: string, body?: unknown) => {
  const token = (await bcPageTokens(bridge)).mint(STORE);
  const response = await fetch(`${bridgeUrl}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

const cookieOf = (request: IncomingMessage, name: string) =>
  (request.headers.cookie ?? '')
    .split(';')
    .map((pair) => pair.trim().split('='))
    .find(([key]) => key === name)?.[1];

/** The store's pages, as BigCommerce serves them on the store's own domain. */
async function startStorePage(): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://store.invalid');
    if (url.pathname === '/customer/current.jwt') {
      // Current Customer API: for the app's client id, the signed-in customer's JWT; 404 for a guest.
      const customerId = Number(cookieOf(request, SIGNED_IN));
      if (url.searchParams.get('app_client_id') !== CLIENT_ID || customerId !== GRACE.id) {
        response.writeHead(404, { 'content-type': 'application/json' });
        return response.end(JSON.stringify({ status: 404, title: 'Not Found' }));
      }
      response.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
      return response.end(
        currentCustomerJwt({
          storeHash: STORE,
          customerId,
          email: GRACE.email,
          clientId: CLIENT_ID,
          clientSecret: CLIENT_SECRET,
        }),
      );
    }
    if (url.pathname === '/login.php') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return response.end('<!doctype html><title>Sign in</title><h1>Sign in</h1>');
    }
    if (url.pathname !== '/') {
      response.writeHead(404);
      return response.end();
    }
    // A Stencil page: {{footer.scripts}} renders the Scripts API's script at the end of the body.
    const account = cookieOf(request, SIGNED_IN)
      ? '<a href="/account.php">Your account</a>'
      : '<a href="/login.php">Sign in</a>';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hopper &amp; Co.</title>
<style>body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#222}header{display:flex;justify-content:space-between;
padding:16px 24px;border-bottom:1px solid #ddd}header a{color:#222}main{padding:24px;max-width:960px}
.products{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:16px}
.product{border:1px solid #ddd;border-radius:8px;padding:12px}.product div{height:120px;background:#eef1f4;
border-radius:4px;margin-bottom:8px}</style></head>
<body><header><strong>Hopper &amp; Co.</strong>${account}</header>
<main><h1>Tools for people who write programs</h1>
<div class="products">${['Notebook', 'Mechanical pencil', 'Desk lamp', 'Mug']
      .map((name, index) => `<div class="product"><div></div>${name}<br>${(12 + index * 7).toFixed(2)}</div>`)
      .join('')}</div></main>
<script src="${scriptSrc.replaceAll('&', '&amp;')}" defer></script>
</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  if (!chromiumAvailable) return;
  bc = await startFakeBigCommerce({ storeHash: 'unusedhash', accessToken: 'unused-token' });
  withPromotions(bc);
  serveFakeCustomers(bc);
  addFakeScripts(bc);
  const port = await freePort();
  bridgeUrl = `http://127.0.0.1:${port}`;
  bc.registerApp(appAt(bridgeUrl, CLIENT_ID, CLIENT_SECRET, SCOPES));
  bridge = await startTestBridge({
    PORT: String(port),
    PUBLIC_URL: bridgeUrl,
    DATA_DIR: tempDataDir(),
    RECONCILE_INTERVAL_MINUTES: '0',
    BIGCOMMERCE_CLIENT_ID: CLIENT_ID,
    BIGCOMMERCE_CLIENT_SECRET: CLIENT_SECRET,
    BIGCOMMERCE_LOGIN_URL: bc.url,
    BIGCOMMERCE_API_URL: bc.url,
    BIGCOMMERCE_OPEN_INSTALLS: 'true',
  });
  bc.addStore(STORE, `${STORE}-token`).name = STORE_NAME;
  expect((await bc.install(STORE)).status).toBe(200);
  addCustomer(bc, STORE, { id: GRACE.id, email: GRACE.email });
  const made = await merchant('POST', '/account', { sandbox: true });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  brandId = made.body.account.brandId as string;
  // Three completed orders of hers: 300 approved points (the sandbox's activity 1 gives 100).
  for (const id of [9001, 9002, 9003]) {
    bc.stores.get(STORE)!.orders.set(id, bcOrder(id, 10, { email: GRACE.email }));
    expect(await bc.deliver('store/order/statusUpdated', id, { store: STORE, signWith: CLIENT_SECRET })).toEqual([200]);
  }
  await eventually(() => {
    const approved = sandboxAccount()
      .store.snapshot()
      .earnings.filter((each) => each.status === 'approved');
    expect(approved.reduce((sum, each) => sum + each.points, 0)).toBe(300);
  }, 20_000);
  // Beside the amounts off, a percentage and free shipping, out of her reach: the widget words each kind.
  const saved = await merchant('PUT', '/storefront/rewards', {
    rewards: [
      { points: 200, amountOff: '5.00', minimumOrder: null, expiresInDays: 30, combines: false },
      { points: 500, amountOff: '15.00', minimumOrder: '50.00', expiresInDays: 30, combines: false },
      { points: 1_000, benefit: { kind: 'percent_off', percent: 10 }, expiresInDays: 30 },
      { points: 2_000, benefit: { kind: 'free_shipping' }, expiresInDays: 30 },
    ],
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  await bridge.engine.drain();
  storePage = await startStorePage();
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  if (storePage) {
    storePage.server.closeAllConnections();
    await new Promise((resolve) => storePage.server.close(resolve));
  }
  await bridge?.stop();
  await bc?.close();
});

/** A visitor of the store's pages: signed in as `customerId`, or a guest. */
async function visitor(customerId?: number, width = 1280): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  if (customerId) await context.addCookies([{ name: SIGNED_IN, value: String(customerId), url: storePage.url }]);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: storePage.url });
  return { context, page: await context.newPage() };
}
async function openLauncher(page: Page) {
  await page.goto(storePage.url);
  const button = page.getByRole('button', { name: 'Your points' });
  await expect.poll(() => button.getAttribute('aria-expanded'), { timeout: 10_000 }).toBe('false');
  await button.click();
  const panel = page.getByRole('dialog', { name: 'Your points' });
  await panel.waitFor();
  await page.locator('[data-loyalty-body]:not([aria-busy])').waitFor();
  return panel;
}
const rewardLine = (page: Page, words: string) => page.locator('.loyalty-panel__line', { hasText: words });

describe.skipIf(!chromiumAvailable)(
  'a BigCommerce customer sees and spends points in the launcher on the store',
  () => {
    it('the merchant turns "In your store" on in Set up, and the bridge adds its script to the store', async () => {
      const load = () =>
        `${BRIDGE_ORIGIN}/bigcommerce/load?signed_payload_jwt=${bc.signedPayload(STORE, { user: { id: 31, email: 'owner@hopper.example' } })}`;
      const context = await controlPanelContext(browser, bridge, { [PANEL]: load });
      const page = await context.newPage();
      const app: FrameLocator = page.frameLocator('#app');
      await page.goto(PANEL);
      await app.locator('s-app-nav').getByRole('button', { name: 'Set up' }).click();
      await app.locator('#page[data-loaded="setup"]').waitFor({ timeout: 15_000 });
      await app.locator('#storefront:not([hidden])').waitFor();
      expect(scriptsOf(bc, STORE)).toEqual([]);
      const toggle = app.locator('#storefront-switch input');
      expect(await toggle.isChecked()).toBe(false);
      await toggle.click();
      await expect
        .poll(() => app.locator('#toasts li').allTextContents(), { timeout: 15_000 })
        .toContain('Customers now see their points in your store');
      expect(await app.locator('#storefront-problem').isHidden()).toBe(true);
      const scripts = scriptsOf(bc, STORE);
      expect(scripts).toHaveLength(1);
      scriptSrc = scripts[0]!.src!;
      expect(scriptSrc).toBe(`${bridgeUrl}/bigcommerce/storefront/widget.js?store=${STORE}`);

      // The rewards card says what a code is on BigCommerce: it works once, for whoever enters it.
      await app.locator('#rewards:not([hidden])').waitFor();
      expect(await app.locator('#rewards-who').textContent()).toMatch(/^it works once, for whoever enters it/);
      await expect
        .poll(() => app.locator('#reward-list .reward-words').allTextContents())
        .toEqual([
          '200 points for 5.00 off · codes last 30 days · combines with no other discount',
          '500 points for 15.00 off, on orders of 50.00 or more · codes last 30 days · combines with no other discount',
          '1,000 points for 10% off · codes last 30 days · combines with no other discount',
          '2,000 points for free shipping · codes last 30 days · combines with no other discount',
        ]);

      // The pictures: "In your store" and the Rewards card, at a laptop's width and a phone's, nothing wider.
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 1000 });
        const frame = page.frames().find((each) => each !== page.mainFrame())!;
        const size = (await frame.evaluate(
          '({ scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth, tall: document.documentElement.scrollHeight })',
        )) as { scroll: number; width: number; tall: number };
        expect(size.scroll, `Set up at ${width} px scrolls sideways`).toBeLessThanOrEqual(size.width);
        // The control panel's frame as tall as the page in it, and the window as tall as that: both cards in one
        // picture (a full-page picture leaves the frame, another site's, blank below the window).
        await page.evaluate(`document.getElementById('app').style.height = '${size.tall}px'`);
        const frameBox = (await page.locator('#app').boundingBox())!;
        // Inside the frame's own border (the stand-in control panel's, not the page's).
        const border = (await page.locator('#app').evaluate((node) => node.clientLeft)) as number;
        await page.setViewportSize({ width, height: Math.ceil(frameBox.y + frameBox.height) });
        const top = (await app.locator('#storefront').boundingBox())!;
        const bottom = (await app.locator('#rewards').boundingBox())!;
        await page.screenshot({
          path: `${shots}merchant-storefront-${width}.png`,
          clip: {
            x: frameBox.x + border,
            y: top.y - 8,
            width: frameBox.width - 2 * border,
            height: bottom.y + bottom.height - top.y + 16,
          },
        });
        await page.evaluate(`document.getElementById('app').style.height = '880px'`);
      }
      await context.close();
    }, 60_000);

    let code = '';
    it('a signed-in customer sees 300 points, redeems a reward after a confirmation, and gets a code to copy', async () => {
      expect(scriptSrc).not.toBe('');
      const { context, page } = await visitor(GRACE.id);
      // What the page asked the bridge, from which origin, and what the bridge let the page read.
      const calls: Array<{ method: string; origin?: string; bearer: boolean; allowed?: string; status: number }> = [];
      page.on('response', (response) => {
        if (!response.url().startsWith(`${bridgeUrl}/bigcommerce/storefront/points`)) return;
        void (async () => {
          const asked = await response.request().allHeaders();
          const answered = await response.allHeaders();
          calls.push({
            method: response.request().method(),
            origin: asked.origin,
            bearer: /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/.test(asked.authorization ?? ''),
            allowed: answered['access-control-allow-origin'],
            status: response.status(),
          });
        })();
      });
      const panel = await openLauncher(page);
      // The store's page is not the bridge's: every ask crosses origins, and the browser let the page read it.
      expect(new URL(page.url()).origin).toBe(storePage.url);
      expect(storePage.url).not.toBe(new URL(bridgeUrl).origin);
      await expect.poll(() => panel.locator('.loyalty-balance__number').textContent()).toBe('300');
      expect(await panel.innerText()).toContain('300 points available');

      // 500 is out of reach: its button cannot be pressed, and the line says why.
      const far = rewardLine(page, '500 points');
      expect(await far.innerText()).toContain('You need 200 more points');
      expect(await far.getByRole('button', { name: 'Redeem' }).isDisabled()).toBe(true);

      const near = rewardLine(page, '200 points for 5.00 off');
      await near.getByRole('button', { name: 'Redeem' }).click();
      expect(await near.innerText()).toContain('Spend 200 points for 5.00 off?');
      // Nothing is spent until she says yes.
      expect(promotionsOf(bc, STORE)).toEqual([]);
      await near.getByRole('button', { name: 'Yes, spend them' }).click();

      const made = page.locator('.loyalty-made');
      await made.waitFor({ timeout: 15_000 });
      code = (await made.locator('.loyalty-code__text').innerText()).trim();
      expect(code).toMatch(/^LB-[A-HJ-NP-Z2-9]{16}$/);
      const madeText = await made.innerText();
      expect(madeText).toContain('5.00 off your order');
      const last = new Date(Date.now() + 30 * 86_400_000).toLocaleDateString('en', { dateStyle: 'medium' });
      expect(madeText).toContain(`Use it at checkout before ${last}`);
      await made.getByRole('button', { name: 'Copy' }).click();
      await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(code);
      // The balance shown anew: 100 left.
      await page.locator('[data-loyalty-body]:not([aria-busy])').waitFor();
      await expect.poll(() => panel.locator('.loyalty-balance__number').textContent()).toBe('100');
      expect(await near.innerText()).toContain('You need 100 more points');

      // In the store: one promotion of its own, with the one code she was shown.
      const promotions = promotionsOf(bc, STORE);
      expect(promotions).toHaveLength(1);
      expect(promotions[0]!.codes.map((each) => each.code)).toEqual([code]);

      // Each ask carried her token from the store's origin, and the bridge let that origin read the answer.
      await expect.poll(() => calls.filter((each) => each.method === 'POST')).toHaveLength(1);
      expect(calls.length).toBeGreaterThanOrEqual(3);
      for (const call of calls)
        expect(call).toEqual({
          method: expect.stringMatching(/^(GET|POST)$/),
          origin: storePage.url,
          bearer: true,
          allowed: storePage.url,
          status: 200,
        });
      // Her token is kept nowhere on the page.
      expect(await page.evaluate(() => Object.keys(localStorage).length + Object.keys(sessionStorage).length)).toBe(0);

      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        const rights = await page
          .locator('.loyalty-launcher *')
          .evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().right));
        expect(Math.max(...rights)).toBeLessThanOrEqual(width);
        expect(await panel.evaluate((node) => node.scrollWidth <= node.clientWidth)).toBe(true);
        await page.screenshot({ path: `${shots}customer-bigcommerce-rewards-${width}.png` });
      }
      await context.close();
    }, 60_000);

    it('a guest sees the ways to earn, the rewards and the store’s sign-in, and no balance', async () => {
      expect(code).not.toBe('');
      const { context, page } = await visitor();
      const panel = await openLauncher(page);
      await expect.poll(() => panel.innerText()).toContain('Sign in to see your points');
      const text = await panel.innerText();
      expect(text).toContain('Ways to earn');
      expect(text).toContain('100 points');
      expect(text).toContain('200 points for 5.00 off');
      expect(text).toContain('500 points for 15.00 off on orders of 50.00 or more');
      expect(text).toContain('1,000 points for 10% off');
      expect(text).toContain('2,000 points for free shipping');
      expect(text).not.toContain('points available');
      expect(text).not.toContain(code);
      expect(await panel.locator('.loyalty-balance__number').count()).toBe(0);
      expect(await panel.getByRole('button', { name: 'Redeem' }).count()).toBe(0);
      const signIn = panel.getByRole('link', { name: 'Sign in', exact: true });
      expect(await signIn.getAttribute('href')).toBe('/login.php');
      await signIn.click();
      await page.waitForURL(`${storePage.url}/login.php`);
      // Nothing more was made in the store.
      expect(promotionsOf(bc, STORE)).toHaveLength(1);
      await context.close();
    }, 30_000);
  },
);
