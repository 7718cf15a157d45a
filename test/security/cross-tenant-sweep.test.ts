// Tenants are strangers: two merchants on each platform, and the one of a
// platform registered at start (TinyShop), each on a trial account of its
// own, on one bridge (lowdb, and PostgreSQL). Merchant A of
// each platform calls every route its session reaches, read from the shop
// router itself (a route added later is swept without editing this file),
// with every id, key and order number of every merchant B in its paths,
// queries and bodies, and sends every delivery and callback it can sign.
// No answer may hold anything of a B that A did not send itself, and nothing
// of a B may change: its orders, letters, account, link, requests,
// adjustments, resyncs, and its points at the service.
import PQueue from 'p-queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordKind } from '../../src/core/store/ledger-store.ts';
import type { AccountRecord } from '../../src/accounts/account-records.ts';
import type { WooConnection } from '../../adapters/woocommerce/stores.ts';
import { pluginKeyOf } from '../../adapters/woocommerce/plugin-keys.ts';
import { shopAdminApi, type ShopAdminApiParts } from '../../src/http/shop-admin-api.ts';
import { orderKey } from '../../src/core/order-event.ts';
import { eventually } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { routesOf } from '../helpers/express-routes.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { shopifyHeaders } from '../helpers/shopify.ts';
import { APP_SECRET } from '../helpers/shopify-app-bridge.ts';
import type { Holder } from '../../src/core/storefront/reservations.ts';
import { currentCustomerJwt } from '../helpers/bigcommerce-customer-jwt.ts';
import { addCustomer } from '../helpers/fake-bigcommerce-customers.ts';
import { scriptsOf } from '../helpers/fake-bigcommerce-scripts.ts';
import {
  BC_CLIENT_ID,
  BC_CLIENT_SECRET,
  startTenantWorld,
  TINY_SECRET,
  TINY_STORE,
  type Merchant,
  type Platform,
  type Registered,
  type TenantWorld,
} from '../helpers/tenant-world.ts';
import { signWoo, wooHeaders, wooOrderJson } from '../helpers/woocommerce.ts';
import { exchangeCode } from '../helpers/woocommerce-plugin.ts';
import { storefrontQuery } from '../platforms/tinyshop/storefront.ts';
import { ACCOUNT_KIND, SHOP_LINK_KIND } from '../../src/accounts/account-records.ts';
import { raw } from '../helpers/raw-records.ts';

const PLATFORMS: Platform[] = ['shopify', 'woocommerce', 'bigcommerce'];
const REGISTERED: Registered[] = ['tinyshop'];
const ROUTES = routesOf(shopAdminApi({ store: {} } as unknown as ShopAdminApiParts));
const backends: Array<'lowdb' | 'postgres'> = ['lowdb', ...(postgresAvailable() ? (['postgres'] as const) : [])];

/** What a merchant has on the bridge after a first hour of use: ids to aim at, and words that must not leak. */
interface Holdings {
  merchant: Merchant;
  account: AccountRecord;
  order: { key: string; orderId: string; orderName: string };
  /** An order of a customer of the merchant's own (the test order's customer is the same in every shop). */
  sale: { key: string; orderId: string; orderName: string };
  customer: { name: string; email: string; mobile: string };
  adjustmentId: string;
  resyncId: string;
  dataRequestId: string;
  letterId: string;
}

/** A merchant's first hour: a trial account, a test order that earns, points by hand, a resync, a request, a letter. */
async function settleIn(world: TenantWorld, merchant: Merchant, tag: string): Promise<Holdings> {
  const store = world.bridge.engine.store;
  const made = await merchant.call('POST', '/account', { sandbox: true, name: `${tag} trial` });
  expect(made.status, made.text).toBe(201);
  const account = (await store.getRecord(ACCOUNT_KIND, made.body.account.id))!;
  const activity = (await merchant.call('GET', '/account/settings')).body.settings.LOYALTY_EARN_ACTIVITY_ID as string;

  const test = await merchant.call('POST', '/test-orders');
  expect(test.status, test.text).toBe(202);
  const order = test.body.testOrder as { key: string; orderId: string; orderName: string };
  await eventually(async () => expect((await store.getOrder(order.key))?.upstream.points).toBe('earned'));

  const customer = {
    name: `${tag} Person`,
    email: `${tag}-customer@sweep.example`,
    mobile: `+1212555${String(1000 + Math.floor(Math.random() * 9000))}`,
  };
  // Folded as the platform's delivery would be: what is swept is what the merchant's page reads of the ledger.
  const saleId = String(9_100_000_000 + Math.floor(Math.random() * 1_000_000_000));
  const sale = orderEvent({
    platform: merchant.platform,
    shop: merchant.shop,
    orderId: saleId,
    orderName: `#${tag}-${saleId.slice(-4)}`,
    customer,
    facts: ['placed', 'paid'],
  });
  await world.bridge.engine.ingest.events(sale.deliveryId, [sale]);
  await eventually(async () => expect((await store.getOrder(orderKey(sale)))?.upstream.points).toBe('earned'));
  const given = await merchant.call('POST', '/adjustments/earn', {
    activityId: activity,
    name: customer.name,
    email: customer.email,
    mobile: customer.mobile,
    reason: `goodwill from ${tag}`,
  });
  expect(given.status, given.text).toBe(201);
  // Rewards of its own where its platform offers them (saved off: no scope to approve), for A's writes to miss.
  const rewards = await merchant.call('PUT', '/storefront/rewards', {
    rewards: [{ points: 500, amountOff: '5.00', expiresInDays: 30, on: false }],
  });
  expect(rewards.status, rewards.text).toBe(merchant.platform === 'shopify' ? 200 : rewards.status);

  const resync = await merchant.call('POST', '/resync', { since: new Date(Date.now() - 3 * 86_400_000).toISOString() });
  expect(resync.status, resync.text).toBe(202);
  await eventually(async () =>
    expect((await merchant.call('GET', `/resync/${resync.body.job.id}`)).body.job.status).not.toBe('running'),
  );

  const dataRequestId = `${merchant.platform}:${merchant.shop}:dr-${tag}`;
  if (merchant.platform === 'shopify') {
    const body = JSON.stringify({
      shop_id: 1,
      shop_domain: merchant.shop,
      orders_requested: [],
      customer: { id: 77, email: customer.email, phone: null },
      data_request: { id: `dr-${tag}` },
    });
    const answer = await fetch(`${world.bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'customers/data_request', body, shop: merchant.shop, secret: APP_SECRET }),
      body,
    });
    expect(answer.status).toBe(200);
    await eventually(async () => expect(await store.getRecord(raw('data-request'), dataRequestId)).toBeDefined());
  } else {
    // WooCommerce and BigCommerce send no data requests: one taken down by hand for the merchant.
    await store.putRecord(raw('data-request'), dataRequestId, {
      id: dataRequestId,
      receivedAt: new Date().toISOString(),
      platform: merchant.platform,
      shop: merchant.shop,
      customer: { email: customer.email },
      orderIds: [order.orderId],
    });
  }

  const letterId = `letter-${tag}`;
  await store.addDeadLetter({
    id: letterId,
    kind: 'call',
    platform: merchant.platform,
    shop: merchant.shop,
    orderKey: order.key,
    operation: 'earn',
    reason: `the service refused the earn of ${order.key} for ${customer.email} (${tag}-letter-words)`,
  });
  const adjustments = await store.listRecords(raw<{ id: string; shop?: string; platform?: string }>('adjustment'));
  const adjustment = adjustments.find(
    ({ value }) => value.platform === merchant.platform && value.shop === merchant.shop,
  )!;
  return {
    merchant,
    account,
    order,
    sale: { key: orderKey(sale), orderId: saleId, orderName: sale.orderName },
    customer,
    adjustmentId: adjustment.value.id,
    resyncId: resync.body.job.id,
    dataRequestId,
    letterId,
  };
}

/** Everything of a merchant's that another may not read. */
const secretsOf = (held: Holdings): string[] => [
  held.merchant.shop,
  held.account.id,
  held.account.apiKey,
  held.account.brandId,
  held.order.key,
  held.order.orderName,
  held.sale.key,
  held.sale.orderId,
  held.sale.orderName,
  held.customer.name,
  held.customer.email,
  held.customer.mobile,
  held.adjustmentId,
  held.resyncId,
  held.dataRequestId,
  held.letterId,
  `${held.merchant.platform}:${held.merchant.shop}`,
  held.letterId.replace('letter-', '') + '-letter-words',
];

/** The ids a caller may aim at, in an address. */
const idsOf = (held: Holdings): string[] => [
  held.order.key,
  held.order.orderId,
  held.sale.key,
  held.sale.orderId,
  held.account.id,
  held.adjustmentId,
  held.resyncId,
  held.dataRequestId,
  held.letterId,
];

/** Bodies made of another merchant's ids and names, whole and one field at a time. */
function bodiesAimedAt(held: Holdings): unknown[] {
  const fields: Record<string, unknown> = {
    account: held.account.id,
    platform: held.merchant.platform,
    shop: held.merchant.shop,
    key: held.order.key,
    orderKey: held.order.key,
    orderId: held.order.orderId,
    orderIds: [held.order.orderId],
    id: held.letterId,
    email: held.customer.email,
    mobile: held.customer.mobile,
    name: 'someone else',
    reason: 'taken over',
    activityId: '1',
    points: 1,
    since: new Date(Date.now() - 86_400_000).toISOString(),
    brandId: held.account.brandId,
    settings: { LOYALTY_EARN_ACTIVITY_ID: '2' },
  };
  // A body a route takes whole (PUT /storefront/rewards): what it writes must land on A's shop alone.
  const rewards = { rewards: [{ points: 1, amountOff: '999.00', expiresInDays: 365, on: false }] };
  return [{}, fields, ...Object.entries(fields).map(([name, value]) => ({ [name]: value })), rewards];
}

/** The values a request carries: an answer may say them back without telling anything. */
function sentValues(path: string, body: unknown): string[] {
  const values = decodeURIComponent(path)
    .split(/[/?&=]/)
    .filter((part) => part.length > 2);
  const walk = (value: unknown): void => {
    if (typeof value === 'string' || typeof value === 'number') values.push(String(value));
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(body);
  return values.sort((a, b) => b.length - a.length);
}

/** What an answer tells beyond what its request said. */
const beyond = (text: string, sent: string[]) => sent.reduce((left, value) => left.split(value).join('·'), text);

/** Everything of a merchant's the bridge and its sandbox hold, to compare before and after. */
async function stateOf(world: TenantWorld, held: Holdings): Promise<unknown> {
  const store = world.bridge.engine.store;
  const { platform, shop } = held.merchant;
  const ofShop = (value: { platform?: string; shop?: string }) => value.platform === platform && value.shop === shop;
  const records = async (kind: RecordKind) =>
    (await store.listRecords(raw<Record<string, unknown>>(kind))).filter(({ value }) => ofShop(value));
  const sandbox = await fetch(`${held.account.baseUrl}/_sandbox/state`, {
    headers: { 'x-api-key': held.account.apiKey, 'x-brand-id': held.account.brandId },
  });
  const points = (await sandbox.json()) as { earnings: unknown[]; redemptions: unknown[]; conversions: unknown[] };
  return {
    order: await store.getOrder(held.order.key),
    sale: await store.getOrder(held.sale.key),
    orders: (await store.listOrders({ page: 1, limit: 100, platform, shop })).orders,
    letters: (await store.listDeadLetters()).filter((letter) => ofShop(letter) || letter.orderKey === held.order.key),
    account: await store.getRecord(ACCOUNT_KIND, held.account.id),
    link: await store.getRecord(SHOP_LINK_KIND, `${platform}:${shop}`),
    storefront: await store.getRecord(raw('storefront'), `${platform}:${shop}`),
    rewards: await store.getRecord(raw('rewards'), `${platform}:${shop}`),
    widget: await store.getRecord(raw('storefront-widget'), `${platform}:${shop}`),
    pluginKey: platform === 'woocommerce' ? await pluginKeyOf(store, shop) : null,
    requests: await records('data-request'),
    adjustments: await records('adjustment'),
    connection: platform === 'shopify' ? null : await store.getRecord(raw('session'), `${platform}:${shop}`),
    reservations: (await store.listRecords(raw<Holder>('reward-holder'))).flatMap(({ value }) =>
      value.reservations.filter(ofShop),
    ),
    codes: await records('reward-code'),
    service: points,
  };
}

/** Every request of the sweep aimed at B: each shop route with each of B's ids in its path, B named in the query, and
 * each body aimed at B. */
function requestsAimedAt(target: Holdings): Array<{ method: string; path: string; body: unknown }> {
  const query = `?shop=${encodeURIComponent(target.merchant.shop)}&platform=${target.merchant.platform}&account=${target.account.id}&email=${encodeURIComponent(target.customer.email)}&key=${encodeURIComponent(target.order.key)}`;
  return ROUTES.flatMap((route) => {
    const paths = route.path.includes(':')
      ? idsOf(target).map((id) => route.path.replace(/:\w+/g, encodeURIComponent(id)))
      : [route.path];
    return paths.flatMap((path) =>
      route.method === 'GET'
        ? [
            { method: route.method, path, body: undefined },
            { method: route.method, path: `${path}${query}`, body: undefined },
          ]
        : bodiesAimedAt(target).map((body) => ({ method: route.method, path, body })),
    );
  });
}

describe.each(backends)('one merchant against another, on %s', (backend) => {
  let world: TenantWorld;
  const held = {} as Record<Platform, { a: Holdings; b: Holdings }>;
  const heldRegistered = {} as Record<Registered, Holdings>;
  /** Everyone A may not touch: each shipped platform's B, and every registered platform's merchant but A itself. */
  const allB = (a?: Merchant) => [
    ...PLATFORMS.map((platform) => held[platform].b),
    ...REGISTERED.map((name) => heldRegistered[name]).filter((each) => each.merchant !== a),
  ];
  const attacker = (name: Platform | Registered) =>
    name === 'tinyshop'
      ? { merchant: world.registered.tinyshop, own: heldRegistered.tinyshop }
      : { merchant: world.merchants[name].a, own: held[name].a };

  beforeAll(async () => {
    world = await startTenantWorld(backend);
    for (const platform of PLATFORMS) {
      const { a, b } = world.merchants[platform];
      held[platform] = { a: await settleIn(world, a, `${platform}-a`), b: await settleIn(world, b, `${platform}-b`) };
    }
    for (const name of REGISTERED) heldRegistered[name] = await settleIn(world, world.registered[name], name);
  }, 240_000);
  afterAll(() => world?.stop());

  it('finds the shop routes it sweeps in the router itself', () => {
    expect(ROUTES.length).toBeGreaterThan(20);
    expect(ROUTES).toContainEqual({ method: 'GET', path: '/orders/:key' });
    expect(ROUTES).toContainEqual({ method: 'POST', path: '/test-orders/:id/cancel' });
    expect(ROUTES).toContainEqual({ method: 'GET', path: '/storefront/rewards' });
    expect(ROUTES).toContainEqual({ method: 'PUT', path: '/storefront/rewards' });
  });

  it.each<Platform | Registered>([...PLATFORMS, ...REGISTERED])(
    "gives merchant A of %s nothing of any B's through any route, and changes nothing of theirs",
    async (platform) => {
      const { merchant: a, own: ownHoldings } = attacker(platform);
      const targets = allB(a);
      const before = await Promise.all(targets.map((each) => stateOf(world, each)));
      // The session works: A reads its own order, so every refusal below is about B, not a session turned away.
      const own = await a.call('GET', `/orders/${encodeURIComponent(ownHoldings.sale.key)}`);
      expect(own.status, own.text).toBe(200);
      const leaks: Array<{ secret: string; leak: string }> = [];
      const ownOfA = new Set(secretsOf(ownHoldings));
      // Eight requests at a time: each waits on the ledger's writes and the service, so one at a time left the
      // processor idle; every request is still made and read (issue 67).
      const queue = new PQueue({ concurrency: 8 });
      for (const target of targets) {
        const secrets = secretsOf(target).filter((secret) => !ownOfA.has(secret));
        for (const request of requestsAimedAt(target)) {
          void queue.add(async () => {
            const answer = await a.call(request.method, request.path, request.body);
            const told = beyond(answer.text, sentValues(request.path, request.body));
            for (const secret of secrets)
              if (told.includes(secret))
                leaks.push({
                  secret,
                  leak: `${request.method} ${request.path} ${JSON.stringify(request.body)} told "${secret}"`,
                });
          });
        }
      }
      await queue.onIdle();
      // A test order is named by the last four digits of its id ("Test order 9487"): one that A made during the
      // sweep may share its name with B's. A name of one of A's own orders tells nothing of B's; B's order keys
      // and ids, which are also looked for, still would.
      const namesOfA = new Set(
        (await world.bridge.engine.store.listOrders({ page: 1, limit: 1_000, platform, shop: a.shop })).orders.map(
          (order) => order.orderName,
        ),
      );
      const sharedName = (secret: string) => /^Test order \d{4}$/.test(secret) && namesOfA.has(secret);
      expect(leaks.filter(({ secret }) => !sharedName(secret)).map(({ leak }) => leak)).toEqual([]);
      expect(await Promise.all(targets.map((each) => stateOf(world, each)))).toEqual(before);
    },
    300_000,
  );

  it('lets a WooCommerce merchant sign nothing for another store with its own webhook secret', async () => {
    const before = await Promise.all(allB().map((each) => stateOf(world, each)));
    const store = world.bridge.engine.store;
    const a = held.woocommerce.a;
    const own = (await store.getRecord(raw<WooConnection>('session'), `woocommerce:${a.merchant.shop}`))!;
    for (const target of allB()) {
      const body = wooOrderJson({ id: Number(target.order.orderId) || 424242, status: 'processing' });
      for (const source of [`https://${target.merchant.shop}/`, `http://${target.merchant.shop}/`]) {
        const headers = {
          ...wooHeaders('order.created', body),
          'x-wc-webhook-source': source,
          'x-wc-webhook-signature': signWoo(body, own.webhookSecret),
        };
        const answer = await fetch(`${world.bridge.http.localUrl}/webhooks/woocommerce`, {
          method: 'POST',
          headers,
          body,
        });
        if (target.merchant.platform === 'woocommerce') expect(answer.status).toBe(401);
      }
    }
    await world.bridge.engine.drain();
    expect(await Promise.all(allB().map((each) => stateOf(world, each)))).toEqual(before);
  });

  it("lets no merchant's sign-in at another's store address take that store", async () => {
    const before = await Promise.all(allB().map((each) => stateOf(world, each)));
    const b = held.woocommerce.b;
    const connection = (await world.bridge.engine.store.getRecord(
      raw<WooConnection>('session'),
      `woocommerce:${b.merchant.shop}`,
    ))!;
    // A asks to sign in to B's store's page, which WordPress at B's address would have to approve; A posts a key of
    // its own making to the bridge's callback under the nonce it was handed, and comes back with success=1.
    const opened = await fetch(
      `${world.bridge.http.localUrl}/woocommerce/open?store=${encodeURIComponent(connection.url)}`,
      { redirect: 'manual' },
    );
    expect(opened.status).toBe(303);
    const authorize = new URL(opened.headers.get('location')!);
    const callback = new URL(authorize.searchParams.get('callback_url')!);
    const posted = await fetch(`${world.bridge.http.localUrl}${callback.pathname}${callback.search}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        key_id: 991,
        user_id: authorize.searchParams.get('user_id'),
        consumer_key: 'ck_madebyanotherstore0001',
        consumer_secret: 'cs_madebyanotherstore0001',
        key_permissions: 'read_write',
      }),
    });
    expect(posted.status).toBeLessThan(500);
    const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0]!;
    const returned = await fetch(
      `${world.bridge.http.localUrl}/woocommerce/return?success=1&user_id=${authorize.searchParams.get('user_id')}`,
      { redirect: 'manual', headers: { cookie } },
    );
    expect(returned.status).not.toBe(303);
    expect(await Promise.all(allB().map((each) => stateOf(world, each)))).toEqual(before);
  });

  it("lets merchant A neither flip nor read another shop's storefront switch, whatever its request names", async () => {
    for (const name of [...PLATFORMS, ...REGISTERED]) {
      const { merchant: a } = attacker(name);
      const own = async () => (await a.call('GET', '/storefront')).body as unknown;
      for (const target of allB(a)) {
        const { platform, shop } = target.merchant;
        const naming = `?shop=${encodeURIComponent(shop)}&platform=${platform}`;
        // B's switch on where B may turn it on, so that A's "off" would show too.
        const bOn = await target.merchant.call('PUT', '/storefront', { on: true });
        const before = await stateOf(world, target);
        for (const on of [true, false]) {
          const answer = await a.call('PUT', `/storefront${naming}`, { on, shop, platform });
          expect(answer.status, answer.text).not.toBe(500);
        }
        expect(await stateOf(world, target)).toEqual(before);
        // A's GET naming B tells A's own switch, never B's state or readiness.
        expect((await a.call('GET', `/storefront${naming}`)).body).toEqual(await own());
        if (bOn.status === 200) await target.merchant.call('PUT', '/storefront', { on: false });
      }
    }
  });

  it("lets a customer of BigCommerce store A reach nothing of store B's through the storefront and its rewards, whatever the request names", async () => {
    const url = world.bridge.http.localUrl;
    const [a, b] = [held.bigcommerce.a, held.bigcommerce.b];
    const ids = { a: 7101, b: 7201 };
    const tokenOf = (hash: string, customerId: number, email: string) =>
      currentCustomerJwt({
        storeHash: hash,
        customerId,
        email,
        clientId: BC_CLIENT_ID,
        clientSecret: BC_CLIENT_SECRET,
      });
    const ask = async (path: string, token?: string, method = 'GET') => {
      const response = await fetch(`${url}/bigcommerce/storefront/points${path}`, {
        method,
        headers: { origin: 'https://shop.example', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
      const text = await response.text();
      return { status: response.status, text, body: (text.startsWith('{') ? JSON.parse(text) : {}) as any };
    };
    const rewardOf: Record<'a' | 'b', string> = { a: '', b: '' };
    for (const side of ['a', 'b'] as const) {
      const { merchant } = held.bigcommerce[side];
      addCustomer(world.bc, merchant.shop, { id: ids[side], email: held.bigcommerce[side].customer.email });
      const on = await merchant.call('PUT', '/storefront', { on: true });
      expect(on.status, on.text).toBe(200);
      const saved = await merchant.call('PUT', '/storefront/rewards', {
        rewards: [{ points: 1, amountOff: '1.00', expiresInDays: 30 }],
      });
      expect(saved.status, saved.text).toBe(200);
      rewardOf[side] = saved.body.rewards[0].id as string;
    }
    // B's customer holds a code of B's: A's customer must never see it, spend it, or end it.
    const bToken = tokenOf(b.merchant.shop, ids.b, b.customer.email);
    // Its order's points approved at the service (the sweep's orders are paid, not yet fulfilled).
    const serviceOfB = world.bridge.sandbox!.accounts.find((each) => each.credentials.brandId === b.account.brandId)!;
    for (const { orderId } of serviceOfB.store.snapshot().earnings)
      if (orderId !== null) serviceOfB.store.updatePoints(orderId, 'approve');
    await eventually(async () => expect((await ask('', bToken)).body.balance?.available).toBeGreaterThan(0), 20_000);
    const made = await ask(`/redeem?reward=${encodeURIComponent(rewardOf.b)}`, bToken, 'POST');
    expect(made.status, made.text).toBe(200);
    const codeOfB = made.body.code as string;
    const before = await stateOf(world, b);
    const scriptsOfB = scriptsOf(world.bc, b.merchant.shop).map((each) => each.uuid);
    expect(scriptsOfB).toHaveLength(1);
    const ownOfA = new Set(secretsOf(a));
    const secrets = [...secretsOf(b).filter((secret) => !ownOfA.has(secret)), codeOfB, String(ids.b)];

    const naming = [
      '',
      `?shop=${b.merchant.shop}&platform=bigcommerce&customer_id=${ids.b}&customerId=${ids.b}&email=${encodeURIComponent(b.customer.email)}&code=${codeOfB}`,
      `?store=${b.merchant.shop}`,
      `?account=${b.account.id}&brandId=${b.account.brandId}`,
    ];
    const tokens = [
      tokenOf(a.merchant.shop, ids.a, a.customer.email),
      // A's store, B's customer's id and e-mail: a customer A's store has no record of.
      tokenOf(a.merchant.shop, ids.b, b.customer.email),
      undefined,
    ];
    const leaks: string[] = [];
    for (const token of tokens)
      for (const query of naming)
        for (const [method, path] of [
          ['GET', query],
          ['POST', `/redeem${query}${query ? '&' : '?'}reward=${encodeURIComponent(rewardOf.b)}`],
          ['POST', `/redeem${query}${query ? '&' : '?'}reward=${encodeURIComponent(rewardOf.a)}`],
        ] as const) {
          const guestOfA =
            token === undefined && !query.includes('store=')
              ? `${path}${path.includes('?') ? '&' : '?'}store=${a.merchant.shop}`
              : path;
          const answer = await ask(guestOfA, token, method);
          expect(answer.status, `${method} ${guestOfA}`).not.toBe(500);
          const told = beyond(answer.text, sentValues(guestOfA, undefined));
          for (const secret of secrets) if (told.includes(secret)) leaks.push(`${method} ${guestOfA} told "${secret}"`);
        }
    expect(leaks).toEqual([]);
    expect(await stateOf(world, b)).toEqual(before);
    expect(scriptsOf(world.bc, b.merchant.shop).map((each) => each.uuid)).toEqual(scriptsOfB);
    const still = await ask('', bToken);
    expect(still.body.codes.map((each: { code: string }) => each.code)).toEqual([codeOfB]);
  });

  it("connects with the plugin code A's page asks A's store alone, and tells A nothing of B's plugin, widget or rewards", async () => {
    const [a, b] = [held.woocommerce.a, held.woocommerce.b];
    // B's plugin connected as B's merchant would: its key and key id are B's secrets from here on.
    const codeOfB = await b.merchant.call('POST', '/storefront/plugin-code');
    expect(codeOfB.status, codeOfB.text).toBe(200);
    const connected = await exchangeCode(codeOfB.body.code, world.woo.b.url);
    expect(connected.status, connected.body).toBe(200);
    const keyOfB = JSON.parse(connected.body) as { store: string; keyId: string; key: string };
    expect(keyOfB.store).toBe(b.merchant.shop);
    const before = await Promise.all(allB().map((each) => stateOf(world, each)));
    const ownOfA = new Set(secretsOf(a));
    const secrets = [...secretsOf(b).filter((secret) => !ownOfA.has(secret)), keyOfB.keyId, keyOfB.key];
    const naming = `?shop=${encodeURIComponent(b.merchant.shop)}&platform=woocommerce&store=${encodeURIComponent(world.woo.b.url)}`;
    const aimed = { shop: b.merchant.shop, platform: 'woocommerce', store: world.woo.b.url, siteUrl: world.woo.b.url };
    const leaks: string[] = [];
    const told = (what: string, answer: { text: string }, path: string, body?: unknown) => {
      const left = beyond(answer.text, sentValues(path, body));
      for (const secret of secrets) if (left.includes(secret)) leaks.push(`${what} told "${secret}"`);
    };
    for (const path of ['/storefront', '/storefront/rewards', `/storefront${naming}`, `/storefront/rewards${naming}`])
      told(`GET ${path}`, await a.merchant.call('GET', path), path);
    // A's code, asked naming B every way, and exchanged at B's address: refused, B's key untouched.
    const asked = await a.merchant.call('POST', `/storefront/plugin-code${naming}`, aimed);
    expect(asked.status, asked.text).toBe(200);
    told('POST /storefront/plugin-code', asked, `/storefront/plugin-code${naming}`, aimed);
    const atB = await exchangeCode(asked.body.code, world.woo.b.url);
    expect(atB.status).not.toBe(200);
    for (const secret of secrets) expect(atB.body).not.toContain(secret);
    expect(await Promise.all(allB().map((each) => stateOf(world, each)))).toEqual(before);
    // The same code still connects A's own store, and only it.
    const atA = await exchangeCode(asked.body.code, world.woo.a.url);
    expect(atA.status, atA.body).toBe(200);
    expect(JSON.parse(atA.body).store).toBe(a.merchant.shop);
    // The BigCommerce launcher on B's store (its widget) reads as A's own state in A's answers, never B's.
    const bcOn = await held.bigcommerce.b.merchant.call('PUT', '/storefront', { on: true });
    expect(bcOn.status, bcOn.text).toBe(200);
    const bcA = held.bigcommerce.a;
    const bcSecrets = secretsOf(held.bigcommerce.b).filter((secret) => !new Set(secretsOf(bcA)).has(secret));
    const bcNaming = `?shop=${held.bigcommerce.b.merchant.shop}&platform=bigcommerce`;
    for (const path of ['/storefront', `/storefront${bcNaming}`, `/storefront/rewards${bcNaming}`]) {
      const left = beyond((await bcA.merchant.call('GET', path)).text, sentValues(path, undefined));
      for (const secret of bcSecrets) if (left.includes(secret)) leaks.push(`BigCommerce GET ${path} told "${secret}"`);
    }
    expect(leaks).toEqual([]);
    expect(await pluginKeyOf(world.bridge.engine.store, b.merchant.shop)).toMatchObject({ keyId: keyOfB.keyId });
  });

  // Last: an uninstall accepted here would end A's sessions for the tests above.
  it('lets what Shopify and BigCommerce sign for merchant A act for A alone, at every door and callback', async () => {
    const before = await Promise.all(allB().map((each) => stateOf(world, each)));
    const url = world.bridge.http.localUrl;
    const [a, b] = [world.merchants.shopify.a, world.merchants.shopify.b];
    const idToken = await a.session();
    for (const shop of [b.shop, a.shop]) {
      const path = `/shopify/app?embedded=1&shop=${encodeURIComponent(shop)}&id_token=${encodeURIComponent(idToken)}`;
      const opened = await fetch(`${url}${path}`, { redirect: 'manual' });
      const told = beyond(
        `${opened.headers.get('location') ?? ''} ${await opened.text()}`,
        sentValues(path, undefined),
      );
      for (const secret of secretsOf(held.shopify.b)) expect(told).not.toContain(secret);
    }
    const bcA = held.bigcommerce.a.merchant.shop;
    const payload = world.bc.signedPayload(bcA);
    for (const path of ['/bigcommerce/load', '/bigcommerce/remove_user', '/bigcommerce/uninstall']) {
      const answer = await fetch(`${url}${path}?signed_payload_jwt=${encodeURIComponent(payload)}`, {
        redirect: 'manual',
      });
      const text = await answer.text();
      for (const target of allB()) for (const secret of secretsOf(target)) expect(text).not.toContain(secret);
    }
    // A's own customers/redact, naming every B's customer and orders: it erases in A's shop alone.
    for (const target of allB()) {
      const body = JSON.stringify({
        shop_id: 1,
        shop_domain: a.shop,
        customer: { id: 78, email: target.customer.email, phone: target.customer.mobile },
        orders_to_redact: [target.order.orderId, target.sale.orderId].map(Number).filter(Number.isSafeInteger),
      });
      const answer = await fetch(`${url}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic: 'customers/redact', body, shop: a.shop, secret: APP_SECRET }),
        body,
      });
      expect(answer.status).toBe(200);
    }
    await world.bridge.engine.drain();
    expect(await Promise.all(allB().map((each) => stateOf(world, each)))).toEqual(before);
  });

  it("turns on no store's storefront but the merchant's own: TinyShop's answers 404 until its merchant turns it on", async () => {
    const points = () =>
      fetch(`${world.bridge.http.localUrl}/tinyshop/storefront/points?${storefrontQuery(TINY_SECRET, TINY_STORE)}`);
    for (const platform of PLATFORMS)
      for (const merchant of [world.merchants[platform].a, world.merchants[platform].b]) {
        // Whatever it names, a merchant's switch is its own shop's (and these platforms' storefronts are not built yet).
        const answer = await merchant.call('PUT', `/storefront?shop=${TINY_STORE}&platform=tinyshop`, {
          on: true,
          shop: TINY_STORE,
          platform: 'tinyshop',
        });
        expect(answer.status, answer.text).not.toBe(500);
        expect((await points()).status).toBe(404);
      }
    expect((await world.registered.tinyshop.call('PUT', '/storefront', { on: true })).status).toBe(200);
    expect((await points()).status).toBe(200);
    expect((await world.registered.tinyshop.call('PUT', '/storefront', { on: false })).status).toBe(200);
  });
});
