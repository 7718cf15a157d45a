// The merchant's Orders table marks an order held by a refused call
// ('Held: see below') when its key is a dead letter's orderKey (orders.js,
// loadOrders). From another merchant's side: shop B's held order never marks
// shop A's order, even one with the same order id; letters claiming shop A
// but naming B's order (or another platform's, or a key with a longer shop
// name) are never listed to A, so neither page can be made to show a badge
// for the other; B cannot take A's letter away (and so A's badge); markup in
// an order's name or a letter's reason is drawn as text; and a forged, expired
// or crossed session token reads neither shop's letters or orders.
// The page's own loadOrders runs here against the running bridge, with a
// stand-in DOM that records what element() builds (text and attributes).
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { mintSessionToken } from '../helpers/shopify-app-links.ts';
import {
  APP_KEY,
  APP_SECRET,
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { isLetterOfShop, reasonForShop } from '../../src/services/merchant.ts';
import { collisionReason } from '../../src/core/worker/lp-order-ids.ts';
import { wooShopOf } from '../../adapters/woocommerce/shop-identity.ts';
import { orderEvent } from '../helpers/order-events.ts';

const SHOP_A = 'alpha-held.myshopify.com';
const SHOP_B = 'beta-held.myshopify.com';
/** One order id in both shops: the keys differ by shop alone. */
const SAME_ID = '9430000000001';
const A_MARKED = '9430000000002';
const MARKUP = '<img src=x onerror="alert(1)">#A2';
const REASON_MARKUP = '<s-badge tone="success">fine</s-badge><script>alert(2)</script>';
const B_NAME = '#B-HELD-SECRET';
const keyOf = (shop: string, id: string) => `shopify:${shop}:${id}`;
const [A_SAME, A_OWN_HELD, B_SAME] = [keyOf(SHOP_A, SAME_ID), keyOf(SHOP_A, A_MARKED), keyOf(SHOP_B, SAME_ID)];

let fake: FakeShopify;
let running: ShopifyAppBridge;
const store = () => running.bridge.engine.store;

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  for (const shop of [SHOP_A, SHOP_B]) fake.install(shop);
  running = await startShopifyAppBridge(fake, { SHOPIFY_SHOPS: `${SHOP_A},${SHOP_B}` });
  const deliver = async (shop: string, id: string, name: string) => {
    const body = shopifyOrderJson({ id, email: `${shop.split('.')[0]}@example.com` }).replace(
      `"name":"#${id.slice(-4)}"`,
      `"name":${JSON.stringify(name)}`,
    );
    const headers = shopifyHeaders({
      topic: 'orders/paid',
      body,
      shop,
      secret: APP_SECRET,
      webhookId: `h-${shop}-${id}`,
    });
    expect((await fetch(`${running.url}/webhooks/shopify`, { method: 'POST', headers, body })).status).toBe(200);
  };
  await deliver(SHOP_A, SAME_ID, '#A1');
  await deliver(SHOP_A, A_MARKED, MARKUP);
  // Shopify's order ids are global: a delivery of A's id under B's name is answered but never acted on.
  await deliver(SHOP_B, SAME_ID, B_NAME);
  await running.bridge.engine.drain();
  expect(await store().getOrder(B_SAME)).toBeUndefined();
  // The same id in B anyway, as on a platform whose ids are per shop (read from its API, as a resync would).
  await running.bridge.engine.ingest.events('review5-b-same', [
    orderEvent({ platform: 'shopify', shop: SHOP_B, orderId: SAME_ID, orderName: B_NAME, facts: ['placed', 'paid'] }),
  ]);
  await running.bridge.engine.drain();
  for (const key of [A_SAME, A_OWN_HELD, B_SAME]) expect(await store().getOrder(key), key).toBeDefined();
  const letter = { kind: 'call', reason: 'refused', platform: 'shopify', operation: 'earn' } as const;
  // As the worker writes them (platform, shop and orderKey from the order's record).
  await store().addDeadLetter({ ...letter, id: 'held-b-same', shop: SHOP_B, orderKey: B_SAME });
  await store().addDeadLetter({
    ...letter,
    id: 'held-a-own',
    shop: SHOP_A,
    orderKey: A_OWN_HELD,
    reason: REASON_MARKUP,
  });
  // Letters that claim shop A, or no shop, but do not name one of A's Shopify orders exactly.
  const crossed: Array<[string, Record<string, string>]> = [
    ['x-claims-a-names-b', { shop: SHOP_A, orderKey: B_SAME }],
    ['x-no-shop-names-b', { orderKey: B_SAME }],
    ['x-claims-b-names-a', { shop: SHOP_B, orderKey: A_SAME }],
    ['x-other-platform', { platform: 'bigcommerce', shop: SHOP_A, orderKey: `bigcommerce:${SHOP_A}:${SAME_ID}` }],
    ['x-other-platform-bare', { platform: 'woocommerce', shop: SHOP_A, orderKey: `woocommerce:${SHOP_A}:${SAME_ID}` }],
    ['x-colon-tail', { shop: SHOP_A, orderKey: `${keyOf(SHOP_A, '1')}:${SAME_ID}` }],
    ['x-colon-shop', { shop: `${SHOP_A}:1`, orderKey: `shopify:${SHOP_A}:1:${SAME_ID}` }],
    ['x-prefix-shop', { shop: `x${SHOP_A}`, orderKey: `shopify:x${SHOP_A}:${SAME_ID}` }],
  ];
  for (const [id, fields] of crossed)
    await store().addDeadLetter({
      kind: 'call',
      reason: 'refused',
      operation: 'earn',
      ...(fields.shop ? { platform: fields.platform ?? 'shopify' } : {}),
      ...fields,
      id,
    } as Parameters<ReturnType<typeof store>['addDeadLetter']>[0]);
}, 60_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

// --- The page's loadOrders, run on a stand-in DOM.

type Node = { tag: string; text?: string; attributes: Record<string, string>; children: Array<Node | string> };
const merchantFile = (name: string) =>
  readFileSync(new URL(`../../src/http/merchant/${name}`, import.meta.url), 'utf8');
const pageSource = merchantFile('page.js');
/** orders.js as a script: its imports are the stand-ins below, its exports plain declarations. */
const source = merchantFile('orders.js')
  .replace(/^import [^;]+;$/gm, '')
  .replace(/^export /gm, '');
const cut = (text: string, start: string, end: string) => {
  const from = text.indexOf(start);
  expect(from, start).toBeGreaterThanOrEqual(0);
  return text.slice(from, text.indexOf(end, from) + end.length);
};
/** The figures orders.js writes its amounts with. */
const figures = merchantFile('figures.js').replace(/^export /gm, '');
/** The dates it writes, under the name orders.js imports them by. */
const dates = `const dayOf = (() => {\n${merchantFile('dates.js').replace(/^export /gm, '')}\nreturn dayText;\n})();`;
const pageCode = [
  cut(pageSource, 'export function element(', '\n}\n').replace(/^export /, ''),
  figures,
  dates,
  source,
].join('\n');

/** What shop's Orders page shows: its rows (cells' text, badges) and its letters' banners, as loadOrders draws them. */
async function ordersPageOf(token: () => string) {
  const made: Node[] = [];
  const make = (tag: string): Node & Record<string, unknown> => {
    const node: Node & Record<string, unknown> = {
      tag,
      attributes: {},
      children: [],
      dataset: {},
      set textContent(value: string) {
        node.text = String(value);
      },
      setAttribute(name: string, value: unknown) {
        node.attributes[name] = String(value);
      },
      append(...items: Array<Node | string>) {
        node.children.push(...items);
      },
      replaceChildren(...items: Array<Node | string>) {
        node.children = items;
      },
      addEventListener() {},
    };
    made.push(node);
    return node;
  };
  const slots: Record<string, ReturnType<typeof make>> = {};
  const context = vm.createContext({
    // orders.js listens for a read of the orders again (resync.js) to draw them anew.
    document: { createElement: make, addEventListener: () => {} },
    $: (selector: string) => (slots[selector] ??= make(`slot ${selector}`)),
    call: async (path: string) => {
      const answer = await fetch(`${running.url}/admin/api${path}`, {
        headers: { authorization: `Bearer ${token()}` },
      });
      return { status: answer.status, body: await answer.json().catch(() => ({})) };
    },
    showResync: () => {},
    followResync: async () => {},
    openOrder: async () => {},
    closeOrder: () => {},
    toast: () => {},
    Intl,
    Date,
    Object,
    encodeURIComponent,
    Set,
    Promise,
  });
  vm.runInContext(`${pageCode}\nglobalThis.loadOrders = loadOrders;`, context);
  await (context.loadOrders as () => Promise<void>)();
  const rows = (slots['#orders s-table-body']?.children ?? []) as Node[];
  const textOf = (node: Node | string): string =>
    typeof node === 'string' ? node : (node.text ?? '') + node.children.map(textOf).join('');
  return {
    made,
    rows: rows.map((row) => {
      const cells = row.children as Node[];
      // A cell's badge, not the link its order's name is drawn in.
      const badges = cells.flatMap((cell) =>
        cell.children.filter((child): child is Node => typeof child !== 'string' && child.tag === 's-badge'),
      );
      return {
        order: row.attributes['data-order'],
        name: cells[0] && textOf(cells[0]),
        text: cells.map(textOf),
        badges,
      };
    }),
    banners: (slots['#dead-letters']?.children ?? []) as Node[],
  };
}
const tokenOf = (shop: string) => () => mintSessionToken({ shop, apiKey: APP_KEY, secret: APP_SECRET });

type Letter = { id: string; shop?: string; orderKey?: string; orderName?: string; reason: string };
const lettersOf = async (shop: string) => {
  const answer = await asShop(running, shop).get('/dead-letters');
  expect(answer.status).toBe(200);
  return { text: answer.text, letters: answer.body.deadLetters as Letter[] };
};
const orderKeysOf = async (shop: string) => {
  const answer = await asShop(running, shop).get('/orders?limit=100&page=1');
  expect(answer.status).toBe(200);
  return (answer.body.orders as Array<{ key: string }>).map((order) => order.key);
};

describe("the 'Held: see below' badge across shops", () => {
  it("never marks shop A's order for shop B's held order with the same id, nor B's for A's", async () => {
    const a = await ordersPageOf(tokenOf(SHOP_A));
    expect(a.rows.map((row) => row.order).sort()).toEqual([SAME_ID, A_MARKED].sort());
    const sameInA = a.rows.find((row) => row.order === SAME_ID)!;
    expect(sameInA.badges).toEqual([]);
    // A's own held order carries the badge: the check is live, not vacuous.
    const heldInA = a.rows.find((row) => row.order === A_MARKED)!;
    expect(heldInA.badges.map((badge) => [badge.tag, badge.text, badge.attributes])).toEqual([
      ['s-badge', 'Held: see below', { tone: 'critical' }],
    ]);
    const b = await ordersPageOf(tokenOf(SHOP_B));
    expect(b.rows.map((row) => [row.order, row.badges.map((badge) => badge.text)])).toEqual([
      [SAME_ID, ['Held: see below']],
    ]);
    for (const row of [...a.rows, ...b.rows]) expect(row.badges.length).toBeLessThanOrEqual(1);
  });

  it("lists to A no letter whose key is not one of A's Shopify orders exactly, so /orders and /dead-letters never meet on B's key", async () => {
    const { text, letters } = await lettersOf(SHOP_A);
    expect(letters.map((letter) => letter.id)).toEqual(['held-a-own']);
    const aKeys = await orderKeysOf(SHOP_A);
    expect(aKeys.sort()).toEqual([A_SAME, A_OWN_HELD].sort());
    const matching = letters.filter((letter) => letter.orderKey && aKeys.includes(letter.orderKey));
    expect(matching.map((letter) => letter.orderKey)).toEqual([A_OWN_HELD]);
    for (const foreign of [SHOP_B, B_NAME, B_SAME, 'bigcommerce:', 'woocommerce:']) expect(text).not.toContain(foreign);
    const ofB = await lettersOf(SHOP_B);
    // B's own: its held order's, the unnamed one naming B's order (a call's letter with no shop is its order's shop's).
    expect(ofB.letters.map((letter) => letter.id)).toEqual(
      expect.arrayContaining(['held-b-same', 'x-no-shop-names-b']),
    );
    for (const letter of ofB.letters) expect(letter.orderKey === undefined || letter.orderKey === B_SAME).toBe(true);
    // No letter of A's is listed to B, and no A order's name is added to B's (the collision letter's reason aside, below).
    for (const letter of ofB.letters) expect(letter.orderName).toBe(B_NAME);
    expect(ofB.text).not.toContain('held-a-own');
    // The collision letter the finding below is about is there, so that test is not vacuous.
    expect(
      ofB.letters.filter((letter) => /already used by an order from another store/.test(letter.reason)),
    ).toHaveLength(1);
    expect(ofB.text).not.toContain(MARKUP);
    expect(await orderKeysOf(SHOP_B)).toEqual([B_SAME]);
  });

  // Two stores on one loyalty account (the operator's default) with the same order id, as on platforms whose ids are
  // per store (BigCommerce's, WooCommerce's): B's order gets a dead letter whose reason, for the operator, names the
  // order holding the lp_orderid, A's. Shop B's page read A's domain and order id in it; the shop's view now tells
  // it as "an order from another store".
  it("does not name shop A's store in the reason of B's lp_orderid collision letter", async () => {
    const ofB = await lettersOf(SHOP_B);
    expect(ofB.letters.some((letter) => /already used by an order from another store/.test(letter.reason))).toBe(true);
    expect(ofB.text).not.toContain(SHOP_A);
  });

  it("tells all of another store's key as 'an order', though its shop name holds a ',' or ';' from its address", () => {
    const mine = { platform: 'woocommerce', shop: 'mine.example' };
    const other = wooShopOf('https://secret-brand.example/store,eu;x');
    const told = reasonForShop(collisionReason('42', 'woocommerce:mine.example:42', `woocommerce:${other}:42`), mine);
    expect(told).toContain('already used by an order from another store');
    expect(told).not.toMatch(/secret|eu;x|,eu/);
    // The shop's own key stays, and so does the punctuation after it.
    expect(reasonForShop('order woocommerce:mine.example:42; then woocommerce:x.example:7.', mine)).toBe(
      'order woocommerce:mine.example:42; then an order.',
    );
  });

  it("judges keys by the whole shop name: a ':' or a longer name never passes for another shop's order", () => {
    const woo = { platform: 'woocommerce', shop: 'shop.example' };
    const wooPort = { platform: 'woocommerce', shop: 'shop.example:8443' };
    const letter = (shop: string, orderKey: string) =>
      ({ id: 'u', kind: 'call', reason: 'r', platform: 'woocommerce', shop, orderKey }) as never;
    // The port shop's order (its key has shop.example as a prefix) is not shop.example's, and the other way round.
    expect(isLetterOfShop(letter('shop.example', 'woocommerce:shop.example:8443:7'), woo)).toBe(false);
    expect(
      isLetterOfShop({ id: 'u', kind: 'call', reason: 'r', orderKey: 'woocommerce:shop.example:8443:7' } as never, woo),
    ).toBe(false);
    expect(
      isLetterOfShop(
        { id: 'u', kind: 'call', reason: 'r', orderKey: 'woocommerce:shop.example:8443:7' } as never,
        wooPort,
      ),
    ).toBe(true);
    expect(isLetterOfShop(letter('shop.example:8443', 'woocommerce:shop.example:7'), wooPort)).toBe(false);
    expect(
      isLetterOfShop({ id: 'u', kind: 'call', reason: 'r', orderKey: 'woocommerce:shop.example:7' } as never, wooPort),
    ).toBe(false);
    // Same shop name and order id on another platform.
    expect(
      isLetterOfShop({ id: 'u', kind: 'call', reason: 'r', orderKey: 'bigcommerce:shop.example:7' } as never, woo),
    ).toBe(false);
  });

  it("gives B no way to take A's letter, and so A's badge, away", async () => {
    for (const id of ['held-a-own', 'x-claims-a-names-b', 'x-claims-b-names-a'])
      expect((await asShop(running, SHOP_B).post(`/dead-letters/${encodeURIComponent(id)}/retry`)).status).toBe(404);
    expect((await asShop(running, SHOP_B).delete('/dead-letters/held-a-own')).status).toBe(403);
    expect(await store().getDeadLetter('held-a-own')).toBeDefined();
    const a = await ordersPageOf(tokenOf(SHOP_A));
    expect(a.rows.find((row) => row.order === A_MARKED)?.badges.map((badge) => badge.text)).toEqual([
      'Held: see below',
    ]);
  });

  it("draws an order's name and a letter's reason as text: markup never becomes an element or an attribute", async () => {
    const a = await ordersPageOf(tokenOf(SHOP_A));
    const held = a.rows.find((row) => row.order === A_MARKED)!;
    expect(held.name).toBe(MARKUP);
    const banner = a.banners.find((node) =>
      node.children.some((child) => typeof child !== 'string' && child.attributes['data-letter'] === 'held-a-own'),
    )!;
    expect(banner.attributes.heading).toBe(`Order ${MARKUP}: giving its points`);
    expect((banner.children[0] as Node).text).toBe(REASON_MARKUP);
    // Every element loadOrders made is one of its own tags, with its own attribute names; tone is its own value.
    const tags = new Set(['s-table-row', 's-table-cell', 's-link', 's-badge', 's-banner', 's-paragraph', 's-button']);
    const names = new Set([
      ...['data-order', 'tone', 'heading', 'class', 'slot', 'data-letter'],
      // The row opens its order's detail by its link, which names the order to a screen reader.
      ...['clickdelegate', 'id', 'accessibilitylabel'],
    ]);
    for (const node of a.made.filter((each) => !each.tag.startsWith('slot '))) {
      expect(tags).toContain(node.tag);
      for (const name of Object.keys(node.attributes)) expect(names).toContain(name);
      if (node.attributes.tone !== undefined) expect(node.attributes.tone).toBe('critical');
    }
    // data-order is the order id, digits only (the bridge refuses any other id), never its name.
    for (const row of a.rows) expect(row.order).toMatch(/^\d+$/);
    expect(source).not.toMatch(
      /innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment/,
    );
  });
});

describe('session tokens on the held badge routes', () => {
  const routes = ['/dead-letters', '/orders?limit=100&page=1', `/orders/${encodeURIComponent(B_SAME)}`];
  const withToken = (token: string, path: string) =>
    fetch(`${running.url}/admin/api${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('reads nothing with a forged, expired, not-yet-valid or crossed token', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const signed = mintSessionToken({ shop: SHOP_B, apiKey: APP_KEY, secret: APP_SECRET });
    const unsignedPayload = signed.split('.')[1];
    const bad = [
      mintSessionToken({ shop: SHOP_B, apiKey: APP_KEY, secret: 'not-the-client-secret-at-all-0000' }),
      mintSessionToken({ shop: SHOP_B, apiKey: APP_KEY, secret: APP_SECRET, expiresInS: -120, notBeforeS: -180 }),
      mintSessionToken({ shop: SHOP_B, apiKey: APP_KEY, secret: APP_SECRET, notBeforeS: 600, expiresInS: 660 }),
      mintSessionToken({ shop: SHOP_A, apiKey: APP_KEY, secret: APP_SECRET, claims: { dest: `https://${SHOP_B}` } }),
      mintSessionToken({
        shop: SHOP_B,
        apiKey: APP_KEY,
        secret: APP_SECRET,
        claims: { iss: `https://${SHOP_A}/admin` },
      }),
      mintSessionToken({ shop: SHOP_B, apiKey: 'another-app', secret: APP_SECRET }),
      `${header}.${unsignedPayload}.`,
      `${header}.${unsignedPayload}.x`,
      // B's payload under A's valid signature.
      `${tokenOf(SHOP_A)().split('.')[0]}.${unsignedPayload}.${tokenOf(SHOP_A)().split('.')[2]}`,
    ];
    for (const token of bad)
      for (const path of routes) {
        const answer = await withToken(token, path);
        expect([401, 403], `${path} ${token.slice(0, 20)}`).toContain(answer.status);
        const text = await answer.text();
        for (const secret of [B_NAME, B_SAME, A_SAME, 'held-b-same', 'held-a-own']) expect(text).not.toContain(secret);
      }
  });

  it("a replayed or valid token of A reads A's alone, whatever the query names", async () => {
    const token = tokenOf(SHOP_A)();
    for (let time = 0; time < 2; time++) {
      const letters = await withToken(token, '/dead-letters');
      expect(letters.status).toBe(200);
      expect(await letters.text()).not.toContain(SHOP_B);
      for (const path of [
        `/orders?limit=100&page=1&shop=${SHOP_B}`,
        `/orders?limit=100&page=1&platform=bigcommerce`,
        `/orders?q=${SAME_ID}&limit=100&page=1`,
      ]) {
        const answer = await withToken(token, path);
        const text = await answer.text();
        expect(text).not.toContain(SHOP_B);
        expect(text).not.toContain(B_NAME);
      }
      expect((await withToken(token, `/orders/${encodeURIComponent(B_SAME)}`)).status).toBe(404);
    }
  });
});
