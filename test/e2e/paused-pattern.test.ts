// A saved pattern that RE2 cannot run (an earlier release ran patterns on
// JavaScript's engine, and took lookaround): the bridge starts, that rule
// alone is off until the setting is fixed, and the operator (the account's
// card, status) and the merchant (Home) each read which rule and why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAVED_PATTERN, saveEarlierPattern } from '../helpers/saved-pattern.ts';
import { runCli } from '../helpers/cli-process.ts';
import { shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import {
  APP_SECRET,
  asOperator,
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';

const SHOP = 'paused-pattern.myshopify.com';
const ADMIN_TOKEN = 'paused-pattern-admin-token-0123456789';

let fake: FakeShopify;
let running: ShopifyAppBridge;
let account = '';

const admin = asOperator(() => running, ADMIN_TOKEN);

async function paidOrder(id: string, code: string, topic = 'orders/paid'): Promise<void> {
  const body = shopifyOrderJson({
    id,
    discountCodes: [{ code, amount: '5.00', type: 'fixed_amount' }],
    ...(topic === 'orders/fulfilled' ? { fulfillmentStatus: 'fulfilled' } : {}),
  });
  const headers = shopifyHeaders({ topic, body, shop: SHOP, secret: APP_SECRET });
  expect((await fetch(`${running.url}/webhooks/shopify`, { method: 'POST', headers, body })).status).toBe(200);
  await running.bridge.engine.drain();
}

/** Points spent on the service (a redemption names its customer, not its order: this file's orders alone spend). */
const redeemed = () => running.bridge.sandbox!.store.snapshot().redemptions.map((each) => each.points);

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  fake.install(SHOP);
  // The account's service is the bridge's own sandbox, on this machine.
  running = await startShopifyAppBridge(fake, {
    SHOPIFY_SHOPS: SHOP,
    ADMIN_TOKEN,
    ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
  });
  // The merchant's program on the sandbox's own account (its service, key and brand).
  const { apiKey, brandId } = running.bridge.sandbox!.accounts[0]!.credentials;
  const made = await admin('POST', '/accounts', {
    name: 'Merchant’s program',
    baseUrl: running.bridge.loyaltyBaseUrl,
    apiKey,
    brandId,
    settings: { REDEEM_POINTS_PER_UNIT: 10 },
  });
  expect(made.status).toBe(201);
  account = made.body.account.id;
  expect((await admin('PATCH', `/shops/shopify/${SHOP}`, { account })).status).toBe(200);
  // What the earlier release saved: written in the ledger, as the API no longer takes it.
  await saveEarlierPattern(running.bridge.engine.store, account);
}, 60_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

describe('a saved pattern RE2 cannot run', () => {
  it('is refused when saved now, one line for the key', async () => {
    const answer = await admin('PATCH', `/accounts/${account}/settings`, { REDEEM_CODE_PATTERN: '^LOYALTY-(?=\\d)' });
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual([expect.stringMatching(/^REDEEM_CODE_PATTERN: uses lookaround/)]);
  });

  it('turns off its rule alone: the order earns on its account, and its code spends nothing', async () => {
    await paidOrder('8101', 'LOYALTY-5');
    const order = await running.bridge.engine.store.getOrder(`shopify:${SHOP}:8101`);
    expect(order?.upstream.points).toBe('earned');
    expect(order?.upstream.account).toBe(account);
    expect(redeemed()).toEqual([]);
  });

  it('is shown on the account’s card, in status and on the merchant’s Home, with its fix', async () => {
    const card = await admin('GET', `/accounts/${account}`);
    expect(card.body.account.pausedRules).toEqual([
      {
        key: 'REDEEM_CODE_PATTERN',
        rule: 'discount codes paid for with points',
        why: expect.stringMatching(/lookaround/),
      },
    ]);
    const status = await runCli(['status', '--url', running.url, '--token', ADMIN_TOKEN], {});
    expect(status.code).toBe(0);
    // At the top, a !! line: which rule, why, and the setting to write again.
    expect(status.stdout).toMatch(
      /^!! Account Merchant’s program \([^)]+\): the rule for discount codes paid for with points is off: its pattern uses lookaround.* Write REDEEM_CODE_PATTERN again in the account's settings/m,
    );
    const home = await asShop(running, SHOP).get('/attention');
    const item = (home.body.attention as Array<{ kind: string; why: string; fix: string }>).find(
      (each) => each.kind === 'rule_paused',
    );
    expect(item?.why).toMatch(/discount codes paid for with points is off/);
    // The operator made this account: the merchant is told whom to ask, not the operator's setting.
    expect(item?.fix).toMatch(/operator/);
    expect(home.text).not.toContain(SAVED_PATTERN);
  });

  it('runs again once fixed, with the account’s other settings as saved, and is no longer reported', async () => {
    // The first order's points approved: the customer has points to spend.
    await paidOrder('8101', 'LOYALTY-5', 'orders/fulfilled');
    expect(
      (await admin('PATCH', `/accounts/${account}/settings`, { REDEEM_CODE_PATTERN: '^LOYALTY-\\d' })).status,
    ).toBe(200);
    expect((await admin('GET', `/accounts/${account}`)).body.account.pausedRules).toEqual([]);
    const home = await asShop(running, SHOP).get('/attention');
    expect(home.body.attention.map((each: { kind: string }) => each.kind)).not.toContain('rule_paused');
    await paidOrder('8102', 'LOYALTY-5');
    // 5.00 off at the account's own 10 points a unit.
    expect(redeemed()).toEqual([50]);
  });
});
