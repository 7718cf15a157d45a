// Attacks on the BigCommerce storefront and its reward codes (issue 53), each pinned: a forged, foreign, stale or
// replayed current-customer token, a guest naming a store, a guest redeeming; a customer or store reaching another's
// codes, balance or contact; a point spent twice (tabs at once, one code on two orders, a code of store A in store
// B's order, a code paid by another customer); CORS and the public widget script; one store's uninstall touching
// another's; a customer's export and erasure, a store's erasure; no contact or token in any answer, log or record id.
// The whole bridge in process as a BigCommerce app beside the fake BigCommerce, as test/e2e/bigcommerce-rewards.test.ts
// runs it: store A with Grace (300 points), Ada (300) and Linus (100); store B, another merchant, with Ben (100);
// store C installed with its storefront off. The Shopify counterpart: shopify-rewards-abuse.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { HOLDER_KIND } from '../../src/core/storefront/reservations.ts';
import { WIDGET_KIND } from '../../src/core/storefront/widget-keeper.ts';
import { createLogger } from '../../src/logger.ts';
import { bcOrder, bcPageTokens } from '../helpers/bigcommerce.ts';
import { currentCustomerJwt } from '../helpers/bigcommerce-customer-jwt.ts';
import {
  BC_REWARDS_CLIENT_ID,
  BC_REWARDS_CLIENT_SECRET,
  startBigCommerceRewardsWorld,
  type BigCommerceRewardsWorld,
} from '../helpers/bigcommerce-rewards-world.ts';
import { eventually } from '../helpers/engine.ts';
import type { FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { addCustomer } from '../helpers/fake-bigcommerce-customers.ts';
import { storeCart, useCode } from '../helpers/fake-bigcommerce-checkout.ts';
import { madeCode } from '../helpers/fake-bigcommerce-promotions.ts';
import { deleteScriptAsMerchant, scriptsOf } from '../helpers/fake-bigcommerce-scripts.ts';
import { raw } from '../helpers/raw-records.ts';

const CLIENT_ID = BC_REWARDS_CLIENT_ID;
const CLIENT_SECRET = BC_REWARDS_CLIENT_SECRET;
const A = 'abusea';
const B = 'abuseb';
/** Installed and linked, its storefront never turned on. */
const C = 'abusec';
/** Never installed. */
const STRANGER = 'nostore1';
const SCOPES =
  'store_v2_orders_read_only store_v2_content store_v2_customers_read_only store_channel_settings_read_only store_v2_marketing store_v2_information_read_only';
const GRACE = { id: 4927, email: 'grace@example.com', phone: '+1 212 555 0142' };
const ADA = { id: 4930, email: 'ada@example.com', phone: '+1 212 555 0177' };
const LINUS = { id: 4928, email: 'linus@example.com' };
const BEN = { id: 5001, email: 'ben@example.com' };
const CAROL = { id: 6001, email: 'carol@example.com' };
const EVE = { id: 5003, email: 'eve@example.com' };
const EVE_NEW = 'eve.new@example.com';
const CONTACTS = [
  GRACE.email,
  GRACE.phone,
  '2125550142',
  ADA.email,
  '2125550177',
  LINUS.email,
  BEN.email,
  CAROL.email,
  EVE.email,
  EVE_NEW,
];
const STORE_PAGE = 'https://www.abuse-store.example';

let world: BigCommerceRewardsWorld;
let bc: FakeBigCommerce;
let bridge: RunningBridge;
let url = '';
const logLines: string[] = [];
/** Every answer's text a customer, guest or other party read in this file: searched for contacts at the end. */
const answers: string[] = [];
/** Every customer token sent: none may appear in a log line or an answer. */
const tokensSent: string[] = [];
const brands: Record<string, string> = {};
const rewardsOf: Record<string, Array<Record<string, any>>> = {};

type Answer = { status: number; headers: Headers; text: string; body: Record<string, any> };
const read = async (response: Response): Promise<Answer> => {
  const text = await response.text();
  answers.push(text);
  let body: Record<string, any> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, any>) : {};
  } catch {
    // A script or plain text: its status says enough.
  }
  return { status: response.status, headers: response.headers, text, body };
};
const merchant = async (store: string, method: string, path: string, body?: unknown) => {
  const session = (await bcPageTokens(bridge)).mint(store);
  return read(
    await fetch(`${url}/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
};
const tokenOf = (
  who: { id: number; email: string },
  store = A,
  claims: Record<string, unknown> = {},
  secret = CLIENT_SECRET,
) => {
  const token = currentCustomerJwt({
    storeHash: store,
    customerId: who.id,
    email: who.email,
    clientId: CLIENT_ID,
    clientSecret: secret,
    claims,
  });
  tokensSent.push(token);
  return token;
};
const POINTS = () => `${url}/bigcommerce/storefront/points`;
/** What the widget asks: the token as a bearer, from the store's page. */
const ask = async (token: string | undefined, path = '', method = 'GET', init: RequestInit = {}) =>
  read(
    await fetch(`${POINTS()}${path}`, {
      method,
      ...init,
      headers: {
        origin: STORE_PAGE,
        accept: 'application/json',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(init.headers as Record<string, string> | undefined),
      },
    }),
  );
const points = (who: { id: number; email: string }, store = A) => ask(tokenOf(who, store));
const redeem = (rewardId: string, who: { id: number; email: string }, store = A) =>
  ask(tokenOf(who, store), `/redeem?reward=${encodeURIComponent(rewardId)}`, 'POST');
const reward = (store: string, pts: number) => rewardsOf[store]!.find((each) => each.points === pts)!.id as string;
const available = async (who: { id: number; email: string }, store = A) =>
  (await points(who, store)).body.balance?.available as number | undefined;
const openCodes = async (who: { id: number; email: string }, store = A) =>
  ((await points(who, store)).body.codes as Array<{ code: string }>).map((each) => each.code);

const store = () => bridge.engine.store;
const sandbox = (hash: string) => bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brands[hash])!;
const redemptions = (hash: string) => sandbox(hash).store.snapshot().redemptions;
const holders = async () => (await store().listRecords(HOLDER_KIND)).map(({ id, value }) => ({ id, value }));
const codeRecords = async () => (await store().listRecords(raw('reward-code'))).map(({ id }) => id);
/** The cart a code pays for at the store's checkout: bcOrder's subtotal, in the store's currency. */
const cart = (hash: string, customerId: number) => storeCart(bc, hash, String(customerId), '150.00');
const reservationsIn = async (hash: string) =>
  (await holders()).flatMap(({ value }) => value.reservations.filter((each) => each.shop === hash));
/** What a refused request must leave as it was: the bridge's records, the store's promotions, the service's points. */
const recorded = async () => ({
  holders: await holders(),
  codes: await codeRecords(),
  redeemedA: redemptions(A).length,
  redeemedB: redemptions(B).length,
});
const deliver = async (hash: string, orderId: number) =>
  expect(await bc.deliver('store/order/statusUpdated', orderId, { store: hash, signWith: CLIENT_SECRET })).toEqual([
    200,
  ]);
const placeOrder = async (
  hash: string,
  orderId: number,
  email: string,
  coupons?: Array<{ code: string; discount: number }>,
) => {
  // Completed (10) earns; an order paying with a code waits for fulfilment (11), so it earns nothing meanwhile.
  const status = coupons ? 11 : 10;
  bc.stores
    .get(hash)!
    .orders.set(
      orderId,
      bcOrder(orderId, status, { email, ...(coupons ? { couponDiscount: '5.0000', coupons } : {}) }),
    );
  await deliver(hash, orderId);
};

beforeAll(async () => {
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => void logLines.push(line) },
  });
  world = await startBigCommerceRewardsWorld({
    scope: SCOPES,
    env: { LOG_LEVEL: 'debug', STOREFRONT_SHARE: '1' },
    logger,
    bridge: { widgetCheckMs: 300 },
  });
  ({ bc, bridge, url } = world);
  for (const hash of [A, B, C]) {
    expect((await bc.install(hash)).status).toBe(200);
    const made = await merchant(hash, 'POST', '/account', { sandbox: true });
    expect(made.status, made.text).toBe(201);
    brands[hash] = made.body.account.brandId as string;
  }
  for (const who of [GRACE, ADA, LINUS]) addCustomer(bc, A, who);
  addCustomer(bc, B, BEN);
  addCustomer(bc, C, CAROL);
  // 100 points an order once completed: Grace and Ada 300 each in A, Linus 100; Ben 100 in B; Carol 100 in C.
  const earned: Array<[string, number, string]> = [
    [A, 9001, GRACE.email],
    [A, 9002, GRACE.email],
    [A, 9003, GRACE.email],
    [A, 9011, ADA.email],
    [A, 9012, ADA.email],
    [A, 9013, ADA.email],
    [A, 9021, LINUS.email],
    [B, 9031, BEN.email],
    [C, 9041, CAROL.email],
  ];
  for (const [hash, id, email] of earned) await placeOrder(hash, id, email);
  const approved = (hash: string) =>
    sandbox(hash)
      .store.snapshot()
      .earnings.filter((each) => each.status === 'approved')
      .reduce((sum, each) => sum + each.points, 0);
  await eventually(() => {
    expect(approved(A)).toBe(700);
    expect(approved(B)).toBe(100);
    expect(approved(C)).toBe(100);
  }, 30_000);
  for (const hash of [A, B]) {
    const on = await merchant(hash, 'PUT', '/storefront', { on: true });
    expect(on.status, on.text).toBe(200);
    const saved = await merchant(hash, 'PUT', '/storefront/rewards', {
      rewards: [
        { points: 200, amountOff: '5.00', minimumOrder: null, expiresInDays: 30, combines: false },
        { points: 100, amountOff: '2.00', minimumOrder: null, expiresInDays: 7, combines: false },
      ],
    });
    expect(saved.status, saved.text).toBe(200);
    rewardsOf[hash] = saved.body.rewards as Array<Record<string, any>>;
  }
  await eventually(async () => expect(await available(GRACE)).toBe(300), 30_000);
}, 90_000);
afterAll(async () => {
  await world?.stop();
});

describe('a forged current-customer token', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const big = () => reward(A, 200);
  const cases: Array<[string, () => string]> = [
    ['signed with another secret', () => tokenOf(GRACE, A, {}, 'someone-elses-secret')],
    ["another app's (aud)", () => tokenOf(GRACE, A, { aud: 'another-app' })],
    ['for a store the bridge does not serve', () => tokenOf(GRACE, STRANGER)],
    ['sub store A, store_hash store B', () => tokenOf(GRACE, A, { store_hash: B })],
    ['expired (15 minutes and a minute ago)', () => tokenOf(GRACE, A, { iat: now() - 16 * 60, exp: now() - 60 })],
    [
      'replayed after 15 minutes, its exp stretched',
      () => tokenOf(GRACE, A, { iat: now() - 16 * 60, exp: now() - 16 * 60 + 900 * 2 }),
    ],
    ['living a day', () => tokenOf(GRACE, A, { exp: now() + 86_400 })],
    ['issued in the future', () => tokenOf(GRACE, A, { iat: now() + 600, exp: now() + 1500 })],
    ['the signed_payload_jwt of the load callback', () => bc.signedPayload(A)],
    ['iss "bc" (a callback\'s)', () => tokenOf(GRACE, A, { iss: 'bc' })],
    ['no operation', () => tokenOf(GRACE, A, { operation: undefined })],
    ['another operation', () => tokenOf(GRACE, A, { operation: 'login' })],
    ['the customer id as text', () => tokenOf(GRACE, A, { customer: { id: String(GRACE.id), email: GRACE.email } })],
    ['the customer id 0', () => tokenOf(GRACE, A, { customer: { id: 0, email: GRACE.email } })],
    ['no customer', () => tokenOf(GRACE, A, { customer: undefined })],
    [
      'alg none',
      () =>
        currentCustomerJwt({
          storeHash: A,
          customerId: GRACE.id,
          email: GRACE.email,
          clientId: CLIENT_ID,
          clientSecret: CLIENT_SECRET,
          header: { alg: 'none' },
        }),
    ],
    [
      'alg HS512 with the right secret',
      () =>
        currentCustomerJwt({
          storeHash: A,
          customerId: GRACE.id,
          email: GRACE.email,
          clientId: CLIENT_ID,
          clientSecret: CLIENT_SECRET,
          header: { alg: 'HS512' },
        }),
    ],
    ['the signature cut off', () => tokenOf(GRACE).replace(/\.[^.]*$/, '.')],
    [
      "Linus's payload under Grace's signature",
      () => {
        const [head, , signature] = tokenOf(GRACE).split('.');
        return `${head}.${tokenOf(LINUS).split('.')[1]}.${signature}`;
      },
    ],
  ];

  it.each(cases)('%s: no balance shown, no code made, nothing recorded (401)', async (_name, token) => {
    const before = await recorded();
    const shown = await ask(token());
    expect(shown.status).toBe(401);
    expect(shown.body.balance).toBeUndefined();
    const answer = await ask(token(), `/redeem?reward=${big()}`, 'POST');
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBeUndefined();
    expect(await recorded()).toEqual(before);
  });

  it.each([
    ['a good token and ?store= of its own store', () => `?store=${A}`],
    ['a good token and ?store= of another store', () => `?store=${B}`],
  ])('%s: refused (401), nothing recorded', async (_name, query) => {
    const before = await recorded();
    expect((await ask(tokenOf(GRACE), query())).status).toBe(401);
    const answer = await ask(tokenOf(GRACE), `/redeem${query()}&reward=${big()}`, 'POST');
    expect(answer.status).toBe(401);
    expect(await recorded()).toEqual(before);
  });

  it.each([
    ['lower-case "bearer"', () => `bearer ${tokenOf(GRACE)}`],
    ['two tokens', () => `Bearer ${tokenOf(LINUS)} ${tokenOf(GRACE)}`],
    ['Basic', () => `Basic ${Buffer.from(`x:${tokenOf(GRACE)}`).toString('base64')}`],
    ['empty', () => ''],
  ])('an Authorization header %s: refused (401)', async (_name, header) => {
    // No ?store= beside it: a token with a store is refused for that alone.
    const answer = await read(await fetch(POINTS(), { headers: { authorization: header() } }));
    expect(answer.status).toBe(401);
    expect(answer.body.balance).toBeUndefined();
  });

  it("a good token of store C, whose storefront is off: 404, nothing of Carol's", async () => {
    const answer = await points(CAROL, C);
    expect(answer.status).toBe(404);
    expect(answer.text).not.toMatch(/balance/);
  });

  it('a good token naming a customer the store has no record of: no balance, no code', async () => {
    const before = await recorded();
    const ghost = { id: 999_999, email: GRACE.email };
    const shown = await points(ghost);
    expect(shown.body.balance).toBeUndefined();
    const made = await redeem(big(), ghost);
    expect(made.body.code).toBeUndefined();
    expect(await recorded()).toEqual(before);
  });

  it("the token's own e-mail is never who is served: Linus's id with Grace's e-mail shows Linus's points", async () => {
    const shown = await ask(
      currentCustomerJwt({
        storeHash: A,
        customerId: LINUS.id,
        email: GRACE.email,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
      }),
    );
    expect(shown.status).toBe(200);
    expect(shown.body.balance.available).toBe(100);
  });

  it('with a body: refused unread (413), nothing recorded', async () => {
    const before = await recorded();
    const answer = await ask(tokenOf(GRACE), `/redeem?reward=${big()}`, 'POST', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reward: big(), customerId: GRACE.id }),
    });
    expect(answer.status).toBe(413);
    expect(await recorded()).toEqual(before);
  });

  it('as a GET, even with a good token: no code made, nothing recorded', async () => {
    const before = await recorded();
    const answer = await ask(tokenOf(GRACE), `/redeem?reward=${big()}`);
    expect(answer.status).toBe(404);
    expect(await recorded()).toEqual(before);
  });
});

describe('a guest naming a store', () => {
  it("sees store A's ways to earn and rewards, nothing of any customer, whatever customer the query names", async () => {
    const guest = await ask(undefined, `?store=${A}&customer_id=${GRACE.id}&logged_in_customer_id=${GRACE.id}`);
    expect(guest.status).toBe(200);
    expect(guest.body).toMatchObject({ customer: 'guest', signIn: true });
    expect(guest.body.balance).toBeUndefined();
    expect(guest.body.codes).toBeUndefined();
    expect(guest.body.history).toBeUndefined();
    expect(guest.body.rewards.map((each: { id: string }) => each.id).sort()).toEqual(
      rewardsOf[A]!.map((each) => each.id).sort(),
    );
  });

  it.each([
    ['a store the bridge does not serve', STRANGER, 401],
    ['a store whose storefront is off', C, 404],
    ['not a store hash', 'ABUSEA', 401],
    ['a hash with a path in it', `${A}/../${B}`, 401],
  ])('%s: nothing shown', async (_name, named, status) => {
    const guest = await ask(undefined, `?store=${encodeURIComponent(named)}`);
    expect(guest.status).toBe(status);
    expect(guest.body.rewards).toBeUndefined();
    expect(guest.body.waysToEarn).toBeUndefined();
  });

  it('the store named twice: refused, as no store', async () => {
    expect((await ask(undefined, `?store=${A}&store=${B}`)).status).toBe(401);
  });

  it('redeeming: refused (401), asked to sign in, nothing recorded', async () => {
    const before = await recorded();
    const answer = await ask(undefined, `/redeem?store=${A}&reward=${reward(A, 100)}`, 'POST');
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ customer: 'guest', signIn: true });
    expect(answer.body.code).toBeUndefined();
    expect(await recorded()).toEqual(before);
  });
});

describe("another customer's, another store's", () => {
  let graceCode = '';
  beforeAll(async () => {
    const made = await redeem(reward(A, 200), GRACE);
    expect(made.status, made.text).toBe(200);
    graceCode = made.body.code as string;
  });

  it("shows Linus, Ben and a guest nothing of Grace's code or balance", async () => {
    for (const seen of [await points(LINUS), await points(BEN, B), await ask(undefined, `?store=${A}`)]) {
      expect(seen.text).not.toContain(graceCode);
    }
    expect((await points(LINUS)).body.codes).toEqual([]);
    expect((await points(BEN, B)).body.codes).toEqual([]);
    expect(await openCodes(GRACE)).toEqual([graceCode]);
    // Store B knows no such code.
    expect(useCode(bc, B, graceCode, cart(B, BEN.id))).toBe(false);
  });

  it("lets Linus spend nothing of Grace's: his redeem of a reward beyond him is refused", async () => {
    expect((await redeem(reward(A, 200), LINUS)).status).toBe(409);
    expect(await openCodes(GRACE)).toEqual([graceCode]);
  });

  it("lets store B's merchant read and change only B's rewards, whatever store the request names", async () => {
    const aBefore = (await merchant(A, 'GET', '/storefront/rewards')).body;
    const readB = await merchant(B, 'GET', `/storefront/rewards?shop=${A}&platform=bigcommerce&store=${A}`);
    expect(readB.body.rewards.map((each: { id: string }) => each.id)).toEqual(rewardsOf[B]!.map((each) => each.id));
    const aimed = await merchant(B, 'PUT', `/storefront/rewards?shop=${A}&store=${A}`, {
      rewards: [{ id: reward(A, 200), points: 1, amountOff: '500.00', expiresInDays: 365 }],
    });
    expect(aimed.status).toBe(200);
    expect((await merchant(B, 'PUT', '/storefront/rewards', { rewards: rewardsOf[B] })).status).toBe(200);
    expect((await merchant(A, 'GET', '/storefront/rewards')).body).toEqual(aBefore);
    // Nor turn A's storefront off.
    expect((await merchant(B, 'PUT', `/storefront?shop=${A}&store=${A}`, { on: true })).status).toBe(200);
    expect((await points(GRACE)).status).toBe(200);
  });

  it("redeems nothing of store A's when an order in store B carries A's code", async () => {
    await placeOrder(B, 9500, BEN.email, [{ code: graceCode, discount: 5 }]);
    await bridge.engine.drain();
    expect(redemptions(A)).toEqual([]);
    expect(redemptions(B)).toEqual([]);
    expect(await openCodes(GRACE)).toEqual([graceCode]);
  });

  it("redeems Grace's code once, naming Grace, when Linus pays with it, on two orders, one delivered twice", async () => {
    // BigCommerce keeps a code to no customer: Linus, who saw it over her shoulder, can pay with it once.
    expect(useCode(bc, A, graceCode, cart(A, LINUS.id))).toBe(true);
    expect(useCode(bc, A, graceCode, cart(A, GRACE.id))).toBe(false);
    await placeOrder(A, 9600, LINUS.email, [{ code: graceCode, discount: 5 }]);
    await deliver(A, 9600);
    await placeOrder(A, 9601, GRACE.email, [{ code: graceCode, discount: 5 }]);
    await eventually(() => expect(redemptions(A)).toHaveLength(1), 20_000);
    await bridge.engine.drain();
    expect(redemptions(A)).toHaveLength(1);
    expect(redemptions(A)[0]).toMatchObject({ points: 200, email: GRACE.email });
    await eventually(async () => {
      expect(await available(GRACE)).toBe(100);
      expect(await openCodes(GRACE)).toEqual([]);
    }, 20_000);
    expect(await available(LINUS)).toBe(100);
  }, 40_000);
});

describe('spending a point twice', () => {
  it('reserves one reward of four asked at once from four tabs, for a balance that covers one', async () => {
    const tabs = await Promise.all([1, 2, 3, 4].map(() => redeem(reward(A, 200), ADA)));
    expect(tabs.map((each) => each.status).sort()).toEqual([200, 409, 409, 409]);
    expect(await available(ADA)).toBe(100);
    expect(await openCodes(ADA)).toHaveLength(1);
    const promotions = tabs.filter((each) => each.status === 200).map((each) => madeCode(bc, A, each.body.code));
    expect(promotions.every((each) => each?.deleted === false)).toBe(true);
  });

  it("keeps a code's points held when it was used at checkout and the merchant turns its reward off before its order comes", async () => {
    const [adaCode] = await openCodes(ADA);
    // Paid by bank transfer, say: BigCommerce counts the code's use now, the order is paid (and arrives) days later.
    expect(useCode(bc, A, adaCode!, cart(A, ADA.id))).toBe(true);
    const before = redemptions(A).length;
    const off = rewardsOf[A]!.map((each) => (each.points === 200 ? { ...each, on: false } : each));
    expect((await merchant(A, 'PUT', '/storefront/rewards', { rewards: off })).status).toBe(200);
    // A few of the sweeper's passes (one a second).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await available(ADA)).toBe(100);
    await placeOrder(A, 9700, ADA.email, [{ code: adaCode!, discount: 5 }]);
    await eventually(() => expect(redemptions(A)).toHaveLength(before + 1), 20_000);
    expect(redemptions(A)[before]).toMatchObject({ points: 200, email: ADA.email });
    await eventually(async () => expect(await available(ADA)).toBe(100), 20_000);
    expect((await merchant(A, 'PUT', '/storefront/rewards', { rewards: rewardsOf[A] })).status).toBe(200);
  }, 40_000);

  it("refuses a reward of another store's, or one turned off: nothing recorded", async () => {
    const before = await recorded();
    expect((await redeem(reward(B, 100), LINUS)).status).toBe(409);
    const off = rewardsOf[A]!.map((each) => (each.points === 100 ? { ...each, on: false } : each));
    expect((await merchant(A, 'PUT', '/storefront/rewards', { rewards: off })).status).toBe(200);
    expect((await redeem(reward(A, 100), LINUS)).status).toBe(409);
    expect((await merchant(A, 'PUT', '/storefront/rewards', { rewards: rewardsOf[A] })).status).toBe(200);
    expect(await recorded()).toEqual(before);
  });
});

describe('CORS and the widget script', () => {
  const preflight = (origin: string, headers = 'authorization', method = 'GET') =>
    fetch(POINTS(), {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
    });

  it.each([
    ["'null' (a sandboxed frame, a file)", 'null'],
    ['with a path', `${STORE_PAGE}/account.php`],
    ['file:', 'file://'],
    ['not a URL', 'javascript:alert(1)'],
  ])('an origin %s is never named back, and its preflight is refused', async (_name, origin) => {
    const answer = await fetch(`${POINTS()}?store=${A}`, { headers: { origin } });
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    expect((await preflight(origin)).status).toBe(403);
  });

  it('a page of any store is named back, never with credentials, never "*", and the answer varies by origin', async () => {
    const answer = await fetch(`${POINTS()}?store=${A}`, { headers: { origin: 'https://evil.example' } });
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://evil.example');
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    expect(answer.headers.get('vary')).toMatch(/origin/i);
    const approved = await preflight('https://evil.example');
    expect(approved.status).toBe(204);
    expect(approved.headers.get('access-control-allow-credentials')).toBeNull();
    expect(approved.headers.get('access-control-allow-headers')).toBe('authorization');
  });

  it.each([
    ['a cookie header', 'cookie'],
    ['a header the route does not take', 'authorization, x-shop'],
  ])('a preflight asking for %s is refused', async (_name, headers) => {
    expect((await preflight(STORE_PAGE, headers)).status).toBe(403);
  });

  it('a preflight for another method is refused', async () => {
    expect((await preflight(STORE_PAGE, 'authorization', 'PUT')).status).toBe(403);
  });

  it("a shopper's cookies prove nothing: a request with the store's cookies and no token is a guest", async () => {
    const answer = await read(
      await fetch(`${POINTS()}?store=${A}`, { headers: { cookie: `SHOP_SESSION_TOKEN=${tokenOf(GRACE)}` } }),
    );
    expect(answer.body.customer).toBe('guest');
    expect(answer.body.balance).toBeUndefined();
  });

  it('the widget script is the same public text for every store, query and caller, and holds no secret', async () => {
    const [script] = scriptsOf(bc, A);
    expect(script?.src).toBe(`${url}/bigcommerce/storefront/widget.js?store=${A}`);
    const plain = await fetch(script!.src!);
    const text = await plain.text();
    expect(plain.status).toBe(200);
    expect(plain.headers.get('set-cookie')).toBeNull();
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
    expect(text).not.toContain(CLIENT_SECRET);
    for (const other of [
      `${url}/bigcommerce/storefront/widget.js?store=${B}`,
      `${url}/bigcommerce/storefront/widget.js?store=${STRANGER}`,
      `${url}/bigcommerce/storefront/widget.js?store=%22%3C%2Fscript%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E`,
      `${url}/bigcommerce/storefront/widget.js`,
    ]) {
      const answer = await fetch(other, { headers: { authorization: `Bearer ${tokenOf(GRACE)}`, origin: STORE_PAGE } });
      expect(await answer.text()).toBe(text);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    }
    for (const hash of [A, B, C]) expect(text).not.toContain(hash);
    for (const contact of CONTACTS) expect(text).not.toContain(contact);
  });

  it('the widget script answers no POST', async () => {
    const answer = await fetch(`${url}/bigcommerce/storefront/widget.js?store=${A}`, { method: 'POST' });
    expect(answer.status).toBe(404);
  });
});

describe("one store's uninstall and widget, another store's", () => {
  let benCode = '';
  let linusCode = '';
  beforeAll(async () => {
    const ben = await redeem(reward(B, 100), BEN, B);
    expect(ben.status, ben.text).toBe(200);
    benCode = ben.body.code as string;
    const linus = await redeem(reward(A, 100), LINUS);
    expect(linus.status, linus.text).toBe(200);
    linusCode = linus.body.code as string;
  });

  it("a widget removed in A's Script Manager is put back in A, and B's scripts are not touched", async () => {
    const bBefore = scriptsOf(bc, B).map((each) => each.uuid);
    expect(bBefore).toHaveLength(1);
    expect(deleteScriptAsMerchant(bc, A, scriptsOf(bc, A)[0]!.uuid)).toBe(true);
    await eventually(() => expect(scriptsOf(bc, A)).toHaveLength(1), 10_000);
    expect(scriptsOf(bc, B).map((each) => each.uuid)).toEqual(bBefore);
    expect(scriptsOf(bc, C)).toEqual([]);
  });

  it("an uninstall callback of B that BigCommerce does not confirm (B's token still works) turns nothing of B off", async () => {
    const replayed = await bc.uninstall(B, bc.signedPayload(B));
    expect(replayed.status).toBeLessThan(500);
    const forged = await bc.uninstall(B, bc.signedPayload(B, {}, 'someone-elses-secret'));
    expect(forged.status).toBe(401);
    expect((await points(BEN, B)).body.codes.map((each: { code: string }) => each.code)).toEqual([benCode]);
    expect(scriptsOf(bc, B)).toHaveLength(1);
    expect((await reservationsIn(B)).map((each) => each.state)).toEqual(['issued']);
  });

  it("A's uninstall keeps A's open codes held and leaves B's reservations, script and storefront as they were", async () => {
    const bScripts = scriptsOf(bc, B).map((each) => each.uuid);
    expect((await bc.uninstall(A)).status).toBe(200);
    await eventually(async () => expect((await points(LINUS)).status).toBe(401), 5_000);
    // A's code pays in A's store until its expiry (the uninstall revoked the access to remove it): its points stay held.
    expect((await reservationsIn(A)).find((each) => each.code === linusCode)?.state).toBe('issued');
    expect(madeCode(bc, A, linusCode)?.deleted).toBe(false);
    // A few of the keeper's checks later: A's widget is not put back, B's is where it was.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(scriptsOf(bc, A)).toEqual([]);
    expect(scriptsOf(bc, B).map((each) => each.uuid)).toEqual(bScripts);
    expect((await reservationsIn(B)).map((each) => [each.code, each.state])).toEqual([[benCode, 'issued']]);
    const ben = await points(BEN, B);
    expect(ben.status).toBe(200);
    expect(ben.body.codes.map((each: { code: string }) => each.code)).toEqual([benCode]);
    expect((await merchant(B, 'GET', '/storefront')).body).toMatchObject({ on: true, widget: { onStore: true } });
    expect(madeCode(bc, B, benCode)?.deleted).toBe(false);
    // A guest of A: the store is served no more.
    expect((await ask(undefined, `?store=${A}`)).status).toBe(401);
  });
});

describe('privacy', () => {
  it("a customer's export holds their BigCommerce reservations, and no one else's", async () => {
    const data = (await bridge.engine.privacy.exportCustomer({
      platform: 'bigcommerce',
      shop: B,
      emails: [BEN.email],
      phones: [],
      orderIds: [],
      customerIds: [String(BEN.id)],
    })) as { kept?: { rewards?: { reservations: Array<Record<string, unknown>> } } };
    const reservations = data.kept?.rewards?.reservations ?? [];
    expect(reservations.map((each) => [each.shop, each.customerId, each.state])).toEqual([
      [B, String(BEN.id), 'issued'],
    ]);
    expect(JSON.stringify(data)).not.toContain(GRACE.email);
  });

  it("an erasure removes the customer's live promotions while access lasts and releases their reservations, no one else's", async () => {
    // Store B gets a second customer with a code of his own, who must keep it.
    addCustomer(bc, B, { id: 5002, email: 'dan@example.com' });
    await placeOrder(B, 9701, 'dan@example.com');
    await eventually(async () => expect(await available({ id: 5002, email: 'dan@example.com' }, B)).toBe(100), 20_000);
    const dan = await redeem(reward(B, 100), { id: 5002, email: 'dan@example.com' }, B);
    expect(dan.status).toBe(200);
    const benCode = (await openCodes(BEN, B))[0]!;
    expect(madeCode(bc, B, benCode)?.deleted).toBe(false);
    await bridge.engine.privacy.eraseCustomer(
      {
        platform: 'bigcommerce',
        shop: B,
        emails: [BEN.email],
        phones: [],
        orderIds: [],
        customerIds: [String(BEN.id)],
      },
      'admin',
    );
    expect(madeCode(bc, B, benCode)?.deleted).toBe(true);
    expect(useCode(bc, B, benCode, cart(B, BEN.id))).toBe(false);
    const inB = await reservationsIn(B);
    expect(inB.map((each) => each.code)).toEqual([dan.body.code]);
    expect(await codeRecords()).not.toContain(`bigcommerce:${B}:${benCode}`);
    expect(madeCode(bc, B, dan.body.code as string)?.deleted).toBe(false);
    expect(JSON.stringify(await holders())).not.toContain(BEN.email);
  });

  it('an erasure by the BigCommerce customer id finds the codes of a customer whose e-mail changed since they redeemed', async () => {
    addCustomer(bc, B, EVE);
    await placeOrder(B, 9801, EVE.email);
    await eventually(async () => expect(await available(EVE, B)).toBe(100), 20_000);
    const made = await redeem(reward(B, 100), EVE, B);
    expect(made.status, made.text).toBe(200);
    const eveCode = made.body.code as string;
    // She changed her e-mail in the store: the erasure names the new one, and her id.
    addCustomer(bc, B, { id: EVE.id, email: EVE_NEW });
    await bridge.engine.privacy.eraseCustomer(
      { platform: 'bigcommerce', shop: B, emails: [EVE_NEW], phones: [], orderIds: [], customerIds: [String(EVE.id)] },
      'admin',
    );
    expect(madeCode(bc, B, eveCode)?.deleted).toBe(true);
    expect((await reservationsIn(B)).map((each) => each.code)).not.toContain(eveCode);
    expect(JSON.stringify(await holders())).not.toContain(EVE.email);
    expect(await codeRecords()).not.toContain(`bigcommerce:${B}:${eveCode}`);
  }, 40_000);

  it("a store's erasure takes its storefront-widget record and reservations, and leaves another store's", async () => {
    const widgets = async () => (await store().listRecords(WIDGET_KIND)).map(({ id }) => id);
    expect(await widgets()).toEqual(expect.arrayContaining([`bigcommerce:${A}`, `bigcommerce:${B}`]));
    await bridge.engine.privacy.eraseShop('bigcommerce', A, 'admin');
    expect(await widgets()).not.toContain(`bigcommerce:${A}`);
    expect(await widgets()).toContain(`bigcommerce:${B}`);
    expect(await reservationsIn(A)).toEqual([]);
    expect((await codeRecords()).filter((id) => id.startsWith(`bigcommerce:${A}:`))).toEqual([]);
    expect((await reservationsIn(B)).length).toBe(1);
    // The keeper does not bring A's record back.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await widgets()).not.toContain(`bigcommerce:${A}`);
  });

  it.each([
    ['any answer', () => answers.join('\n')],
    ['any log line', () => logLines.join('\n')],
  ])('puts no e-mail or phone in %s', (_where, text) => {
    expect(logLines.length).toBeGreaterThan(0);
    for (const contact of CONTACTS) expect(text()).not.toContain(contact);
  });

  it('puts no customer token in a log line or an answer', () => {
    const everything = `${logLines.join('\n')}\n${answers.join('\n')}`;
    expect(tokensSent.length).toBeGreaterThan(20);
    for (const token of tokensSent) expect(everything).not.toContain(token.split('.')[2] || token);
  });

  it("puts no e-mail or phone in a reward record's id", async () => {
    const ids = [
      ...(await holders()).map(({ id }) => id),
      ...(await codeRecords()),
      ...(await store().listRecords(WIDGET_KIND)).map(({ id }) => id),
    ];
    expect(ids.length).toBeGreaterThan(0);
    for (const contact of CONTACTS) expect(ids.join('\n')).not.toContain(contact);
  });
});
