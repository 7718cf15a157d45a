// Found in a review of platforms registered as modules (platform-routes.ts, store-page-door.ts, the lbp1
// session family), against a running bridge with TinyShop and made-up modules beside it; each failing when
// written:
//   - a session for no shop (a module answering { merchantPage: { shop: '' } }) was made and taken: the shop
//     routes read an empty shop as "any shop", so it listed every store of the platform's orders
//   - a session with anything after its signature (token + '.x') was taken as the session itself
//   - a POST over a route's limit, or a door whose check threw, was answered with Express's own error page (the
//     error's words and stack, with the bridge's paths); and a body declared over the limit was read to its end
//     before the answer, so a sender held the connection as long as it liked
//   - a JSON answer took the type its module set (text/html), so anything it echoed ran as the bridge's page
//   - a collision's reason named the other store's order in full when that store's name held a space
//   - TinyShop's dedupe keys, as the guide had a module write them (<name>:<shop>:<id>), were the same for a
//     delivery of store "acme" with id "x:1" and one of store "acme:x" with id "1"; "acme"'s erasure forgot both
//   - the operator's stores panel (GET /admin/api/stores) passed on whatever a module's `connections` handed
//     over beside a store's view (a store record's key), where it had named each field before the platforms'
//     stores came from their modules
// What held, kept here so it stays so: one platform's session opens no other's (another registered platform,
// one whose name starts the same, a shipped family's), each has its own key, a merchant sees their own store's
// orders, letters, data requests and resyncs alone, and a module cannot take a path or setting of the bridge's.
import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { keptPageKey } from '../../src/composition/kept-page-key.ts';
import { registrationProblems } from '../../src/composition/module-registration.ts';
import {
  merchantPageAnswer,
  redirectAnswer,
  routeQuery,
  scriptAnswer,
  textAnswer,
  withHeaders,
} from '../../src/core/platform-answers.ts';
import type { PlatformModule, PlatformRoute, StoreConnectionView } from '../../src/core/platform-module.ts';
import { orderEventSchema } from '../../src/core/order-event.ts';
import { collisionReason } from '../../src/core/worker/lp-order-ids.ts';
import { BRIDGE_SHOP_TOKEN_TTL_MS, bridgeShopTokens } from '../../src/http/bridge-shop-token.ts';
import { modulePagePurpose } from '../../src/http/platform-routes.ts';
import { text } from '../../src/setting-kinds.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { SHOP } from '../helpers/shopify.ts';
import { tinyShopAdapter } from '../platforms/tinyshop/adapter.ts';
import {
  signedDelivery,
  signInPath,
  startFakeTinyShop,
  tinyOrder,
  type FakeTinyShop,
} from '../platforms/tinyshop/fake-tinyshop.ts';
import { tinyShop } from '../platforms/tinyshop/module.ts';
import { orderEvent } from '../platforms/tinyshop/orders.ts';
import { raw } from '../helpers/raw-records.ts';
import type { RecordKind } from '../../src/core/store/roles/records.ts';
import { NOTHING_MORE } from '../helpers/bare-module.ts';
import { tabDoor } from '../../src/core/capabilities/door.ts';

const STORE = 'acme-bikes';
const OTHER = 'other-store';
const SECRET = 'tinyshop-webhook-secret-0123456789';
const API_TOKEN = 'tinyshop-api-token';
const ADMIN_TOKEN = 'modules-operator-token-0123456789';
const SHOPIFY_SECRET = 'shopify-app-secret-for-modules-0123';
/** What a made-up module's sign-in takes as proof: the review is of the bridge, not of a module's proof. */
const PROOF = 'made-up-proof';
const LEAK = 'db password=hunter2';

/** A platform of routes and a door alone, whose door takes the shops `serves` names. */
function pageModule(name: string, serves: (shop: string) => boolean): PlatformModule<Record<string, never>> {
  const routes: PlatformRoute[] = [
    {
      method: 'GET',
      path: '/open',
      handle: async (request) => {
        const query = routeQuery(request);
        return query.proof === PROOF
          ? merchantPageAnswer({ shop: query.store ?? '', user: null, mayConnectPlugin: null })
          : textAnswer(401, 'no');
      },
    },
    { method: 'GET', path: '/go', handle: async (request) => redirectAnswer(routeQuery(request).to ?? '/') },
    {
      method: 'GET',
      path: '/header',
      handle: async (request) => withHeaders(textAnswer(200, 'ok'), { 'x-echo': routeQuery(request).value ?? '' }),
    },
    {
      method: 'GET',
      path: '/echo',
      handle: async (request) =>
        Response.json({ error: `no store ${routeQuery(request).store ?? ''}` }, { status: 404 }),
    },
    {
      method: 'GET',
      path: '/html',
      handle: async (request) =>
        Response.json(
          { error: `no store ${routeQuery(request).store ?? ''}` },
          { status: 404, headers: { 'content-type': 'text/html' } },
        ),
    },
    {
      method: 'GET',
      path: '/retyped.js',
      handle: async () => withHeaders(scriptAnswer('document.title = 1;', 60), { 'content-type': 'text/html' }, []),
    },
    {
      method: 'GET',
      path: '/boom',
      handle: async () => {
        throw new Error(LEAK);
      },
    },
    {
      method: 'POST',
      path: '/callback',
      handle: async (request) => Response.json({ bytes: (await request.arrayBuffer()).byteLength }),
    },
    {
      method: 'POST',
      path: '/small',
      maxBodyBytes: 1024,
      handle: async (request) => Response.json({ bytes: (await request.arrayBuffer()).byteLength }),
    },
  ];
  return {
    name,
    sharedRecords: [],
    ...NOTHING_MORE,
    names: { platform: name, shop: 'store', admin: `the ${name} admin` },
    settings: {},
    build: () => ({
      routes,
      door: tabDoor(async ({ shop }) => (serves(shop) ? undefined : { status: 401, error: 'not a store served here' })),
    }),
  };
}

/** A platform whose stores panel lists its stores as it keeps them: each with the key it reads the store with. */
const STORE_KEY = 'listed-store-api-key-0123456789';
const listingModule: PlatformModule<Record<string, never>> = {
  name: 'listing',
  sharedRecords: [],
  ...NOTHING_MORE,
  names: { platform: 'Listing', shop: 'store', admin: 'the Listing admin' },
  settings: {},
  build: () => ({
    // What a module may well hand over: its records, the view's fields and the rest beside them.
    connections: {
      list: async () => [
        {
          shop: 'listed-store',
          url: 'https://listed.example',
          via: 'connect',
          connectedAt: null,
          keyPermissions: null,
          authMode: null,
          accessToken: STORE_KEY,
        } as StoreConnectionView,
      ],
    },
  }),
};

let fake: FakeTinyShop;
let bridge: RunningBridge;
const url = (path: string) => `${bridge.http.localUrl}${path}`;
const store = () => bridge.engine.store;

/** The session a sign-in's page carries, if any. */
async function sessionFrom(path: string): Promise<string | undefined> {
  const html = await (await fetch(url(path))).text();
  return /<meta name="loyalty-bridge-session" content="([^"]+)">/.exec(html)?.[1];
}

async function as(session: string, path: string, method = 'GET') {
  const answer = await fetch(url(`/admin/api${path}`), { method, headers: { authorization: `Bearer ${session}` } });
  const body = await answer.text();
  return { status: answer.status, body, json: () => JSON.parse(body) as Record<string, unknown> };
}

/** The first answer to a POST that declares a body of `length` and sends none of it. */
function headersOnly(path: string, length: number): Promise<string> {
  const { port } = new URL(bridge.http.localUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.write(`POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${length}\r\n\r\n`),
    );
    socket.once('data', (chunk) => {
      socket.destroy();
      resolve(chunk.toString('latin1'));
    });
    socket.once('error', reject);
  });
}

/** A session of a module's family for any claims, signed with the key the bridge keeps for it. */
async function signed(name: string, claims: Record<string, unknown>): Promise<string> {
  const key = createHmac('sha256', await keptPageKey(store(), `${name}-store-page`))
    .update(modulePagePurpose(name).label)
    .digest();
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `lbp1.${name}.${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

const event = (platform: string, shop: string, id: number) =>
  orderEventSchema.parse({ ...orderEvent(shop, tinyOrder(id, 'paid'), `seed-${id}`), platform });

beforeAll(async () => {
  fake = await startFakeTinyShop(API_TOKEN);
  bridge = await startTestBridge(
    {
      TINYSHOP_STORE: STORE,
      TINYSHOP_WEBHOOK_SECRET: SECRET,
      TINYSHOP_API_URL: fake.url,
      TINYSHOP_API_TOKEN: API_TOKEN,
      ADMIN_TOKEN,
      RECONCILE_INTERVAL_MINUTES: '0',
      SHOPIFY_API_KEY: 'modules-review-app',
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      SHOPIFY_APP_URL: 'https://bridge.example',
      SHOPIFY_EMBEDDED: 'false',
    },
    undefined,
    {
      modules: [
        tinyShop,
        // Takes any shop its sign-in names: the bridge's own checks are all that stand.
        pageModule('tiny', () => true),
        pageModule('tinys', (shop) => shop === STORE),
        pageModule('flaky', () => {
          throw new Error(LEAK);
        }),
        listingModule,
      ],
    },
  );
  const paid = signedDelivery(SECRET, STORE, 'order.paid', tinyOrder(7001, 'paid'), 'modules-7001');
  expect((await fetch(url('/webhooks/tinyshop'), { method: 'POST', ...paid })).status).toBe(200);
  // Orders of other stores: a Shopify shop's, another TinyShop store's, one whose name starts as this one's,
  // this store's name on another registered platform, and two stores of the lenient platform.
  for (const [n, [platform, shop]] of (
    [
      ['shopify', SHOP],
      ['tinyshop', OTHER],
      ['tinyshop', `${STORE}:x`],
      ['tinys', STORE],
      ['tiny', 'victim-a'],
      ['tiny', 'victim-b'],
    ] as const
  ).entries())
    await bridge.engine.ingest.events(`modules-seed-${n}`, [event(platform, shop, 8000 + n)]);
  await bridge.engine.drain();
}, 60_000);
afterAll(async () => {
  await bridge?.stop();
  await fake?.stop();
});

describe('a platform module’s sessions', () => {
  it('open their own platform’s store alone, and no other family’s token passes for one', async () => {
    const tinyshop = (await sessionFrom(signInPath(SECRET, STORE)))!;
    const tiny = (await sessionFrom(`/tiny/open?proof=${PROOF}&store=${STORE}`))!;
    const tinyShopPage = (await sessionFrom(`/tinys/open?proof=${PROOF}&store=${STORE}`))!;
    const shopify = bridgeShopTokens([SHOPIFY_SECRET], Date.now, modulePagePurpose('shopify')).mint(SHOP);
    for (const [session, platform, shop] of [
      [tinyshop, 'tinyshop', STORE],
      [tiny, 'tiny', STORE],
      [tinyShopPage, 'tinys', STORE],
      [shopify, 'shopify', SHOP],
    ] as const)
      expect((await as(session, '/session')).json()).toEqual({ caller: 'shop', platform, shop, storeName: shop });

    // The same claims and signature under another family's prefix: "tiny" is a prefix of "tinys" by name,
    // never by token (lbp1.tiny. is not a prefix of lbp1.tinys.), and each platform's key is its own.
    const claimsOf = (session: string) => session.replace(/^lbp1\.[a-z0-9-]+\.|^lb[sbw]1\./, '');
    for (const [session, family] of [
      [tiny, 'lbp1.tinys.'],
      [tinyShopPage, 'lbp1.tiny.'],
      [tinyshop, 'lbp1.tiny.'],
      [tinyshop, 'lbw1.'],
      [tinyshop, 'lbb1.'],
      [tinyshop, 'lbs1.'],
      [shopify, 'lbp1.tinyshop.'],
      [shopify, 'lbp1.tiny.'],
    ] as const)
      expect((await as(`${family}${claimsOf(session)}`, '/orders')).status).toBe(401);
    const keys = await Promise.all(['tinyshop', 'tiny', 'tinys'].map((name) => signed(name, { shop: STORE })));
    expect(new Set(keys.map(claimsOf)).size).toBe(3);

    // One session, one spelling: nothing after the signature.
    expect((await as(`${tinyshop}.x`, '/session')).status).toBe(401);
    expect((await as(`${tinyshop}.`, '/session')).status).toBe(401);
  });

  it('always name a shop: none is made or taken for no shop', async () => {
    const answer = await fetch(url(`/tiny/open?proof=${PROOF}&store=`));
    expect(answer.status).toBe(500);
    expect(await answer.text()).not.toContain('loyalty-bridge-session');
    // Signed with the platform's own key, as a module's bug or a leaked key would make it: still nothing.
    const forged = await signed('tiny', { shop: '', exp: Date.now() + BRIDGE_SHOP_TOKEN_TTL_MS });
    const orders = await as(forged, '/orders');
    expect(orders.status).toBe(401);
    expect(orders.body).not.toContain('victim');
    expect((await as(forged, '/resync', 'POST')).status).toBe(401);
  });
});

describe('a platform module’s routes', () => {
  it('tell nothing of the bridge’s insides when a route, a body or a door fails', async () => {
    const large = await fetch(url('/tiny/callback'), { method: 'POST', body: 'x'.repeat(65 * 1024) });
    expect(large.status).toBe(413);
    expect(large.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await large.json()).toEqual({ error: 'the body is too large' });

    // Refused from its declared length, before a byte of it is sent.
    const declared = await headersOnly('/tiny/callback', 10_000_000);
    expect(declared).toMatch(/^HTTP\/1\.1 413 /);
    // A route that takes only small bodies is refused past its own limit, also before a byte of it is sent.
    expect(await headersOnly('/tiny/small', 2048)).toMatch(/^HTTP\/1\.1 413 /);
    const small = await fetch(url('/tiny/small'), { method: 'POST', body: 'x'.repeat(1024) });
    expect(await small.json()).toEqual({ bytes: 1024 });

    // The exact bytes, as they came: a compressed body is not inflated (nor could it grow past the limit).
    const gzipped = gzipSync(Buffer.alloc(1_000_000));
    const encoded = await fetch(url('/tiny/callback'), {
      method: 'POST',
      body: gzipped,
      headers: { 'content-encoding': 'gzip' },
    });
    expect(await encoded.json()).toEqual({ bytes: gzipped.length });

    const thrown = await fetch(url('/tiny/boom'));
    expect(thrown.status).toBe(500);
    expect(await thrown.text()).not.toContain(LEAK);

    const flaky = (await sessionFrom(`/flaky/open?proof=${PROOF}&store=${STORE}`))!;
    const refused = await as(flaky, '/orders');
    expect(refused.status).toBe(500);
    expect(refused.body).not.toContain(LEAK);
    expect(refused.body).not.toMatch(/node_modules|\bat /);
    expect(refused.json()).toHaveProperty('error');
  });

  it('send a module’s answer as what it is: a header cannot be split, JSON is never a page', async () => {
    const redirect = await fetch(url('/tiny/go?to=%0d%0aset-cookie:%20a=b'), { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('set-cookie')).toBeNull();
    const split = await fetch(url('/tiny/header?value=a%0d%0aset-cookie:%20a=b'));
    expect(split.status).toBe(500);
    expect(split.headers.get('set-cookie')).toBeNull();

    const echoed = await fetch(url(`/tiny/echo?store=${encodeURIComponent('<script>alert(1)</script>')}`));
    expect(echoed.status).toBe(404);
    expect(echoed.headers.get('content-type')).toMatch(/^application\/json/);
    expect(echoed.headers.get('x-content-type-options')).toBe('nosniff');
    // An answer a module typed as HTML itself is refused: only the bridge's own pages are pages.
    const typed = await fetch(url(`/tiny/html?store=${encodeURIComponent('<script>alert(1)</script>')}`));
    expect(typed.status).toBe(500);
    expect(typed.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await typed.text()).not.toContain('<script>');
    // A script of the bridge's, its type changed since it was made: still served as a script, never as a page.
    const retyped = await fetch(url('/tiny/retyped.js'));
    expect(retyped.headers.get('content-type')).toMatch(/^application\/javascript/);
  });
});

describe('the operator’s stores panel, with a module’s stores', () => {
  const operator = (path: string, init: RequestInit = {}) =>
    fetch(url(`/admin/api/stores${path}`), {
      ...init,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    });

  it('lists what a store view says and nothing else a module handed over with it', async () => {
    const listed = await operator('');
    expect(listed.status).toBe(200);
    const text = await listed.text();
    expect(text).not.toContain(STORE_KEY);
    const { stores } = JSON.parse(text) as { stores: Array<Record<string, unknown>> };
    expect(stores.find((each) => each.platform === 'listing')).toEqual({
      platform: 'listing',
      platformLabel: 'Listing',
      shop: 'listed-store',
      url: 'https://listed.example',
      via: 'connect',
      connectedAt: null,
      keyPermissions: null,
      authMode: null,
      subscriptions: null,
      reconciledAt: null,
    });
  });

  it('connects through no platform that has no connect, whatever the path names', async () => {
    for (const name of ['listing', 'tiny', '__proto__', 'constructor', 'hasOwnProperty', 'toString'])
      expect(
        (await operator(`/${name}/connect`, { method: 'POST', body: '{"store":"https://a.example"}' })).status,
      ).toBe(404);
  });
});

describe('a TinyShop merchant’s page', () => {
  let session: string;
  beforeAll(async () => {
    session = (await sessionFrom(signInPath(SECRET, STORE)))!;
    const letter = { kind: 'call', platform: 'tinyshop', shop: STORE, operation: 'earn' } as const;
    const own = `tinyshop:${STORE}:7001`;
    // Its own letters, whose reasons name other stores' orders (an lp_orderid collision names the order that holds it).
    for (const [id, holder] of [
      ['names-other', `tinyshop:${OTHER}:8001`],
      ['names-longer', `tinyshop:${STORE}:x:8002`],
      ['names-platform', `tinys:${STORE}:8003`],
      ['names-shopify', `shopify:${SHOP}:8000`],
    ] as const)
      await store().addDeadLetter({ ...letter, id, orderKey: own, reason: `already used by order ${holder}.` });
    // A registered platform's store name may hold a space: the collision's own words still hide it.
    await store().addDeadLetter({
      ...letter,
      id: 'names-spaced',
      orderKey: own,
      reason: collisionReason('1', own, 'tinyshop:Other Store:8009'),
    });
    // Other stores' letters, and ones that claim this store but are another's.
    await store().addDeadLetter({
      ...letter,
      id: 'theirs-other',
      shop: OTHER,
      reason: 'x',
      orderKey: 'tinyshop:other-store:8001',
    });
    await store().addDeadLetter({
      ...letter,
      id: 'theirs-longer',
      shop: `${STORE}:x`,
      reason: 'x',
      orderKey: `tinyshop:${STORE}:x:8002`,
    });
    await store().addDeadLetter({
      ...letter,
      id: 'theirs-platform',
      platform: 'tinys',
      reason: 'x',
      orderKey: `tinys:${STORE}:8003`,
    });
    await store().addDeadLetter({ ...letter, id: 'theirs-claimed', reason: 'x', orderKey: `tinyshop:${OTHER}:8001` });
    await store().addDeadLetter({
      kind: 'call',
      id: 'theirs-unnamed',
      reason: 'x',
      orderKey: `tinys:${STORE}:8003`,
    });
    for (const [platform, shop] of [
      ['tinyshop', STORE],
      ['tinyshop', OTHER],
      ['tinyshop', `${STORE}:x`],
      ['tinys', STORE],
      ['shopify', SHOP],
    ] as const)
      await bridge.engine.privacy.handle(
        {
          type: 'data-request',
          platform,
          shop,
          customer: { email: `buyer@${shop.replace(':', '-')}.example` },
          orderIds: [],
        },
        'platform',
      );
  });

  it('shows its own store’s orders, letters and data requests alone', async () => {
    const orders = (await as(session, '/orders')).json() as { orders: Array<{ key: string }> };
    expect(orders.orders.map((order) => order.key)).toEqual([`tinyshop:${STORE}:7001`]);
    for (const key of [
      `tinyshop:${OTHER}:8001`,
      `tinyshop:${STORE}:x:8002`,
      `tinys:${STORE}:8003`,
      `shopify:${SHOP}:8000`,
    ])
      expect((await as(session, `/orders/${encodeURIComponent(key)}`)).status).toBe(404);

    const letters = (await as(session, '/dead-letters')).json() as {
      deadLetters: Array<{ id: string; reason: string }>;
    };
    expect(letters.deadLetters.map((letter) => letter.id).sort()).toEqual([
      'names-longer',
      'names-other',
      'names-platform',
      'names-shopify',
      'names-spaced',
    ]);
    for (const letter of letters.deadLetters)
      if (letter.id !== 'names-spaced') expect(letter.reason).toBe('already used by an order.');
    const spaced = letters.deadLetters.find((letter) => letter.id === 'names-spaced')!.reason;
    expect(spaced).toContain(`of order tinyshop:${STORE}:7001 is already used by an order from another store`);
    expect(spaced).not.toContain('Other Store');
    expect(spaced).not.toContain('8009');
    for (const id of ['theirs-other', 'theirs-longer', 'theirs-platform', 'theirs-claimed', 'theirs-unnamed'])
      expect((await as(session, `/dead-letters/${id}/retry`, 'POST')).status).toBe(404);

    const requests = (await as(session, '/privacy/data-requests')).json() as {
      dataRequests: Array<{ id: string; platform: string; shop: string }>;
    };
    expect(requests.dataRequests.map(({ platform, shop }) => [platform, shop])).toEqual([['tinyshop', STORE]]);
    const theirs = (await bridge.engine.privacy.dataRequests()).filter(
      (request) => request.shop !== STORE || request.platform !== 'tinyshop',
    );
    for (const request of theirs) {
      expect((await as(session, `/privacy/data-requests/${request.id}/export`)).status).toBe(404);
      expect((await as(session, `/privacy/data-requests/${request.id}`, 'DELETE')).status).toBe(404);
    }
  });

  it('sees its own resyncs alone', async () => {
    const started = await as(session, '/resync', 'POST');
    expect(started.status).toBe(400);
    const job = (id: string, platform: string, shops: string[]) => ({
      id,
      platform,
      shops,
      request: { since: new Date().toISOString() },
      status: 'done',
      progress: { fetched: 0, changed: 0, unchanged: 0, failed: 0, errors: [] },
      startedAt: new Date().toISOString(),
      finishedAt: new Date().toISOString(),
    });
    for (const [id, platform, shops] of [
      ['resync-own', 'tinyshop', [STORE]],
      ['resync-other', 'tinyshop', [OTHER]],
      ['resync-longer', 'tinyshop', [`${STORE}:x`]],
      ['resync-platform', 'tinys', [STORE]],
      ['resync-several', 'tinyshop', [STORE, OTHER]],
    ] as const)
      await store().putRecord(raw('resync-job'), id, job(id, platform, [...shops]));
    const jobs = (await as(session, '/resync')).json() as { jobs: Array<{ id: string }> };
    expect(jobs.jobs.map((each) => each.id)).toEqual(['resync-own']);
    for (const id of ['resync-other', 'resync-longer', 'resync-platform', 'resync-several'])
      expect((await as(session, `/resync/${id}`)).status).toBe(404);
  });
});

describe('registering a module', () => {
  const named = (name: string, settings: Record<string, ReturnType<typeof text>> = {}) => ({
    name,
    names: { platform: name, shop: 'store', admin: 'its admin' },
    settings,
    sharedRecords: [],
    ...NOTHING_MORE,
    build: () => undefined,
  });

  it('refuses a name that is a path or platform of the bridge’s, and a setting that is another part’s', async () => {
    for (const name of [
      'admin',
      'webhooks',
      'merchant',
      'metrics',
      'accounts',
      'kept',
      'shopify',
      'woocommerce',
      'bigcommerce',
    ])
      expect(registrationProblems([named(name)])).toEqual([`${name}: the name is taken already`]);
    expect(registrationProblems([named('tiny'), named('tiny')])).toEqual(['tiny: the name is taken already']);
    for (const key of ['ADMIN_TOKEN', 'SECRETS_KEY', 'SHOPIFY_API_SECRET', 'TINYSHOP_WEBHOOK_SECRET'])
      expect(registrationProblems([tinyShop, named('thief', { [key]: text() })])).toEqual([
        `thief: its setting ${key} is another part's already`,
      ]);
    // Refused at start, before the module is built with the operator's token.
    let built = false;
    const thief = { ...named('thief', { ADMIN_TOKEN: text() }), build: () => void (built = true) };
    await expect(startTestBridge({ ADMIN_TOKEN }, undefined, { modules: [thief] })).rejects.toThrow(
      "thief: its setting ADMIN_TOKEN is another part's already",
    );
    expect(built).toBe(false);
  });

  it("refuses a module whose records would reach another's: its name, its own kinds, the bridge's kinds", () => {
    // "shopify-pos:" and "woocommerce-connect:" ids are Shopify's and WooCommerce's own under shared kinds.
    for (const [name, near] of [
      ['shopify-pos', 'shopify'],
      ['woocommerce-connect', 'woocommerce'],
    ] as const)
      expect(registrationProblems([named(name)])).toEqual([
        `${name}: the name starts like ${near}'s, whose records it could reach`,
      ]);
    const keeping = (name: string, records: Record<string, string[]>, sharedRecords: RecordKind[] = []) => ({
      ...named(name),
      records,
      sharedRecords,
    });
    expect(registrationProblems([keeping('tiny', { session: ['apiSecret'] })])).toEqual([
      'tiny: its own record kind session must start with tiny-',
    ]);
    expect(registrationProblems([keeping('woo', { 'woo-plugin-key': [] })])).toEqual([
      "woo: the record kind woo-plugin-key is another module's",
    ]);
    expect(registrationProblems([keeping('tiny', {}, ['session', 'account', 'reward-holder'])])).toEqual([
      "tiny: account records are not a platform's to keep",
      "tiny: reward-holder records are not a platform's to keep",
    ]);
    expect(registrationProblems([keeping('tiny', { 'tiny-vault': ['token'] }, ['session', 'migration'])])).toEqual([]);
  });
});

describe('a module’s page where the bridge may keep no key', () => {
  it('says at a sign-in what the operator has to set, and opens no page', async () => {
    // Outside sandbox mode without SECRETS_KEY: no key for the page's sessions can be kept.
    const keyless = await startTestBridge(
      {
        ADMIN_TOKEN,
        RECONCILE_INTERVAL_MINUTES: '0',
        LOYALTY_BASE_URL: 'http://127.0.0.1:9',
        LOYALTY_API_KEY: 'keyless-loyalty-key-0123456789',
        LOYALTY_BRAND_ID: 'keyless-brand',
      },
      undefined,
      { modules: [pageModule('keyless', () => true)] },
    );
    try {
      const answer = await fetch(`${keyless.http.localUrl}/keyless/open?proof=${PROOF}&store=${STORE}`);
      expect(answer.status).toBe(503);
      const page = await answer.text();
      expect(page).toContain('SECRETS_KEY');
      expect(page).not.toContain('loyalty-bridge-session');
    } finally {
      await keyless.stop();
    }
  }, 30_000);
});

describe('a module’s dedupe keys, made as the guide says', () => {
  it('never make one store’s delivery another’s, nor erase another’s with a store’s', () => {
    const adapter = tinyShopAdapter(SECRET);
    const delivery = (store: string, id: string) => ({ store, id, topic: 'order.paid', order: undefined });
    const acme = adapter.describe(delivery('acme', 'x:1')).key;
    const acmeX = adapter.describe(delivery('acme:x', '1')).key;
    expect(acme).not.toBe(acmeX);
    expect(acme.startsWith(adapter.shopKeyPrefix!('acme'))).toBe(true);
    expect(acmeX.startsWith(adapter.shopKeyPrefix!('acme:x'))).toBe(true);
    expect(acmeX.startsWith(adapter.shopKeyPrefix!('acme'))).toBe(false);
  });
});
