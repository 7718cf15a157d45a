// Attacks on the Shopify reward codes (issue 52), each pinned: a forged or replayed redeem, a customer or shop
// reaching another's codes or rewards, a point spent twice (one code on two orders, an order delivered twice,
// the merchant's REDEEM_CODE_PATTERN matching the bridge's codes, two tabs, a reward turned off mid-redeem),
// erasure taking the erased customer's codes and no one else's, and no contact in any answer, log line or
// record id. The whole bridge in process beside the fake Shopify, as test/e2e/shopify-rewards.test.ts runs it:
// shop A with customers Grace (300 points), Ada (300) and Linus (100); shop B, another merchant, with Ben (100).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Holder } from '../../src/core/storefront/reservations.ts';
import { createLogger } from '../../src/logger.ts';
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
import { proxiedQuery, signProxyQuery } from '../helpers/shopify-proxy-signer.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP = 'abuse-a.myshopify.com';
/** The cart the code pays for at checkout: the delivered order's subtotal (shopifyOrderJson's), above every reward's minimum here. */
const PAID = { subtotal: '120.00' };
const OTHER = 'abuse-b.myshopify.com';
const GRACE = { id: '7001', email: 'grace@example.com', phone: '+12125550142' };
const ADA = { id: '7003', email: 'ada@example.com', phone: '+12125550177' };
const LINUS = { id: '7002', email: 'linus@example.com' };
const BEN = { id: '8001', email: 'ben@example.com' };
/** A customer of shop A with no points, who presses Redeem again as soon as each answer comes. */
const MALLORY = { id: '7009', email: 'mallory@example.com' };
const CONTACTS = [GRACE.email, GRACE.phone, '2125550142', ADA.email, ADA.phone, LINUS.email, BEN.email];

let fake: FakeShopify;
let running: ShopifyAppBridge;
const logLines: string[] = [];
/** Every answer's text a customer or merchant read in this file: searched for contacts at the end. */
const answers: string[] = [];
const brands: Record<string, string> = {};
const rewardsOf: Record<string, Array<Record<string, any>>> = {};

type Answer = { status: number; text: string; body: Record<string, any> };
const read = async (response: Response): Promise<Answer> => {
  const text = await response.text();
  answers.push(text);
  let body: Record<string, any> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, any>) : {};
  } catch {
    // A page or plain text: its status says enough.
  }
  return { status: response.status, text, body };
};
const signed = (customerId: string, extra: Array<[string, string]> = [], shop = SHOP) =>
  proxiedQuery({ shop, customerId, extra }, APP_SECRET);
const points = async (customerId: string, shop = SHOP) =>
  read(await fetch(`${running.url}/shopify/storefront/points?${signed(customerId, [], shop)}`));
const redeemQuery = async (query: string, init: RequestInit = {}) =>
  read(await fetch(`${running.url}/shopify/storefront/points/redeem?${query}`, { method: 'POST', ...init }));
const redeem = (reward: string, customerId: string, shop = SHOP) =>
  redeemQuery(signed(customerId, [['reward', reward]], shop));
const reward = (shop: string, points: number) => rewardsOf[shop]!.find((each) => each.points === points)!.id as string;

const store = () => running.bridge.engine.store;
const sandbox = (shop: string) =>
  running.bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brands[shop])!;
const redemptions = (shop: string) => sandbox(shop).store.snapshot().redemptions;
const holders = async () =>
  (await store().listRecords(raw<Holder>('reward-holder'))).map(({ id, value }) => ({ id, value }));
const codeRecords = async () => (await store().listRecords(raw('reward-code'))).map(({ id }) => id);
/** What a refused request must leave as it was: the bridge's records, the store's codes, the service's points. */
const recorded = async () => ({
  holders: await holders(),
  codes: await codeRecords(),
  discounts: fake.discounts(SHOP).map((each) => each.code),
  redeemed: redemptions(SHOP).length,
});

async function deliver(topic: string, body: string, shop = SHOP) {
  const response = await fetch(`${running.url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic, body, shop, secret: APP_SECRET }),
    body,
  });
  expect(response.status).toBe(200);
}
const customerJson = (who: { id: string; email: string }) => ({
  id: Number(who.id),
  first_name: 'Someone',
  last_name: 'Else',
  email: who.email,
  phone: null,
  default_address: { country_code: 'US' },
});
const paidWith = (id: string, code: string, who: { id: string; email: string } = GRACE) =>
  shopifyOrderJson({
    id,
    email: who.email,
    customer: customerJson(who),
    discountCodes: [{ code, amount: '5.00', type: 'fixed_amount' }],
  });
const available = async (customerId: string, shop = SHOP) => (await points(customerId, shop)).body.balance?.available;
const openCodes = async (customerId: string, shop = SHOP) =>
  ((await points(customerId, shop)).body.codes as Array<{ code: string }>).map((each) => each.code);

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  for (const shop of [SHOP, OTHER]) fake.install(shop);
  fake.shop(SHOP).customers.set(GRACE.id, shopifyCustomerNode(GRACE.id, GRACE));
  fake.shop(SHOP).customers.set(ADA.id, shopifyCustomerNode(ADA.id, ADA));
  fake.shop(SHOP).customers.set(LINUS.id, shopifyCustomerNode(LINUS.id, { email: LINUS.email }));
  fake.shop(SHOP).customers.set(MALLORY.id, shopifyCustomerNode(MALLORY.id, { email: MALLORY.email }));
  fake.shop(OTHER).customers.set(BEN.id, shopifyCustomerNode(BEN.id, { email: BEN.email }));
  fake.scopes = 'read_orders,write_app_proxy,read_customers,write_discounts';
  const logger = createLogger({
    level: 'debug',
    pretty: false,
    destination: { write: (line: string) => void logLines.push(line) },
  });
  running = await startShopifyAppBridge(
    fake,
    {
      DATA_DIR: tempDataDir(),
      SHOPIFY_SHOPS: '',
      SHOPIFY_OPEN_INSTALLS: 'true',
      ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
      REWARD_SWEEP_SECONDS: '1',
      // Every read of a balance in this file is its own: the storefront's share of the budget never turns one away.
      STOREFRONT_SHARE: '1',
      // A code removed unused is held through this window for an order Shopify has not counted yet: none here, so a
      // reward turned off gives its points back at the next sweep (test/contract/reward-money.test.ts holds it).
      REWARD_SETTLE_MINUTES: '0',
      LOG_LEVEL: 'debug',
    },
    logger,
  );
  for (const shop of [SHOP, OTHER]) {
    const made = await asShop(running, shop).post('/account', { sandbox: true });
    expect(made.status).toBe(201);
    brands[shop] = made.body.account.brandId as string;
  }
  // 100 points an order once fulfilled: Grace and Ada 300 each in A, Linus 100, Ben 100 in B.
  const earned: Array<[string, { id: string; email: string }, string]> = [
    ['6300001001', GRACE, SHOP],
    ['6300001002', GRACE, SHOP],
    ['6300001003', GRACE, SHOP],
    ['6300001011', ADA, SHOP],
    ['6300001012', ADA, SHOP],
    ['6300001013', ADA, SHOP],
    ['6300001031', LINUS, SHOP],
    ['6300001021', BEN, OTHER],
  ];
  for (const [id, who, shop] of earned)
    await deliver(
      'orders/fulfilled',
      shopifyOrderJson({ id, email: who.email, customer: customerJson(who), fulfillmentStatus: 'fulfilled' }),
      shop,
    );
  await eventually(() => {
    const approved = (shop: string) =>
      sandbox(shop)
        .store.snapshot()
        .earnings.filter((each) => each.status === 'approved')
        .reduce((sum, each) => sum + each.points, 0);
    expect(approved(SHOP)).toBe(700);
    expect(approved(OTHER)).toBe(100);
  }, 30_000);
  for (const shop of [SHOP, OTHER]) {
    expect((await asShop(running, shop).put('/storefront', { on: true })).status).toBe(200);
    const saved = await asShop(running, shop).put('/storefront/rewards', {
      rewards: [
        { points: 200, amountOff: '5.00', expiresInDays: 30 },
        { points: 100, amountOff: '2.00', expiresInDays: 7 },
      ],
    });
    expect(saved.status).toBe(200);
    rewardsOf[shop] = saved.body.rewards as Array<Record<string, any>>;
  }
  // The storefront reads once the live orders above have had their places.
  await eventually(async () => expect(await available(GRACE.id)).toBe(300), 30_000);
}, 90_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

describe('a forged redeem', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const big = () => reward(SHOP, 200);
  /** A query signed over `pairs`, sent as `sent` (what an attacker changed after Shopify signed). */
  const tampered = (pairs: Array<[string, string]>, sent: Array<[string, string]> = pairs) => {
    const query = new URLSearchParams(sent);
    query.append('signature', signProxyQuery(pairs, APP_SECRET));
    return query.toString();
  };
  const shopify = (customerId: string, shop = SHOP, timestamp = now()): Array<[string, string]> => [
    ['shop', shop],
    ['logged_in_customer_id', customerId],
    ['path_prefix', '/apps/loyalty'],
    ['timestamp', String(timestamp)],
  ];
  const cases: Array<[string, () => string]> = [
    ['unsigned', () => new URLSearchParams([['reward', big()], ...shopify(GRACE.id)]).toString()],
    [
      "signed for Linus, sent as Grace's",
      () => tampered([['reward', big()], ...shopify(LINUS.id)], [['reward', big()], ...shopify(GRACE.id)]),
    ],
    [
      'signed for shop B, sent as shop A',
      () => tampered([['reward', big()], ...shopify(GRACE.id, OTHER)], [['reward', big()], ...shopify(GRACE.id, SHOP)]),
    ],
    [
      'replayed past the freshness window',
      () => tampered([['reward', big()], ...shopify(GRACE.id, SHOP, now() - 120)]),
    ],
    [
      'dated ahead of the freshness window',
      () => tampered([['reward', big()], ...shopify(GRACE.id, SHOP, now() + 120)]),
    ],
    [
      "a reward that carries Grace's id, signed for Linus",
      () => tampered([['reward', `${big()}&logged_in_customer_id=${GRACE.id}`], ...shopify(LINUS.id)]),
    ],
    ['a reward with "=" in it', () => tampered([['reward', `x=${big()}`], ...shopify(GRACE.id)])],
    [
      'the reward twice, signed as Shopify joins them',
      () => tampered([['reward', big()], ['reward', reward(SHOP, 100)], ...shopify(GRACE.id)]),
    ],
    [
      'logged_in_customer_id twice',
      () => tampered([['reward', big()], ['logged_in_customer_id', LINUS.id], ...shopify(GRACE.id)]),
    ],
    [
      // The signed text "a=xlogged_in_customer_id=7001…" read another way: only Shopify's parameters are taken.
      'a parameter of its own that shifts the signed text',
      () => tampered([['a', `xlogged_in_customer_id=${GRACE.id}`], ['reward', big()], ...shopify('')]),
    ],
    ['the reward as a nested parameter', () => tampered([['reward[]', big()], ...shopify(GRACE.id)])],
  ];

  it.each(cases)('%s: refused with 401, nothing recorded', async (_name, query) => {
    const before = await recorded();
    const answer = await redeemQuery(query());
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBeUndefined();
    expect(await recorded()).toEqual(before);
  });

  it('from a guest: refused with 401, asked to sign in, nothing recorded', async () => {
    const before = await recorded();
    const answer = await redeem(big(), '');
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ customer: 'guest', signIn: true });
    expect(await recorded()).toEqual(before);
  });

  it.each([
    ['signed', () => signed(GRACE.id, [['reward', big()]])],
    ['unsigned', () => new URLSearchParams([['reward', big()], ...shopify(GRACE.id)]).toString()],
  ])('with a body, %s: refused unread, nothing recorded', async (_name, query) => {
    const before = await recorded();
    const answer = await redeemQuery(query(), {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reward: big(), customerId: GRACE.id }),
    });
    expect(answer.status).toBe(413);
    expect(await recorded()).toEqual(before);
  });

  it('as a GET, even signed: no code made, nothing recorded', async () => {
    const before = await recorded();
    const answer = await read(
      await fetch(`${running.url}/shopify/storefront/points/redeem?${signed(GRACE.id, [['reward', big()]])}`),
    );
    expect(answer.status).toBe(404);
    expect(await recorded()).toEqual(before);
  });
});

describe("another customer's, another shop's", () => {
  let graceCode = '';
  beforeAll(async () => {
    const made = await redeem(reward(SHOP, 200), GRACE.id);
    expect(made.status).toBe(200);
    graceCode = made.body.code as string;
  });

  it("shows Linus nothing of Grace's code, and the store lets only Grace use it", async () => {
    const linus = await points(LINUS.id);
    expect(linus.status).toBe(200);
    expect(linus.body.codes).toEqual([]);
    expect(linus.text).not.toContain(graceCode);
    expect(fake.useCode(SHOP, graceCode, LINUS.id, PAID)).toBe(false);
    expect(fake.useCode(OTHER, graceCode, GRACE.id, PAID)).toBe(false);
    // Linus's own redeem spends nothing of Grace's.
    expect((await redeem(reward(SHOP, 200), LINUS.id)).status).toBe(409);
    expect(await openCodes(GRACE.id)).toEqual([graceCode]);
  });

  it("lets shop B's merchant read and change only B's rewards, whatever shop the request names", async () => {
    const aBefore = (await asShop(running, SHOP).get('/storefront/rewards')).body;
    const read = await asShop(running, OTHER).get(`/storefront/rewards?shop=${SHOP}&platform=shopify`);
    expect(read.body.rewards.map((each: { id: string }) => each.id)).toEqual(rewardsOf[OTHER]!.map((each) => each.id));
    const named = await asShop(running, OTHER).put(`/storefront/rewards?shop=${SHOP}`, {
      shop: SHOP,
      rewards: [{ points: 1, amountOff: '500.00', expiresInDays: 365 }],
    });
    expect(named.status).toBe(400);
    const aimed = await asShop(running, OTHER).put(`/storefront/rewards?shop=${SHOP}`, {
      rewards: [{ id: reward(SHOP, 200), points: 1, amountOff: '500.00', expiresInDays: 365 }],
    });
    // B's own again, as it was.
    expect((await asShop(running, OTHER).put('/storefront/rewards', { rewards: rewardsOf[OTHER] })).status).toBe(200);
    expect(aimed.status).toBe(200);
    expect((await asShop(running, SHOP).get('/storefront/rewards')).body).toEqual(aBefore);
    expect(await openCodes(GRACE.id)).toEqual([graceCode]);
  });

  it("redeems nothing of shop A's when an order in shop B carries A's code", async () => {
    await deliver('orders/paid', paidWith('6300002001', graceCode), OTHER);
    await running.bridge.engine.drain();
    expect(redemptions(SHOP)).toEqual([]);
    expect(redemptions(OTHER)).toEqual([]);
    expect(await openCodes(GRACE.id)).toEqual([graceCode]);
  });

  it('redeems a code used on two orders, and an order delivered twice, once', async () => {
    expect(fake.useCode(SHOP, graceCode, GRACE.id, PAID)).toBe(true);
    const first = paidWith('6300002011', graceCode);
    await deliver('orders/paid', first);
    await deliver('orders/paid', first);
    await deliver('orders/paid', paidWith('6300002012', graceCode));
    await eventually(() => expect(redemptions(SHOP)).toHaveLength(1), 15_000);
    await running.bridge.engine.drain();
    expect(redemptions(SHOP)).toHaveLength(1);
    expect(redemptions(SHOP)[0]).toMatchObject({ points: 200 });
    await eventually(async () => expect(await available(GRACE.id)).toBe(100), 10_000);
  });
});

describe('spending a point twice', () => {
  it("redeems a code once, for its reward's points, when the merchant's REDEEM_CODE_PATTERN matches it", async () => {
    const set = await asShop(running, SHOP).patch('/account/settings', {
      REDEEM_CODE_PATTERN: '^LB-',
      REDEEM_POINTS_PER_UNIT: '100',
    });
    expect(set.status, set.text).toBe(200);
    const made = await redeem(reward(SHOP, 100), ADA.id);
    expect(made.status).toBe(200);
    const before = redemptions(SHOP).length;
    expect(fake.useCode(SHOP, made.body.code as string, ADA.id, PAID)).toBe(true);
    await deliver('orders/paid', paidWith('6300003001', made.body.code as string, ADA));
    await eventually(() => expect(redemptions(SHOP)).toHaveLength(before + 1), 15_000);
    await running.bridge.engine.drain();
    expect(
      redemptions(SHOP)
        .slice(before)
        .map((each) => each.points),
    ).toEqual([100]);
    expect((await asShop(running, SHOP).patch('/account/settings', { REDEEM_CODE_PATTERN: '' })).status).toBe(200);
  });

  it('reserves one reward of four asked at once from four tabs, for a balance that covers one', async () => {
    // Read from the service (not the ledger's count, which answers while the storefront has no room).
    await eventually(
      async () =>
        expect((await points(ADA.id, SHOP)).body.balance).toMatchObject({
          available: 200,
          source: 'service',
          stale: false,
        }),
      10_000,
    );
    const tabs = await Promise.all([1, 2, 3, 4].map(() => redeem(reward(SHOP, 200), ADA.id)));
    expect(tabs.map((each) => each.status).sort()).toEqual([200, 409, 409, 409]);
    expect(await available(ADA.id)).toBe(0);
    expect(await openCodes(ADA.id)).toHaveLength(1);
  });

  it('leaves no code live in the store for a reward turned off while it was redeemed', async () => {
    const small = reward(SHOP, 100);
    const [made] = await Promise.all([
      redeem(small, GRACE.id),
      asShop(running, SHOP).put('/storefront/rewards', {
        rewards: rewardsOf[SHOP]!.map((each) => (each.id === small ? { ...each, on: false } : each)),
      }),
    ]);
    expect([200, 409]).toContain(made.status);
    await eventually(async () => {
      expect(fake.discounts(SHOP).map((each) => each.code)).not.toContain(made.body.code);
      expect(await available(GRACE.id)).toBe(100);
    }, 15_000);
    expect((await asShop(running, SHOP).put('/storefront/rewards', { rewards: rewardsOf[SHOP] })).status).toBe(200);
  });
});

describe('a customer pressing Redeem without end', () => {
  it('is held and refused past five refusals in ten seconds, while another customer is answered at once', async () => {
    const before = await recorded();
    // Five refusals ("not enough points") come at once.
    for (let n = 0; n < 5; n++) expect((await redeem(reward(SHOP, 100), MALLORY.id)).status).toBe(409);
    const startedAt = Date.now();
    const [held, other] = await Promise.all([
      redeem(reward(SHOP, 100), MALLORY.id),
      (async () => {
        const at = Date.now();
        const answer = await redeem(reward(SHOP, 200), LINUS.id);
        return { ...answer, tookMs: Date.now() - at };
      })(),
    ]);
    // Held before its refusal (a client pressing at each answer presses about once in two seconds), in words.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_500);
    expect(held.status).toBe(429);
    expect(held.body).toMatchObject({ redeemed: false, retryAfterSeconds: expect.any(Number) });
    expect(held.body.error).toMatch(/Wait a moment/);
    // Linus, short of the 200-point reward, hears so without waiting behind her.
    expect(other.status).toBe(409);
    expect(other.body.error).toMatch(/do not have enough points/);
    expect(other.tookMs).toBeLessThan(1_500);
    expect(await recorded()).toEqual(before);
  });
});

describe('erasure', () => {
  let adaCode = '';
  let graceCode = '';
  let benCode = '';
  beforeAll(async () => {
    const ada = await openCodes(ADA.id);
    expect(ada).toHaveLength(1);
    adaCode = ada[0]!;
    const grace = await redeem(reward(SHOP, 100), GRACE.id);
    expect(grace.status).toBe(200);
    graceCode = grace.body.code as string;
    const ben = await redeem(reward(OTHER, 100), BEN.id, OTHER);
    expect(ben.status).toBe(200);
    benCode = ben.body.code as string;
  });
  const live = (shop: string) => fake.discounts(shop).map((each) => each.code);
  const reservationsIn = async (shop: string) =>
    (await holders()).flatMap(({ value }) =>
      value.reservations.filter((each) => each.shop === shop).map((each) => each.code),
    );

  it("customers/redact removes the customer's live codes from the store and their reservations, no one else's", async () => {
    expect(live(SHOP)).toEqual(expect.arrayContaining([adaCode, graceCode]));
    const body = JSON.stringify({
      shop_id: 1,
      shop_domain: SHOP,
      customer: { id: Number(GRACE.id), email: GRACE.email, phone: GRACE.phone },
      orders_to_redact: [],
    });
    await deliver('customers/redact', body);
    await running.bridge.engine.drain();
    await eventually(async () => {
      expect(live(SHOP)).not.toContain(graceCode);
      expect(await reservationsIn(SHOP)).not.toContain(graceCode);
    }, 10_000);
    expect(live(SHOP)).toContain(adaCode);
    expect(await openCodes(ADA.id)).toEqual([adaCode]);
    expect(await codeRecords()).not.toContain(`shopify:${SHOP}:${graceCode}`);
  });

  it('customers/redact finds the codes of a customer whose e-mail changed since they redeemed, by their Shopify id', async () => {
    const made = await redeem(reward(SHOP, 100), LINUS.id);
    expect(made.status).toBe(200);
    const linusCode = made.body.code as string;
    // Linus changed his e-mail in the store: the request names the new one, and his id.
    const body = JSON.stringify({
      shop_id: 1,
      shop_domain: SHOP,
      customer: { id: Number(LINUS.id), email: 'linus.new@example.com', phone: null },
      orders_to_redact: [],
    });
    await deliver('customers/redact', body);
    await running.bridge.engine.drain();
    await eventually(async () => {
      expect(live(SHOP)).not.toContain(linusCode);
      expect(await reservationsIn(SHOP)).not.toContain(linusCode);
    }, 10_000);
    expect(JSON.stringify(await holders())).not.toContain(LINUS.email);
    expect(await codeRecords()).not.toContain(`shopify:${SHOP}:${linusCode}`);
    expect(live(SHOP)).toContain(adaCode);
  });

  it('customers/redact removes a code whose make lost its answer (a crash left it reserving), found by its text', async () => {
    const made = await redeem(reward(SHOP, 100), GRACE.id);
    expect(made.status).toBe(200);
    const code = made.body.code as string;
    // What a crash between the store's make and the bridge's note of it leaves: the code live, its reservation reserving.
    for (const { id } of await holders())
      await store().changeRecord(raw<Holder>('reward-holder'), id, (current) =>
        current?.reservations.some((each) => each.code === code)
          ? {
              put: {
                ...current,
                reservations: current.reservations.map((each) =>
                  each.code === code ? { ...each, state: 'reserving' as const, platformId: undefined } : each,
                ),
              },
            }
          : undefined,
      );
    expect(live(SHOP)).toContain(code);
    const body = JSON.stringify({
      shop_id: 1,
      shop_domain: SHOP,
      customer: { id: Number(GRACE.id), email: GRACE.email, phone: GRACE.phone },
      orders_to_redact: ['6300001001'],
    });
    await deliver('customers/redact', body);
    await running.bridge.engine.drain();
    await eventually(async () => {
      expect(await reservationsIn(SHOP)).not.toContain(code);
      expect(live(SHOP)).not.toContain(code);
    }, 10_000);
    expect(live(SHOP)).toContain(adaCode);
  });

  it("shop/redact, after the uninstall, forgets that shop's reservations and keeps another shop's", async () => {
    expect(await reservationsIn(SHOP)).toContain(adaCode);
    // Shopify sends it 48 hours after an uninstall: a shop whose token still works keeps its data.
    fake.uninstall(SHOP);
    await deliver('app/uninstalled', JSON.stringify({ id: 1, name: 'A', domain: 'a.example', myshopify_domain: SHOP }));
    await running.bridge.engine.drain();
    await deliver('shop/redact', JSON.stringify({ shop_id: 1, shop_domain: SHOP }));
    await running.bridge.engine.drain();
    await eventually(async () => expect(await reservationsIn(SHOP)).toEqual([]), 10_000);
    expect((await codeRecords()).filter((id) => id.startsWith(`shopify:${SHOP}:`))).toEqual([]);
    expect(await reservationsIn(OTHER)).toEqual([benCode]);
    expect(await codeRecords()).toContain(`shopify:${OTHER}:${benCode}`);
  });
});

describe('privacy', () => {
  it.each([
    ['any answer', () => answers.join('\n')],
    ['any log line', () => logLines.join('\n')],
  ])('puts no e-mail or phone in %s', (_where, text) => {
    expect(logLines.length).toBeGreaterThan(0);
    for (const contact of CONTACTS) expect(text()).not.toContain(contact);
  });

  it("puts no e-mail or phone in a reward record's id", async () => {
    const ids = [...(await holders()).map(({ id }) => id), ...(await codeRecords())];
    expect(ids.length).toBeGreaterThan(0);
    for (const contact of CONTACTS) expect(ids.join('\n')).not.toContain(contact);
  });
});
