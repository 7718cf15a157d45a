// A BigCommerce merchant opens the app from their control panel (issue 34):
// the load callback opens the store's own pages in the control panel's
// iframe, in Debian's Chromium, with the bridge's stand-ins for the page's
// elements (no Polaris, no App Bridge: they are Shopify's). The merchant
// sees what needs their attention, tries the app on the bridge's sandbox,
// sends a test order and sees it earn, then finds a real order of their
// store among the recent ones. A parent page plays the control panel at a
// *.mybigcommerce.com address, as BigCommerce frames its apps.
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { bcOrder } from '../helpers/bigcommerce.ts';
import { BRIDGE_ORIGIN, controlPanelContext, startOpenBigCommerceApp } from '../helpers/bigcommerce-control-panel.ts';
import { artifactsDir, CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import type { FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { walkViews } from '../helpers/merchant-views.ts';
import { AUDIT_KIND } from '../../src/accounts/account-records.ts';

const CLIENT_ID = 'bc-page-client-id';
const CLIENT_SECRET = 'bc-page-client-secret-for-tests';
const STORE = 'pagestore1';
const OTHER = 'pagestore2';
const PANEL = `https://store-${STORE}.mybigcommerce.com/manage/app/42`;
/** Each store's name, as its owner set it in BigCommerce. */
const NAMES = { [STORE]: 'Page & Co. Outfitters', [OTHER]: 'Other Store Supplies' };

if (!chromiumAvailable) console.warn(`BigCommerce page browser test skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!chromiumAvailable)('a BigCommerce merchant’s own pages, opened from the control panel', () => {
  let bc: FakeBigCommerce;
  let bridge: RunningBridge;
  let browser: Browser;
  let page: Page;
  let app: FrameLocator;
  const shots = artifactsDir('bigcommerce');
  const toasts = () => app.locator('#toasts li').allTextContents();
  /** The cookies the bridge set, of all it answered the framed page, and where: browsers block third-party ones in iframes, but for partitioned ones. */
  const cookiesSet: Array<{ path: string; cookie: string }> = [];

  beforeAll(async () => {
    ({ bc, bridge } = await startOpenBigCommerceApp(CLIENT_ID, CLIENT_SECRET));
    for (const store of [STORE, OTHER] as const) {
      bc.addStore(store, `${store}-token`).name = NAMES[store];
      expect((await bc.install(store)).status).toBe(200);
    }
    browser = await launchChromium();
    // The control panel frames the app's load callback, with BigCommerce's signed payload for this store and user.
    const load = () =>
      `${BRIDGE_ORIGIN}/bigcommerce/load?signed_payload_jwt=${bc.signedPayload(STORE, { user: { id: 31, email: 'owner@pagestore.example' } })}`;
    const context = await controlPanelContext(browser, bridge, { [PANEL]: load }, (path, response) => {
      const cookie = response.headers()['set-cookie'];
      if (cookie) cookiesSet.push({ path, cookie });
    });
    page = await context.newPage();
    app = page.frameLocator('#app');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.stop();
    await bc?.close();
  });

  it('opens the store’s page, tries it on the sandbox, and a test order earns there', async () => {
    await page.goto(PANEL);
    await expect
      .poll(() => app.locator('#attention s-banner').first().getAttribute('heading'), { timeout: 15_000 })
      .toBe('No loyalty account yet');
    // Its name, read from BigCommerce: not its store hash, nor the other store's name.
    await expect
      .poll(() => app.locator('#signed-in').textContent(), { timeout: 15_000 })
      .toBe(`Signed in to ${NAMES[STORE]}`);
    await page.screenshot({ path: `${shots}1-first-open.png` });
    await app.locator('s-app-nav').getByRole('button', { name: 'Set up' }).click();
    await app.locator('#sandbox-choice:not([hidden]) #try-sandbox').click();
    await expect.poll(toasts, { timeout: 15_000 }).toContain('You are trying it on the sandbox');
    await app.locator('#try-it:not([hidden]) #send-test-order').click();
    await expect
      .poll(() => app.locator('#test-order-status').getAttribute('data-points'), { timeout: 20_000 })
      .toBe('earned');
    // Its points as a number: the trial declares the sandbox's, activity 1 giving 100.
    expect(await app.locator('#test-order-status').textContent()).toContain('earned 100 points, pending');
    await page.screenshot({ path: `${shots}2-test-order.png` });
    // The trial is this store's own account, made by its page, in the name of the control-panel user.
    const audit = await bridge.engine.store.listRecords(AUDIT_KIND);
    expect(audit.map(({ value }) => value)).toContainEqual(
      expect.objectContaining({ action: 'account.create', by: `bigcommerce ${STORE} (staff 31)` }),
    );
  }, 90_000);

  it('shows the store’s recent orders, and none of another store’s', async () => {
    bc.stores.get(STORE)!.orders.set(8101, bcOrder(8101, 11, { email: 'mine@example.com' }));
    bc.stores.get(OTHER)!.orders.set(8201, bcOrder(8201, 11, { email: 'theirs@example.com' }));
    for (const [store, id] of [
      [STORE, 8101],
      [OTHER, 8201],
    ] as const)
      expect(await bc.deliver('store/order/created', id, { store, signWith: CLIENT_SECRET })).toEqual([200]);
    await bridge.engine.drain();
    await app.locator('s-app-nav').getByRole('button', { name: 'Orders' }).click();
    await expect.poll(() => app.locator('#orders').textContent(), { timeout: 15_000 }).toContain('mine@example.com');
    expect(await app.locator('#orders').textContent()).not.toContain('theirs@example.com');
    await expect
      .poll(() => app.locator('#orders s-table-row[data-order="8101"]').textContent(), { timeout: 15_000 })
      .toContain('earned 100 points, pending');
    await page.screenshot({ path: `${shots}3-orders.png` });
  }, 60_000);

  it('shows each view at a laptop’s width and a phone’s, none scrolling sideways', async () => {
    await walkViews({
      page,
      frameOf: () => page.frames().find((frame) => frame !== page.mainFrame())!,
      frameSelector: '#app',
      open: (label) => app.locator('s-app-nav').getByRole('button', { name: label }).click(),
      shots,
    });
  }, 90_000);

  it('sets no cookie a browser blocks in the frame: one partitioned to the control panel, at the load alone', () => {
    // The frame's own secret (a reload of the frame signs in again); the page's session never rides in a cookie.
    expect(cookiesSet).toEqual([
      {
        path: '/bigcommerce/load',
        cookie: expect.stringMatching(/^__Host-loyalty-bridge-frame=[\w-]{43};.*Partitioned/),
      },
    ]);
  });
});
