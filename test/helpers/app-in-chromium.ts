// A browser test's world for the Shopify app outside the admin: one fake Shopify, one bridge and one Chromium for
// the file, started before its tests (after `prepare` has given the bridge its orders) and stopped after; and the
// merchant's page opened on one of its tabs.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { SHOPIFY_APP_URL_PATH } from '../../adapters/shopify/paths.ts';
import { launchChromium } from './browser.ts';
import type { FakeShopify } from './fake-shopify.ts';
import {
  APP_SECRET,
  CHROME_UA,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from './shopify-app-bridge.ts';
import { appUrlQuery } from './shopify-app-links.ts';

export interface AppInChromium {
  fake: FakeShopify;
  running: ShopifyAppBridge;
  browser: Browser;
}

export function appInChromium(
  env: Record<string, string>,
  prepare: (running: ShopifyAppBridge) => Promise<void>,
): AppInChromium {
  const world = {} as Partial<AppInChromium>;
  beforeAll(async () => {
    world.fake = await startFakeShopifyForApp();
    world.running = await startShopifyAppBridge(world.fake, env);
    await prepare(world.running);
    world.browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    try {
      await world.browser?.close();
      await world.running?.stop();
    } finally {
      await stopFakeShopifyForApp(world.fake);
    }
  });
  return world as AppInChromium;
}

/** The merchant's page of `shop`, opened from the app's URL as Shopify links it, on the tab named `tab`. */
export async function merchantTab({ browser, running }: AppInChromium, shop: string, tab: string): Promise<Page> {
  const page = await browser.newPage({ userAgent: CHROME_UA, viewport: { width: 1280, height: 1000 } });
  await page.goto(`${running.url}${SHOPIFY_APP_URL_PATH}?${appUrlQuery({ shop, secret: APP_SECRET })}`);
  await page.waitForURL(`${running.url}/shopify/store`);
  await page.locator('s-app-nav').getByRole('button', { name: tab }).click();
  return page;
}
