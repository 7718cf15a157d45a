// A Shopify customer spends their points, end to end: the whole bridge in process as a Shopify app beside the fake
// Shopify (Admin GraphQL on Shopify's published schema, its discount codes included), a shop linked to a trial
// account on the bridge's sandbox, customer 7001 with 300 approved points. They redeem a reward through the app
// proxy (signed as Shopify signs it), get a code only they can use once, pay with it (a real signed orders/paid,
// delivered twice), and the points leave the sandbox once: for a code of each kind (an amount or a percentage off,
// free shipping), each taking off the order what it says. What they notice: a code, a balance that never lets
// them reserve more than they have, and a code they did not use costing them nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { shopifyCustomerNode, type FakeShopify } from '../helpers/fake-shopify.ts';
import { shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import {
  APP_SECRET,
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { proxiedQuery } from '../helpers/shopify-proxy-signer.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP = 'rewards-shop.myshopify.com';
/** The cart the code pays for at checkout: the delivered order's subtotal (shopifyOrderJson's), above every reward's minimum here. */
const PAID = { subtotal: '120.00' };
const GRACE = { email: 'grace@example.com', phone: '+12125550142' };
/** Linus's orders name him (shopifyOrderJson's name Grace), by his e-mail, phone and customer record. */
const LINUS = { email: 'linus@example.com', phone: '+12125550199' };
const BY_LINUS = { ...LINUS, customer: { id: 7002, ...LINUS } };
const EARNED = ['6200001001', '6200001002', '6200001003'];
/** A reward of each kind: what its code takes off an order of 120.00 shipped at 8.00, and how the order names it. */
const KINDS = [
  { benefit: { kind: 'amount_off', amount: '3.00' }, words: '3.00 off', off: ['3.00', '0.00'], type: 'fixed_amount' },
  { benefit: { kind: 'percent_off', percent: 10 }, words: '10% off', off: ['12.00', '0.00'], type: 'percentage' },
  { benefit: { kind: 'free_shipping' }, words: 'free shipping', off: ['0.00', '8.00'], type: 'shipping' },
];
/** The operator's token: they move the shop to another account. */
const OPERATOR = 'operator-token-for-the-rewards-test-0123456789abcdef';
const operator = (method: string, path: string, body: unknown) =>
  fetch(`${running.url}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

let fake: FakeShopify;
let running: ShopifyAppBridge;
let brandId = '';
let accountId = '';

type Answer = { status: number; text: string; body: Record<string, any> };
const read = async (response: Response): Promise<Answer> => {
  const text = await response.text();
  return { status: response.status, text, body: (text ? JSON.parse(text) : {}) as Record<string, any> };
};
const signed = (customerId: string, extra: Array<[string, string]> = []) =>
  proxiedQuery({ shop: SHOP, customerId, extra }, APP_SECRET);
const points = async (customerId = '7001') =>
  read(await fetch(`${running.url}/shopify/storefront/points?${signed(customerId)}`));
const redeem = async (reward: string, customerId = '7001') =>
  read(
    await fetch(`${running.url}/shopify/storefront/points/redeem?${signed(customerId, [['reward', reward]])}`, {
      method: 'POST',
    }),
  );
const sandboxAccount = (brand = brandId) =>
  running.bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brand)!;
const redemptions = (brand = brandId) => sandboxAccount(brand).store.snapshot().redemptions;

/**
 * A redeem once the customer's orders' calls are done (drain): one such call that lands on its read anyway, on a
 * loaded machine, answers "try again in a moment" (503), and the customer presses again after the wait it asks for.
 */
async function redeemAfterOrders(reward: string, customerId = '7001'): Promise<Answer> {
  await running.bridge.engine.drain();
  let issued = await redeem(reward, customerId);
  for (let press = 1; issued.status === 503 && press < 3; press++) {
    expect(issued.body).toMatchObject({ redeemed: false, retryAfterSeconds: expect.any(Number) });
    await new Promise((resolve) => setTimeout(resolve, Math.min(5, Number(issued.body.retryAfterSeconds)) * 1000));
    issued = await redeem(reward, customerId);
  }
  return issued;
}

async function deliver(topic: string, body: string) {
  const response = await fetch(`${running.url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic, body, shop: SHOP, secret: APP_SECRET }),
    body,
  });
  expect(response.status).toBe(200);
}

let rewards: Array<Record<string, any>> = [];

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  fake.install(SHOP);
  fake.shop(SHOP).customers.set('7001', shopifyCustomerNode('7001', GRACE));
  fake.shop(SHOP).customers.set('7002', shopifyCustomerNode('7002', { email: LINUS.email }));
  fake.scopes = 'read_orders,write_app_proxy,read_customers';
  running = await startShopifyAppBridge(fake, {
    DATA_DIR: tempDataDir(),
    SHOPIFY_SHOPS: '',
    SHOPIFY_OPEN_INSTALLS: 'true',
    ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
    ADMIN_TOKEN: OPERATOR,
    // Shopify counts a code's uses late: one removed unused is held through this window for its order. None here:
    // the merchant's turn-off gives the points back at once (test/contract/reward-money.test.ts holds it through one).
    REWARD_SETTLE_MINUTES: '0',
    // The sweeper's pass lets a withdrawn code's points go once that window is over: every second here.
    REWARD_SWEEP_SECONDS: '1',
  });
  const made = await asShop(running, SHOP).post('/account', { sandbox: true });
  expect(made.status).toBe(201);
  brandId = made.body.account.brandId as string;
  accountId = made.body.account.id as string;
  // Three paid and fulfilled orders: 300 approved points (the sandbox's activity 1 gives 100).
  for (const id of EARNED) await deliver('orders/fulfilled', shopifyOrderJson({ id, fulfillmentStatus: 'fulfilled' }));
  await eventually(() => {
    const approved = sandboxAccount()
      .store.snapshot()
      .earnings.filter((each) => each.status === 'approved');
    expect(approved.map((each) => each.points).reduce((a, b) => a + b, 0)).toBe(300);
  }, 20_000);
  expect((await asShop(running, SHOP).put('/storefront', { on: true })).status).toBe(200);
}, 40_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

describe('a Shopify customer spends their points', () => {
  it('the merchant sets rewards once the app may make discount codes, and customers see them', async () => {
    const wanted = {
      rewards: [
        { points: 200, amountOff: '5.00', minimumOrder: '20.00', expiresInDays: 30, combines: false },
        { points: 100, amountOff: '2.00', minimumOrder: null, expiresInDays: 7, combines: true },
      ],
    };
    const refused = await asShop(running, SHOP).put('/storefront/rewards', wanted);
    expect(refused.status).toBe(409);
    expect(refused.body.missingScopes).toEqual(['write_discounts']);
    expect((await asShop(running, SHOP).get('/storefront/rewards')).body.rewards).toEqual([]);
    fake.scopes = 'read_orders,write_app_proxy,read_customers,write_discounts';
    const saved = await asShop(running, SHOP).put('/storefront/rewards', wanted);
    expect(saved.status).toBe(200);
    rewards = saved.body.rewards as Array<Record<string, any>>;
    const shown = await points();
    expect(shown.body.balance.available).toBe(300);
    expect(shown.body.rewards.map((each: { words: string }) => each.words)).toEqual([
      '200 points for 5.00 off on orders of 20.00 or more',
      '100 points for 2.00 off',
    ]);
  });

  it('refuses a bad reward with one line per bad key, and keeps what was saved', async () => {
    const bad = await asShop(running, SHOP).put('/storefront/rewards', {
      rewards: [{ points: 0, amountOff: 'five', expiresInDays: 30 }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      'rewards.0.points: must be at least 1 point',
      'rewards.0.amountOff: must be an amount like 5.00 (the amount off)',
    ]);
    expect((await asShop(running, SHOP).get('/storefront/rewards')).body.rewards).toHaveLength(2);
  });

  let bigCode = '';
  it('redeems a reward into a code only that customer can use, once, until it expires', async () => {
    const answer = await redeem(rewards[0]!.id);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ redeemed: true, amountOff: '5.00', available: 100 });
    bigCode = answer.body.code as string;
    expect(bigCode).toMatch(/^LB-[A-Z2-9]{16}$/);
    const [discount] = fake.discounts(SHOP);
    expect(discount).toBeDefined();
    const days = (Date.parse(answer.body.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    // Only customer 7001 may use it.
    expect(fake.useCode(SHOP, bigCode, '7002', PAID)).toBe(false);
    // The balance shows what is left, and the code is listed for them alone.
    const after = await points();
    expect(after.body.balance.available).toBe(100);
    expect(after.body.codes.map((each: { code: string }) => each.code)).toEqual([bigCode]);
    const other = await points('7002');
    expect(other.body.codes).toEqual([]);
    expect(other.text).not.toContain(bigCode);
    // No point has left the service yet.
    expect(redemptions()).toEqual([]);
  });

  it('never reserves more than the balance, even when two tabs ask at once', async () => {
    const small = rewards[1]!.id as string;
    const both = await Promise.all([redeem(small), redeem(small)]);
    expect(both.map((each) => each.status).sort()).toEqual([200, 409]);
    const short = both.find((each) => each.status === 409)!;
    expect(short.body.error).toBe('You do not have enough points for this reward yet.');
    expect((await points()).body.balance.available).toBe(0);
    expect((await redeem(small)).status).toBe(409);
  });

  it('takes the points once when the code pays for an order, however often Shopify says so', async () => {
    // The reward's minimum order (20.00) is the code's: Shopify's checkout refuses it on a smaller cart.
    expect(fake.useCode(SHOP, bigCode, '7001', { subtotal: '19.99' })).toBe(false);
    expect(fake.useCode(SHOP, bigCode, '7001', PAID)).toBe(true);
    expect(fake.useCode(SHOP, bigCode, '7001', PAID)).toBe(false);
    const order = shopifyOrderJson({
      id: '6200002001',
      discountCodes: [{ code: bigCode, amount: '5.00', type: 'fixed_amount' }],
    });
    await deliver('orders/paid', order);
    await deliver('orders/paid', order);
    await eventually(() => expect(redemptions()).toHaveLength(1), 15_000);
    expect(redemptions()[0]).toMatchObject({ points: 200 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(redemptions()).toHaveLength(1);
    // The 200 left the service, the small code still holds 100: nothing is counted twice.
    await eventually(async () => expect((await points()).body.balance.available).toBe(0), 10_000);
    expect((await points()).body.codes).toHaveLength(1);
  });

  it('a code whose reward the merchant turns off is removed from the store and costs the customer nothing', async () => {
    const [big, small] = rewards;
    const saved = await asShop(running, SHOP).put('/storefront/rewards', {
      rewards: [big, { ...small, on: false }],
    });
    expect(saved.status).toBe(200);
    await eventually(async () => {
      expect((await points()).body.balance.available).toBe(100);
      expect((await points()).body.codes).toEqual([]);
    }, 10_000);
    // The code that paid for its order is gone from the store too: spent codes are removed, as a store that gives a
    // cancelled order's use back would let it pay again with nothing to redeem.
    await eventually(() => expect(fake.discounts(SHOP)).toHaveLength(0), 10_000);
    expect(redemptions()).toHaveLength(1);
  });

  it('redeems on the account that issued the code, for its customer, after the shop moved to another account', async () => {
    const small: Record<string, any> = { ...rewards[1], on: true };
    expect((await asShop(running, SHOP).put('/storefront/rewards', { rewards: [rewards[0], small] })).status).toBe(200);
    const issued = await redeem(small.id as string);
    expect(issued.status).toBe(200);
    // The operator moves the shop to another account before the code is used.
    const other = await operator('POST', '/accounts', { sandbox: true, name: 'Moved to' });
    expect(other.status).toBe(201);
    const moved = (await other.json()) as { account: { id: string; brandId: string } };
    expect((await operator('PATCH', `/shops/shopify/${SHOP}`, { account: moved.account.id })).status).toBe(200);
    expect(fake.useCode(SHOP, issued.body.code as string, '7001', PAID)).toBe(true);
    await deliver(
      'orders/paid',
      shopifyOrderJson({
        id: '6200003001',
        discountCodes: [{ code: issued.body.code as string, amount: '2.00', type: 'fixed_amount' }],
      }),
    );
    // Its earn goes to the shop's account now; its redeem, to the account that reserved the points.
    await eventually(() => {
      expect(
        sandboxAccount(moved.account.brandId)
          .store.snapshot()
          .earnings.map((each) => each.orderId),
      ).toEqual(['6200003001']);
      expect(redemptions()).toHaveLength(2);
    }, 15_000);
    expect(redemptions()[1]).toMatchObject({ points: 100, email: GRACE.email });
    expect(redemptions(moved.account.brandId)).toEqual([]);
    // Back where it was, for what follows.
    expect((await operator('PATCH', `/shops/shopify/${SHOP}`, { account: accountId })).status).toBe(200);
  });

  it('points the merchant takes back by hand withdraw the unused code they no longer cover', async () => {
    await deliver('orders/fulfilled', shopifyOrderJson({ id: '6200001005', fulfillmentStatus: 'fulfilled' }));
    await eventually(async () => expect((await points()).body.balance.available).toBe(100), 15_000);
    const issued = await redeemAfterOrders(rewards[1]!.id as string);
    expect(issued.status).toBe(200);
    const code = issued.body.code as string;
    // The service still counts those 100 points as Grace's: the merchant takes them back on Orders, naming her by
    // her phone (the service finds her by it), while her code is held under the e-mail her orders carry.
    const taken = await asShop(running, SHOP).post('/adjustments/redeem', {
      mobile: GRACE.phone,
      points: 100,
      reason: 'points given in error',
    });
    expect(taken.status).toBe(201);
    // The code would pay for an order whose redeem the service refuses: it leaves the store, and Grace sees none.
    await eventually(async () => {
      expect(fake.discounts(SHOP).map((each) => each.code)).not.toContain(code);
      expect((await points()).body.codes).toEqual([]);
    }, 10_000);
    expect((await points()).body.balance.available).toBe(0);
    expect(fake.useCode(SHOP, code, '7001', PAID)).toBe(false);
    expect(redemptions().map((each) => each.points)).toEqual([200, 100, 100]);
    // Its reservation ends, told why, once Shopify's late count of uses has had its window (none here).
    const reservation = async () =>
      (
        await running.bridge.engine.store.listRecords(
          raw<{
            reservations: Array<{ code: string; state: string; endedWhy?: string }>;
          }>('reward-holder'),
        )
      )
        .flatMap(({ value }) => value.reservations)
        .find((each) => each.code === code);
    await eventually(async () => expect((await reservation())?.state).toBe('released'), 10_000);
    expect((await reservation())?.endedWhy).toMatch(/taken back/);
  });

  let kindRewards: Array<Record<string, any>> = [];
  it('the merchant offers a reward of each kind, and customers see each with what it gives', async () => {
    const offered = await asShop(running, SHOP).get('/storefront/rewards');
    expect(offered.body.kinds).toEqual(
      KINDS.map(({ benefit }) => ({ kind: benefit.kind, notMade: null, setUpFirst: null })),
    );
    const added = KINDS.map(({ benefit }) => ({ points: 100, benefit, expiresInDays: 7, combines: true }));
    const saved = await asShop(running, SHOP).put('/storefront/rewards', {
      rewards: [...(offered.body.rewards as unknown[]), ...added],
    });
    expect(saved.status).toBe(200);
    kindRewards = (saved.body.rewards as Array<Record<string, any>>).slice(-3);
    const shown = (await points()).body.rewards as Array<Record<string, unknown>>;
    expect(shown.slice(-3)).toEqual(
      KINDS.map(({ benefit, words }, i) =>
        expect.objectContaining({ id: kindRewards[i]!.id, benefit, words: `100 points for ${words}` }),
      ),
    );
  });

  it('a code of each kind takes what it says off the order it pays for, and its points leave once', async () => {
    // Linus (7002) redeems these: Grace's presses above used the reads of her balance one customer's redeems may
    // make in a minute (CUSTOMER_REDEEM_READS).
    const before = redemptions().length;
    for (const id of ['6200004001', '6200004002', '6200004003'])
      await deliver('orders/fulfilled', shopifyOrderJson({ id, fulfillmentStatus: 'fulfilled', ...BY_LINUS }));
    await eventually(async () => expect((await points('7002')).body.balance.available).toBe(300), 15_000);
    const codes: string[] = [];
    for (const [i, reward] of kindRewards.entries()) {
      const issued = await redeemAfterOrders(reward.id as string, '7002');
      expect(issued.status).toBe(200);
      expect(issued.body.benefit).toEqual(KINDS[i]!.benefit);
      codes.push(issued.body.code as string);
    }
    expect((await points('7002')).body.balance.available).toBe(0);
    for (const [i, code] of codes.entries()) {
      const { off, type } = KINDS[i]!;
      expect(fake.useCode(SHOP, code, '7002', PAID)).toBe(true);
      expect(fake.discounts(SHOP).find((each) => each.code === code)?.taken).toEqual([
        { subtotal: off[0], shipping: off[1] },
      ]);
      const amount = off.find((each) => each !== '0.00')!;
      const order = shopifyOrderJson({ id: `620000500${i}`, ...BY_LINUS, discountCodes: [{ code, amount, type }] });
      await deliver('orders/paid', order);
      await deliver('orders/paid', order);
    }
    await eventually(() => expect(redemptions()).toHaveLength(before + 3), 15_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(
      redemptions()
        .slice(before)
        .map((each) => each.points),
    ).toEqual([100, 100, 100]);
  });

  it('an uninstall keeps the shop’s open reservations held, as its codes pay until their own expiry', async () => {
    // Every point was spent: one more fulfilled order gives 100.
    const redeemed = redemptions().length;
    await deliver('orders/fulfilled', shopifyOrderJson({ id: '6200001004', fulfillmentStatus: 'fulfilled' }));
    await eventually(async () => expect((await points()).body.balance.available).toBe(100), 15_000);
    const issued = await redeemAfterOrders(rewards[1]!.id as string);
    expect(issued.status).toBe(200);
    const holders = () =>
      running.bridge.engine.store.listRecords(
        raw<{ reservations: Array<{ code: string; state: string }> }>('reward-holder'),
      );
    const stateOf = async (code: string) =>
      (await holders()).flatMap(({ value }) => value.reservations).find((each) => each.code === code)?.state;
    expect(await stateOf(issued.body.code as string)).toBe('issued');
    // Shopify revokes the token, then says the app was uninstalled: the bridge can remove nothing now.
    fake.uninstall(SHOP);
    const body = JSON.stringify({
      id: 548380009,
      name: 'Rewards',
      domain: null,
      myshopify_domain: SHOP,
      updated_at: null,
    });
    await deliver('app/uninstalled', body);
    // The bridge serves the shop no more: its store's requests are not the app's now.
    await eventually(async () => expect((await points()).status).toBe(401), 10_000);
    // The code stays in the store until its own end, so its points stay held for it (issue 64: they were let go, and
    // could be spent again while it paid); no point was taken (the redeems are earlier codes' and the take-back's).
    expect(fake.discounts(SHOP).some((each) => each.code === issued.body.code)).toBe(true);
    expect(await stateOf(issued.body.code as string)).toBe('issued');
    expect(redemptions()).toHaveLength(redeemed);
  });
});
