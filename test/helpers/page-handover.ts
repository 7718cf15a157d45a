// Login CSRF on a merchant's page outside the Shopify admin (issue 46, item
// 5), as the browser tests play it: an attacker's tab signs in to their own
// shop's page, and this follows what it went through (every address, and the
// session its page sends), to hand to a victim's browser. The victim's
// browser then tries to set up on what it was handed, and the tests look at
// what the bridge answered it.
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { expect } from 'vitest';

/** What the attacker's browser went through to their page: every address, and the session their page sent. */
export interface Taken {
  addresses: string[];
  session: string;
}

/** Follows a tab: the addresses it was sent to (a redirect's Location, fragment and all), and the bearer its page sends. */
export function watch(page: Page): Taken {
  const taken: Taken = { addresses: [], session: '' };
  page.on('response', (response) => {
    const location = response.headers()['location'];
    if (location) taken.addresses.push(new URL(location, response.url()).href);
  });
  page.on('request', (request) => {
    const bearer = /^Bearer (\S+)$/.exec(request.headers()['authorization'] ?? '')?.[1];
    if (bearer && new URL(request.url()).pathname.startsWith('/admin/api/')) taken.session = bearer;
  });
  return taken;
}

/** The admin API's answers to a context's pages (framed ones included): one 2xx would be the attacker's shop answering. */
export function apiAnswers(context: BrowserContext): number[] {
  const statuses: number[] = [];
  context.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/admin/api/')) statuses.push(response.status());
  });
  return statuses;
}

/**
 * The victim tries to set up on the merchant's page they were handed: the
 * nav's Set up, as a merchant would. The page says it is not signed in, and
 * offers nothing to set up with. A plain page (a refusal) has no nav.
 */
export async function trySettingUp(page: Page | Frame): Promise<void> {
  const nav = page.locator('s-app-nav');
  if ((await nav.count()) === 0) return;
  await nav.getByRole('button', { name: 'Set up' }).click();
  await page.locator('#notice', { hasText: 'This page is not signed in' }).waitFor({ timeout: 15_000 });
  expect(await page.locator('#account-form').isHidden()).toBe(true);
  expect(await page.locator('#sandbox-choice').isHidden()).toBe(true);
}

/** The page's words, framed or not. */
export const pageText = async (page: Page | Frame) => (await page.locator('body').innerText()).replace(/\s+/g, ' ');
