// Each account's rate budget and load (issue 33), from an attacker's side:
// GET /admin/api/status (accounts), GET /admin/api/accounts (health:
// budgetSpentUntil, lanes), /metrics (loyalty_bridge_account_*{account}), the
// CLI and the dashboard's accounts panel. The bridge is a Shopify app with
// open installs on the real-service path (LOYALTY_BASE_URL, LOYALTY_API_KEY):
// shop L is the operator's (default account); merchants V, X, Y each make an
// account of their own through their shop's session.
//
// What must hold: no caller without ADMIN_TOKEN (none, a wrong one, a forged
// or tampered shop session, a real merchant session, the bridge's shop token)
// reads any account's load; /metrics (public by design, docs/operations.md)
// names accounts by id only, never by name, key or shop, and an outsider
// cannot add label values to it; an account name is text in the dashboard.
//
// Two attacks this review found to work, now refused: an account a merchant
// points at a server of their own with another account's key (or the
// environment's) spent that account's budget, since limiters were chosen by
// key and limit alone (they are chosen by service, key and limit now); and an
// account name a merchant chose reached the operator's terminal with its
// escape sequences (names with control characters are refused, and the CLI
// prints any control character as an escape).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridgeShopTokens } from '../../src/http/bridge-shop-token.ts';
import { modulePagePurpose } from '../../src/http/platform-routes.ts';
import { AccountCalls } from '../../src/accounts/account-calls.ts';
import {
  accountLoads,
  operatorView,
  publicView,
  type AccountLoad,
  type AccountView,
} from '../../src/accounts/account-load.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { emptyLaneCounts } from '../../src/core/lanes.ts';
import { labelledAccounts, MAX_ACCOUNT_LABELS, Metrics } from '../../src/metrics.ts';
import { budgetWorker, fakeAccount, foldOrder } from '../helpers/budget-worker.ts';
import { artifactsDir, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import { printable } from '../../src/cli/common.ts';
import { runCli } from '../helpers/cli-process.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { TEST_SECRETS_KEY } from '../helpers/secrets.ts';
import { shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import {
  APP_KEY,
  APP_SECRET,
  deliverPaidOrders,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { mintSessionToken } from '../helpers/shopify-app-links.ts';

const SHOP_L = 'listed-budgets.myshopify.com';
const SHOP_V = 'victim-budgets.myshopify.com';
const SHOP_X = 'attacker-x-budgets.myshopify.com';
const SHOP_Y = 'attacker-y-budgets.myshopify.com';
const SHOP_Z = 'attacker-z-budgets.myshopify.com';
const SHOP_W = 'watcher-w-budgets.myshopify.com';
const STRANGER = 'stranger-budgets.myshopify.com';
const ADMIN_TOKEN = 'budgets-admin-token-0123456789abcdef';
const OP_KEY = 'operator-environment-key-9f8e7d6c5b4a-OPER';
const KEY_V = 'victim-merchant-secret-key-1a2b3c4d5e6f-VVVV';
const NAME_V = 'Victim Rewards Secret Name';

let fake: FakeShopify;
let running: ShopifyAppBridge;
/** The operator's service (LOYALTY_BASE_URL), the victim's, and one the attackers run themselves. */
let operatorService: TestSandbox;
let victimService: TestSandbox;
let attackerService: TestSandbox;
let attackerServiceX: TestSandbox;
const ids: Record<string, string> = {};

beforeAll(async () => {
  operatorService = await startTestSandbox({ apiKey: OP_KEY, brandId: 'brand-op' });
  victimService = await startTestSandbox({ apiKey: KEY_V, brandId: 'brand-v' });
  // An attacker's own address answers whatever key it is sent: the bridge's credentials check passes.
  attackerService = await startTestSandbox({ apiKey: OP_KEY, brandId: 'brand-x' });
  attackerServiceX = await startTestSandbox({ apiKey: KEY_V, brandId: 'brand-x' });
  fake = await startFakeShopifyForApp();
  for (const shop of [SHOP_L, SHOP_V, SHOP_X, SHOP_Y, SHOP_Z, SHOP_W]) fake.install(shop);
  running = await startShopifyAppBridge(fake, {
    SHOPIFY_SHOPS: SHOP_L,
    SHOPIFY_OPEN_INSTALLS: 'true',
    ADMIN_TOKEN,
    ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
    SECRETS_KEY: TEST_SECRETS_KEY,
    LOYALTY_BASE_URL: operatorService.url,
    LOYALTY_API_KEY: OP_KEY,
    LOYALTY_BRAND_ID: 'brand-op',
    LOYALTY_RATE_LIMIT_PER_MINUTE: '500',
  });
}, 60_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
  await Promise.all(
    [operatorService, victimService, attackerService, attackerServiceX].map((service) => service?.close()),
  );
});

const session = (shop: string, secret = APP_SECRET) => mintSessionToken({ shop, apiKey: APP_KEY, secret });
async function call(bearer: string | undefined, method: string, path: string, body?: unknown) {
  const response = await fetch(`${running.url}${path}`, {
    method,
    headers: {
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = {};
  }
  return { status: response.status, text, body: parsed };
}
const operator = (path: string) => call(ADMIN_TOKEN, 'GET', `/admin/api${path}`);
const healthOf = async (id: string) =>
  ((await operator('/accounts')).body.accounts as any[]).find((each) => each.id === id)?.health;
const metricsText = async () => (await call(undefined, 'GET', '/metrics')).text;
const accountLabels = (text: string) =>
  new Set([...text.matchAll(/^loyalty_bridge_account_\w+\{[^}]*account="([^"]*)"/gm)].map((match) => match[1]));

describe('merchants make their accounts', () => {
  it('V with its own key at its own service; X and Y (attackers) at an address of their own', async () => {
    const made = async (shop: string, body: Record<string, unknown>) => {
      const answer = await call(session(shop), 'POST', '/admin/api/account', body);
      expect([shop, answer.status]).toEqual([shop, 201]);
      return answer.body.account.id as string;
    };
    ids.v = await made(SHOP_V, { name: NAME_V, baseUrl: victimService.url, apiKey: KEY_V, brandId: 'brand-v' });
    // X has learnt V's key (and guesses the usual limit, 500); Y uses the operator's environment key.
    ids.x = await made(SHOP_X, { name: 'X', baseUrl: attackerServiceX.url, apiKey: KEY_V, brandId: 'brand-x' });
    ids.y = await made(SHOP_Y, {
      name: 'Y',
      baseUrl: attackerService.url,
      apiKey: OP_KEY,
      brandId: 'brand-x',
      rateLimitPerMinute: 500,
    });
  });
});

describe('account loads without the operator’s token', () => {
  const paths = () => ['/admin/api/status', '/admin/api/accounts', `/admin/api/accounts/${ids.v}`];
  const secretsOf = () => [ids.v!, NAME_V, 'budgetSpentUntil', 'callsLastMinute', '"lanes"', OP_KEY, KEY_V];

  it('no token, a wrong one, or the token with something after it: 401, nothing of any account', async () => {
    for (const bearer of [undefined, 'nope', `${ADMIN_TOKEN}x`, ADMIN_TOKEN.slice(0, -1), `Basic ${ADMIN_TOKEN}`]) {
      for (const path of paths()) {
        const answer = await call(bearer, 'GET', path);
        expect([path, bearer, answer.status]).toEqual([path, bearer, 401]);
        for (const secret of secretsOf()) expect(answer.text).not.toContain(secret);
      }
    }
  });

  it('a session token signed with another secret, or a shop token tampered to name another shop: 401', async () => {
    const minted = bridgeShopTokens([APP_SECRET], Date.now, modulePagePurpose('shopify')).mint(SHOP_X);
    const [prefix, , mac] = minted.split('.');
    const payload = Buffer.from(JSON.stringify({ shop: SHOP_V, exp: Date.now() + 60_000 })).toString('base64url');
    const forged = [
      session(SHOP_V, 'not-the-client-secret-at-all-0000'),
      `${prefix}.${payload}.${mac}`,
      bridgeShopTokens(['not-the-client-secret-at-all-0000'], Date.now, modulePagePurpose('shopify')).mint(SHOP_V),
    ];
    for (const bearer of forged) {
      for (const path of [...paths(), '/admin/api/account']) {
        const answer = await call(bearer, 'GET', path);
        expect([path, answer.status]).toEqual([path, 401]);
        for (const secret of secretsOf()) expect(answer.text).not.toContain(secret);
      }
    }
  });

  it('a merchant’s own session and the bridge’s shop token reach no account’s load, not even their own', async () => {
    for (const bearer of [
      session(SHOP_X),
      bridgeShopTokens([APP_SECRET], Date.now, modulePagePurpose('shopify')).mint(SHOP_X),
      session(SHOP_L),
    ]) {
      for (const path of [...paths(), `/admin/api/accounts/${ids.x}`, '/admin/api/accounts/default']) {
        const answer = await call(bearer, 'GET', path);
        expect([path, answer.status]).toEqual([path, 403]);
        for (const secret of secretsOf()) expect(answer.text).not.toContain(secret);
      }
    }
  });

  it('a shop’s own account answer holds no health, budget, lanes or calls: no oracle for a key in use', async () => {
    for (const shop of [SHOP_X, SHOP_Y]) {
      const answer = await call(session(shop), 'GET', '/admin/api/account');
      expect(answer.status).toBe(200);
      expect(answer.body.account.id).toBe(shop === SHOP_X ? ids.x : ids.y);
      for (const word of ['health', 'budgetSpentUntil', 'callsLastMinute', 'limitPerMinute', 'lanes', ids.v!, NAME_V])
        expect(answer.text).not.toContain(word);
      expect(answer.text).not.toContain(KEY_V);
      expect(answer.text).not.toContain(OP_KEY);
    }
  });

  it('the operator, with the token, sees each account’s load (the door is the token, not the route)', async () => {
    const status = await operator('/status');
    expect(status.status).toBe(200);
    expect((status.body.accounts as AccountLoad[]).map((each) => each.id)).toEqual(
      expect.arrayContaining(['default', ids.v, ids.x, ids.y]),
    );
    expect(await healthOf(ids.v!)).toMatchObject({ budgetSpentUntil: null, lanes: expect.any(Object) });
  });
});

describe('/metrics (scraped without credentials, by design)', () => {
  it('labels accounts by id alone: no name, key, key digest, brand or shop', async () => {
    const text = await metricsText();
    expect(accountLabels(text)).toEqual(new Set(['default', ids.v, ids.x, ids.y]));
    const { createHash } = await import('node:crypto');
    for (const secret of [
      NAME_V,
      KEY_V,
      OP_KEY,
      KEY_V.slice(-4),
      createHash('sha256').update(KEY_V).digest('hex').slice(0, 24),
      'brand-v',
      SHOP_V,
      SHOP_X,
      victimService.url,
    ])
      expect(text).not.toContain(secret);
  });

  it('an outsider adds no account label: webhooks of a stranger shop (well or badly signed), a 4th account of one shop', async () => {
    const before = accountLabels(await metricsText());
    for (const secret of [APP_SECRET, 'a-secret-of-the-attackers-own-0000']) {
      const body = shopifyOrderJson({ id: '99001' });
      await fetch(`${running.url}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic: 'orders/paid', body, shop: STRANGER, secret }),
        body,
      });
    }
    // A session for a shop the bridge does not serve makes nothing; a merchant makes at most 3 accounts.
    const stranger = await call(session(STRANGER), 'POST', '/admin/api/account', {
      name: 'S',
      baseUrl: attackerService.url,
      apiKey: 'stranger-key-0000000000000000',
      brandId: 'b',
    });
    expect(stranger.status).not.toBe(201);
    let last = 0;
    for (let n = 0; n < 4; n++) {
      last = (
        await call(session(SHOP_Z), 'POST', '/admin/api/account', {
          name: `Z${n}`,
          baseUrl: attackerService.url,
          apiKey: `z-key-${n}-0000000000000000`,
          brandId: 'b',
        })
      ).status;
    }
    expect(last).toBe(409);
    // Only Z's own accounts (3 at most) were added, none for the stranger (a scrape reads accounts once a second).
    let after = before;
    await eventually(async () => {
      after = accountLabels(await metricsText());
      if (after.size === before.size) throw new Error('Z’s accounts are not labelled yet');
    });
    expect(after.size - before.size).toBe(3);
    for (const label of after) expect(label).toMatch(/^(default|other|[0-9a-f-]{36})$/);
  });

  it('caps account labels at MAX_ACCOUNT_LABELS, the rest summed as "other"', () => {
    const loads: AccountLoad[] = Array.from({ length: 1000 }, (_, n) => ({
      id: `acc-${n}`,
      name: `<name ${n}>`,
      callsLastMinute: 1,
      limitPerMinute: 10,
      budgetSpentUntil: null,
      budgetSpentSince: null,
      lanes: emptyLaneCounts(),
      pausedRules: [],
    }));
    const labelled = labelledAccounts(loads);
    expect(labelled).toHaveLength(MAX_ACCOUNT_LABELS);
    expect(labelled.at(-1)).toMatchObject({ id: 'other', callsLastMinute: 1000 - MAX_ACCOUNT_LABELS + 1 });
  });
});

describe('rate budgets across accounts', () => {
  it('does not let an account with another account’s key, at an address of its own, spend that account’s budget', async () => {
    // X's orders go to X's own service with V's key, Y's with the environment's key: each is counted in a
    // limiter of its own (service, key and limit), not in V's or the default account's.
    const before = { v: (await healthOf(ids.v!)).callsLastMinute, d: (await healthOf('default')).callsLastMinute };
    await deliverPaidOrders(running, [
      [SHOP_X, '71001'],
      [SHOP_X, '71002'],
      [SHOP_Y, '72001'],
      [SHOP_Y, '72002'],
    ]);
    await running.bridge.engine.drain();
    await eventually(async () => {
      const earned =
        attackerService.store.snapshot().earnings.length + attackerServiceX.store.snapshot().earnings.length;
      if (earned < 4) throw new Error('the attackers’ earns are not in');
    });
    expect(victimService.store.snapshot().earnings).toEqual([]);
    expect(operatorService.store.snapshot().earnings).toEqual([]);
    const [v, x, y, d] = await Promise.all([ids.v!, ids.x!, ids.y!, 'default'].map(healthOf));
    expect(x.callsLastMinute).toBeGreaterThan(0);
    expect(y.callsLastMinute).toBeGreaterThan(0);
    // The victim's and the operator's budgets did not move with the attackers' calls.
    expect(v.callsLastMinute).toBe(before.v);
    expect(d.callsLastMinute).toBe(before.d);
    // Limiters of their own, not merely different counts.
    const runtime = (id: string) => running.bridge.engine.accounts.runtime(id);
    const limiter = async (id: string) => ((await runtime(id)) as any)?.client?.limiter;
    expect(await limiter(ids.x!)).not.toBe(await limiter(ids.v!));
    expect(await limiter(ids.y!)).not.toBe(await limiter('default'));
  });
});

describe('an account’s calls, on its merchant’s page', () => {
  const usage = (shop: string) => call(session(shop), 'GET', '/admin/api/account/usage');

  it('counts the account’s own calls, never another account’s on the same key, service and limiter', async () => {
    // W types the same service, key and limit as X: one limiter counts both (its figures would tell W of X's calls).
    const made = await call(session(SHOP_W), 'POST', '/admin/api/account', {
      name: 'W',
      baseUrl: attackerServiceX.url,
      apiKey: KEY_V,
      brandId: 'brand-x',
    });
    expect(made.status).toBe(201);
    const idW = made.body.account.id as string;
    const limiter = async (id: string) =>
      ((await running.bridge.engine.accounts.runtime(id)) as any)?.client?.limiter as
        { stats(): { startedInWindow: number } } | undefined;
    expect(await limiter(idW)).toBe(await limiter(ids.x!));
    // /metrics is scraped without credentials, and W knows its account's id.
    const wOnMetrics = async () =>
      new RegExp(`loyalty_bridge_account_calls_last_minute\\{account="${idW}"\\} (\\d+)`).exec(
        await metricsText(),
      )?.[1];
    // A scrape reads the accounts once a second: W's line comes with the next read.
    let wBefore: string | undefined;
    await eventually(async () => expect((wBefore = await wOnMetrics())).toEqual(expect.any(String)));
    const before = {
      w: (await usage(SHOP_W)).body,
      x: (await usage(SHOP_X)).body,
      shared: (await limiter(idW))!.stats(),
      wOnMetrics: wBefore,
    };
    await deliverPaidOrders(running, [
      [SHOP_X, '71003'],
      [SHOP_X, '71004'],
    ]);
    await running.bridge.engine.drain();
    await eventually(() => {
      const earned = attackerServiceX.store.snapshot().earnings.map((each) => each.orderId);
      expect(earned).toEqual(expect.arrayContaining(['71003', '71004']));
    });
    const after = { w: (await usage(SHOP_W)).body, x: (await usage(SHOP_X)).body };
    // The shared limiter moved with X's calls; W's page did not.
    expect((await limiter(idW))!.stats().startedInWindow).toBeGreaterThan(before.shared.startedInWindow);
    expect(after.x.callsInLastMinute).toBeGreaterThanOrEqual(before.x.callsInLastMinute + 2);
    expect(after.w).toEqual({
      account: idW,
      callsInLastMinute: before.w.callsInLastMinute,
      allowedPerMinute: 500,
      // What the bridge sends of W's own limit at most: the whole of its page's bar.
      sentPerMinute: expect.any(Number),
      // The same in words: W's own calls, against W's own limit.
      words: expect.stringMatching(
        new RegExp(`^${before.w.callsInLastMinute} calls? in the last minute, of \\d+: \\d+ of the 500 calls`),
      ),
    });
    // Nor did W's line on /metrics (it showed the shared limiter's count before), a second on, read afresh.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await wOnMetrics()).toBe(before.wOnMetrics);
  });

  it('on /metrics, shows an account’s budget spent only where its own orders found it so, not another’s on the same key', async () => {
    const store = new LowdbStore({ dataDir: tempDataDir() });
    await store.open();
    // X and W share one budget (the same service, key and limit), spent; W has no shop and never calls.
    const spent = () => ({ spent: true as const, until: Date.now() + 20_000 });
    const X = fakeAccount('x-account', [], { reserveCall: spent, budgetId: 'one-key' });
    const W = fakeAccount('w-account', [], { reserveCall: spent, budgetId: 'one-key' });
    const { worker, stop } = budgetWorker(store, [X, W], { 'shop-x': 'x-account' });
    try {
      await foldOrder(store, 'live', 'shop-x');
      worker.start();
      await eventually(() => expect(worker.spentAccounts.has('x-account')).toBe(true));
      // X's return is the budget's, as the operator reads it; W has none.
      expect(worker.spentAccounts.get('x-account')).toBe(worker.spentBudgets.get('one-key'));
      expect(worker.spentAccounts.has('w-account')).toBe(false);
      const accounts = { all: async () => [X, W], forShop: async () => undefined };
      const shown = async (view: AccountView) => {
        const metrics = new Metrics();
        metrics.bind({ accounts: () => accountLoads({ accounts, store, view }) });
        return metrics.registry.metrics();
      };
      const scraped = await shown(publicView(() => worker.spentAccounts, new AccountCalls()));
      expect(scraped).toContain('loyalty_bridge_account_budget_spent{account="x-account"} 1');
      expect(scraped).toContain('loyalty_bridge_account_budget_spent{account="w-account"} 0');
      // The operator, behind the admin token, sees the budget: spent for both.
      const operators = await shown(operatorView(() => worker.spentBudgets));
      expect(operators).toContain('loyalty_bridge_account_budget_spent{account="w-account"} 1');
    } finally {
      await stop();
      await store.close();
    }
  });

  it('is the operator’s to watch on the operator’s account: a shop on it is told no', async () => {
    const answer = await usage(SHOP_L);
    expect(answer.status).toBe(403);
    for (const secret of [OP_KEY, 'callsInLastMinute']) expect(answer.text).not.toContain(secret);
  });
});

describe('an account name a merchant chooses', () => {
  const HOSTILE = 'Evil <img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
  const ESCAPES = 'Y\u001b[2K\r\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007';

  it('never reaches the operator’s terminal with control characters (refused; and the CLI escapes any)', async () => {
    const renamed = await call(session(SHOP_Y), 'PATCH', '/admin/api/account', { name: ESCAPES });
    expect(renamed.status).toBe(400);
    expect(JSON.stringify(renamed.body)).toContain('name: must hold no control characters');
    const cli = (args: string[]) => runCli([...args, '--url', running.url, '--token', ADMIN_TOKEN], {});
    const status = await cli(['status']);
    expect(status.code).toBe(0);
    const list = await cli(['accounts', 'list']);
    expect(list.code).toBe(0);
    for (const output of [status.stdout, list.stdout]) expect(output.replaceAll('\n', '')).not.toMatch(/\p{Cc}/u);
    // A name from before the refusal (or any text from elsewhere) is printed as escapes, not acted on.
    expect(printable(ESCAPES)).toBe('Y\\u001b[2K\\u000d\\u001b]8;;https://evil.example\\u0007click\\u001b]8;;\\u0007');
  });

  it.skipIf(!chromiumAvailable)(
    'is text in the dashboard’s accounts panel: no markup, no script',
    async () => {
      expect((await call(session(SHOP_V), 'PATCH', '/admin/api/account', { name: HOSTILE })).status).toBe(200);
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
        await page.goto(`${running.url}/admin`);
        await page.fill('#token', ADMIN_TOKEN);
        await page.click('#sign-in-form button');
        await page.waitForSelector('#app:not([hidden])');
        const card = page.locator('#account-list .card', { hasText: 'Evil <img' });
        await card.waitFor({ timeout: 15_000 });
        await page.screenshot({ path: `${artifactsDir('account-budgets')}hostile-name.png`, fullPage: true });
        expect(await card.textContent()).toContain('<script>window.__xss=2</script>');
        expect(await page.locator('#account-list img, #account-list script').count()).toBe(0);
        expect(await page.locator('#shop-accounts img, #shop-accounts script').count()).toBe(0);
        expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
