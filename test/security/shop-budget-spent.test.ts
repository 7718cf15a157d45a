// A rate budget spent for long, on the merchant's Home (GET /admin/api/attention, "budget_spent"). Two merchants
// who type the same service, key and limit share one limiter, so one budget: what one of them spends must not show
// on the other's Home, as it does not on /metrics or the account's usage (account-budgets.test.ts). Found in
// review: Home read the budget's spent run (the operator's view), so W, who never called, was told "Your loyalty
// account has used every call ... for 5 minutes" while X's orders spent the budget: a window on X's traffic.
//
// Three minutes of a real spent budget is too long for a test: the worker is given the state it would have after
// X's orders found the shared budget spent for five minutes (the budget spent since then; X's own orders found it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import {
  APP_KEY,
  APP_SECRET,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { mintSessionToken } from '../helpers/shopify-app-links.ts';

const SHOP_X = 'spender-x-budget.myshopify.com';
const SHOP_W = 'watcher-w-budget.myshopify.com';
const KEY = 'one-key-two-merchants-0123456789abcdef';

let fake: FakeShopify;
let service: TestSandbox;
let running: ShopifyAppBridge;

beforeAll(async () => {
  service = await startTestSandbox({ apiKey: KEY, brandId: 'brand-shared' });
  fake = await startFakeShopifyForApp();
  for (const shop of [SHOP_X, SHOP_W]) fake.install(shop);
  running = await startShopifyAppBridge(fake, {
    SHOPIFY_SHOPS: '',
    SHOPIFY_OPEN_INSTALLS: 'true',
    ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
  });
}, 60_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
  await service?.close();
});

async function call(shop: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${running.url}/admin/api${path}`, {
    method,
    headers: {
      authorization: `Bearer ${mintSessionToken({ shop, apiKey: APP_KEY, secret: APP_SECRET })}`,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('a budget spent for long, on the merchant’s Home', () => {
  it('shows on the Home of the account whose orders spent it, never on another’s on the same budget', async () => {
    const made = async (shop: string) => {
      const answer = await call(shop, 'POST', '/account', {
        name: shop,
        baseUrl: service.url,
        apiKey: KEY,
        brandId: 'brand-shared',
      });
      expect([shop, answer.status]).toEqual([shop, 201]);
      return answer.body.account.id as string;
    };
    const idX = await made(SHOP_X);
    const idW = await made(SHOP_W);
    const { engine } = running.bridge;
    const [x, w] = await Promise.all([engine.accounts.runtime(idX), engine.accounts.runtime(idW)]);
    // One limiter, one budget.
    expect(x?.budgetId).toBeDefined();
    expect(w?.budgetId).toBe(x?.budgetId);
    const now = Date.now();
    Object.defineProperty(engine.worker, 'spentBudgetsSince', {
      configurable: true,
      get: () => new Map([[x!.budgetId!, now - 5 * 60_000]]),
    });
    Object.defineProperty(engine.worker, 'spentBudgets', {
      configurable: true,
      get: () => new Map([[x!.budgetId!, now + 20_000]]),
    });
    Object.defineProperty(engine.worker, 'spentAccounts', {
      configurable: true,
      get: () => new Map([[idX, now + 20_000]]),
    });
    const kinds = async (shop: string) =>
      ((await call(shop, 'GET', '/attention')).body.attention as Array<{ kind: string }>).map((item) => item.kind);
    // X's own orders found it spent: X is told, with how long.
    expect(await kinds(SHOP_X)).toContain('budget_spent');
    // W never called: nothing of X's calls reaches W's Home.
    expect(await kinds(SHOP_W)).not.toContain('budget_spent');
  });
});
