// The operator's dashboard as a bridge of many tenants shows it, in Debian's Chromium: fifty loyalty accounts and
// two hundred connected stores, each linked to one of them, and more orders than a page holds. What an operator
// notices: each long list shows a page with its count and moves to the next, typing in its search box narrows it,
// the accounts' cards keep their width, no date wraps, and at a phone's width nothing scrolls the page sideways.
// Then a first run: no red line on the page, and the demo banner goes once a store of the merchant's own connects.
// Screenshots at 1,400 and 390 px go to test-artifacts/dashboard-many-tenants/ (not in git).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WooConnection } from '../../adapters/woocommerce/stores.ts';
import { wooShopOf } from '../../adapters/woocommerce/shop-identity.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { startFirstRunBridge, startTestBridge } from '../helpers/bridge.ts';
import {
  artifactsDir,
  cellsOutOfSight,
  CHROMIUM,
  chromiumAvailable,
  launchChromium,
  signInToDashboard,
} from '../helpers/browser.ts';
import { SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const TOKEN = 'dashboard-many-tenants-token-0123456789';
const ACCOUNTS = 49; // and the environment's own: fifty
const STORES = 200;
const ORDERS = 30;
const DESK = { width: 1400, height: 900 };
const PHONE = { width: 390, height: 844 };

if (!chromiumAvailable) console.warn(`many-tenants dashboard test skipped: no Chromium at ${CHROMIUM}`);

const pad = (n: number) => String(n).padStart(3, '0');

/** A WooCommerce store as its connect leaves it in the ledger (key-callback.ts), its keys made up. */
async function connectStore(store: LedgerStore, n: number): Promise<string> {
  const url = `https://store-${pad(n)}.example`;
  const shop = wooShopOf(url);
  const at = new Date(Date.UTC(2026, 10, 1 + (n % 28), 9, n % 60)).toISOString();
  await store.putRecord(raw<WooConnection>('session'), `woocommerce:${shop}`, {
    platform: 'woocommerce',
    shop,
    url,
    consumerKey: `ck_many_${pad(n)}`,
    consumerSecret: `cs_many_${pad(n)}`,
    keyId: n,
    keyPermissions: 'read_write',
    webhookSecret: `many-tenants-webhook-secret-${pad(n)}`,
    connectedAt: at,
    updatedAt: at,
  });
  return shop;
}

/** What the operator would see wrong with the page's shape: sideways scroll, wrapped dates, squeezed values. */
async function shape(page: Page) {
  // Run in the page (a string: the tests are typed without the DOM's names).
  return page.evaluate<{
    scrollWidth: number;
    innerWidth: number;
    wrappedDates: string[];
    dates: number;
    narrowestValue: number;
    cardWidth: number;
    panelWidth: number;
  }>(`(() => {
    const shown = (each) => each.offsetParent !== null;
    const dates = [...document.querySelectorAll('time.when')].filter(shown);
    const values = [...document.querySelectorAll('#account-list .card dd')].filter(shown);
    const panel = document.querySelector('#accounts');
    const style = getComputedStyle(panel);
    return {
      scrollWidth: document.scrollingElement.scrollWidth,
      innerWidth: window.innerWidth,
      // A date that wraps is drawn as more than one box.
      wrappedDates: dates.filter((each) => each.getClientRects().length > 1).map((each) => each.textContent),
      dates: dates.length,
      narrowestValue: Math.min(...values.map((each) => each.getBoundingClientRect().width)),
      cardWidth: document.querySelector('#account-list .card').getBoundingClientRect().width,
      panelWidth: panel.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
    };
  })()`);
}

describe.skipIf(!chromiumAvailable)('the dashboard with fifty accounts and two hundred stores', () => {
  let bridge: RunningBridge;
  let browser: Browser;
  let page: Page;
  const shots = artifactsDir('dashboard-many-tenants');
  const admin = (path: string, body?: unknown) =>
    fetch(`${bridge.http.localUrl}/admin/api${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  beforeAll(async () => {
    bridge = await startTestBridge({
      ADMIN_TOKEN: TOKEN,
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      RECONCILE_INTERVAL_MINUTES: '0',
    });
    const ids: string[] = [];
    for (let n = 1; n <= ACCOUNTS; n++) {
      const made = await admin('/accounts', { sandbox: true, name: `Club ${pad(n)}` });
      expect(made.status).toBe(201);
      ids.push(((await made.json()) as { account: { id: string } }).account.id);
    }
    for (let n = 1; n <= STORES; n++) {
      const shop = await connectStore(bridge.engine.store, n);
      await bridge.accounts.link({ platform: 'woocommerce', shop }, ids[(n - 1) % ACCOUNTS]!, 'test');
    }
    for (let n = 1; n <= ORDERS; n++) {
      const body = shopifyOrderJson({ id: String(5580000000000 + n), email: `many.${n}@example.com` });
      await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic: 'orders/paid', body }),
        body,
      });
    }
    await bridge.engine.drain();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: DESK });
    await signInToDashboard(page, bridge.http.localUrl, TOKEN);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.stop();
  });

  const count = (nav: string) => page.locator(`${nav} .count`).textContent();

  it('shows five accounts at a time with their count, moves to the next five, and narrows to the one searched for', async () => {
    const total = ((await (await admin('/accounts')).json()) as { accounts: unknown[] }).accounts.length;
    expect(total).toBe(ACCOUNTS + 1);
    await expect.poll(() => count('#account-pages'), { timeout: 15_000 }).toBe(`1–5 of ${total}`);
    expect(await page.locator('#account-list .card').count()).toBe(5);
    const firstPage = await page.locator('#account-list .card h3').allTextContents();
    await page.locator('#account-pages button', { hasText: 'Next' }).click();
    await expect.poll(() => count('#account-pages')).toBe(`6–10 of ${total}`);
    const secondPage = await page.locator('#account-list .card h3').allTextContents();
    expect(secondPage).toHaveLength(5);
    expect(secondPage.filter((name) => firstPage.includes(name))).toEqual([]);
    // The page the operator moved to stays through the dashboard's refreshes.
    await page.locator('#account-list .card').first().waitFor();
    const drawn = await page.locator('#account-list .card').first().elementHandle();
    await page.waitForFunction((card) => !card?.isConnected, drawn, { timeout: 15_000 });
    expect(await count('#account-pages')).toBe(`6–10 of ${total}`);

    await page.fill('#account-search', 'Club 007');
    await expect.poll(() => page.locator('#account-list .card h3').allTextContents()).toEqual(['Club 007']);
    expect(await count('#account-pages')).toBe('1–1 of 1');
    // A shop's name finds the account it earns on: store 8 earns on the eighth club.
    await page.fill('#account-search', 'store-008.example');
    await expect.poll(() => page.locator('#account-list .card h3').allTextContents()).toEqual(['Club 008']);
    await page.fill('#account-search', 'no such club');
    await expect.poll(() => count('#account-pages')).toBe(`none of ${total} match`);
    expect(await page.locator('#account-list .card').count()).toBe(0);
    await page.fill('#account-search', '');
    await expect.poll(() => count('#account-pages')).toBe(`1–5 of ${total}`);
  });

  it('pages the shops and the stores twenty-five at a time, and filters them by the shop’s name', async () => {
    const shops = ((await (await admin('/shops')).json()) as { shops: unknown[] }).shops.length;
    expect(shops).toBeGreaterThanOrEqual(STORES);
    await expect.poll(() => count('#shop-pages'), { timeout: 15_000 }).toBe(`1–25 of ${shops}`);
    expect(await page.locator('#shop-accounts tbody tr').count()).toBe(25);
    await page.locator('#shop-pages button', { hasText: 'Next' }).click();
    await expect.poll(() => count('#shop-pages')).toBe(`26–50 of ${shops}`);
    await page.fill('#shop-search', 'store-123');
    await expect.poll(() => page.locator('#shop-accounts tbody tr').count()).toBe(1);
    expect(await page.locator('#shop-accounts tbody tr').textContent()).toMatch(/store-123\.example.*Club 025/);
    expect(await count('#shop-pages')).toBe('1–1 of 1');
    await page.fill('#shop-search', '');

    await expect.poll(() => count('#store-pages'), { timeout: 15_000 }).toBe(`1–25 of ${STORES}`);
    expect(await page.locator('#store-list tbody tr').count()).toBe(25);
    await page.fill('#store-search', 'store-19');
    await expect.poll(() => count('#store-pages')).toBe('1–10 of 10');
    expect(await page.locator('#store-list tbody tr').allTextContents()).toEqual(
      Array.from({ length: 10 }, (_, i) => expect.stringContaining(`store-19${i}.example`)),
    );
    await page.fill('#store-search', '');
  });

  it('pages the orders as the admin API pages them', async () => {
    await expect.poll(() => count('#order-pages'), { timeout: 15_000 }).toBe(`1–25 of ${ORDERS}`);
    await page.locator('#order-pages button', { hasText: 'Next' }).click();
    await expect.poll(() => count('#order-pages')).toBe(`26–${ORDERS} of ${ORDERS}`);
    expect(await page.locator('#order-list tbody tr').count()).toBe(ORDERS - 25);
    // A search starts again from its first page.
    await page.fill('#order-search', 'many.7@');
    await expect.poll(() => count('#order-pages')).toBe('1–1 of 1');
    await page.fill('#order-search', '');
    await expect.poll(() => count('#order-pages')).toBe(`1–25 of ${ORDERS}`);
  });

  for (const [name, viewport] of [
    ['1400', DESK],
    ['390', PHONE],
  ] as const) {
    it(`holds together at ${viewport.width} px: no sideways scroll, every cell in sight, dates on one line, cards at the panel's width`, async () => {
      await page.setViewportSize(viewport);
      await page.locator('#account-list .card').first().waitFor();
      const seen = await shape(page);
      expect(seen.scrollWidth).toBeLessThanOrEqual(seen.innerWidth);
      // Connections, orders, stores: many dates, none of them wrapped.
      expect(seen.dates).toBeGreaterThan(25);
      expect(seen.wrappedDates).toEqual([]);
      // An account's card is the panel's width, and no value in it is squeezed to a few letters.
      expect(seen.cardWidth).toBeGreaterThan(seen.panelWidth * 0.95);
      expect(seen.narrowestValue).toBeGreaterThan(120);
      // Every table's cells in sight: on a phone each row is a card, not a table scrolled inside its box.
      expect(await cellsOutOfSight(page)).toEqual([]);
      await page.screenshot({ path: `${shots}dashboard-${name}.png`, fullPage: true });
      await page.locator('#accounts').screenshot({ path: `${shots}accounts-${name}.png` });
      await page.locator('#stores').screenshot({ path: `${shots}stores-${name}.png` });
      // A phone's page of cards is long: its full-page picture takes a while on a loaded machine.
    }, 60_000);
  }
});

describe.skipIf(!chromiumAvailable)('a first run’s dashboard', () => {
  let bridge: RunningBridge;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    bridge = await startFirstRunBridge();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: DESK });
    await page.goto(bridge.signInUrl!);
    await page.waitForSelector('#app:not([hidden])');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.stop();
  });

  it('shows no red line: what is still to set up reads as a step, not an error', async () => {
    await expect.poll(() => page.locator('#order-list tbody tr').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    // The connect form says what to set before a store can connect, in plain colours.
    await expect.poll(() => page.locator('.connect .note:not([hidden])').count()).toBeGreaterThan(0);
    expect(await page.locator('.connect .note').first().textContent()).toMatch(
      /^Before a store can connect: .*PUBLIC_URL/,
    );
    const red = await page.evaluate<string[]>(`(() => {
      const RED = 'rgb(176, 0, 32)';
      return [...document.querySelectorAll('body *')]
        .filter((each) => each.offsetParent !== null && each.tagName !== 'BUTTON' && each.textContent.trim())
        .filter((each) => {
          const style = getComputedStyle(each);
          return style.color === RED || style.backgroundColor === RED;
        })
        .map((each) => each.textContent.trim());
    })()`);
    expect(red).toEqual([]);
    await page.screenshot({ path: `${artifactsDir('dashboard-many-tenants')}first-run.png`, fullPage: true });
  });

  it('takes the demo banner away once a store of the merchant’s own is connected, as the demo stops', async () => {
    await expect.poll(() => page.isVisible('#demo-banner')).toBe(true);
    // What a store's connect leaves (its keys saved, then the bridge told), done here without WordPress.
    const shop = await connectStore(bridge.engine.store, 1);
    bridge.platforms.onStoreConnected?.('woocommerce', shop);
    await expect.poll(() => page.isVisible('#demo-banner'), { timeout: 15_000 }).toBe(false);
    expect(await page.isVisible('#mode')).toBe(true);
    expect(await page.textContent('#mode')).toBe('sandbox');
  });
});
