// A shop's dead letters now carry their order's name (GET /dead-letters reads
// the order by the letter's orderKey). Guards, from another merchant's side:
// no letter naming another shop's order is listed, whatever shop it claims, so
// no other shop's order name is read out; a forged session token reads none;
// a name carrying markup comes back as plain JSON data (the page sets it as a
// banner heading attribute, never as HTML); and the letter gains the name
// alone, none of the customer's e-mail or phone.
import { readdirSync, readFileSync } from 'node:fs';
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

const SHOP_A = 'alpha-names.myshopify.com';
const SHOP_B = 'beta-names.myshopify.com';
const MARKUP = '<img src=x onerror="alert(1)">#A1';
const B_NAME = '#B-SECRET-9';
const [KEY_A, KEY_B] = [`shopify:${SHOP_A}:9410000000001`, `shopify:${SHOP_B}:9410000000002`];

let fake: FakeShopify;
let running: ShopifyAppBridge;
const store = () => running.bridge.engine.store;

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  for (const shop of [SHOP_A, SHOP_B]) fake.install(shop);
  running = await startShopifyAppBridge(fake, { SHOPIFY_SHOPS: `${SHOP_A},${SHOP_B}` });
  for (const [shop, id, name, email] of [
    [SHOP_A, '9410000000001', MARKUP, 'anna@example.com'],
    [SHOP_B, '9410000000002', B_NAME, 'bob@example.com'],
  ] as const) {
    const body = shopifyOrderJson({ id, email, phone: '+12125550142' }).replace(
      `"name":"#${id.slice(-4)}"`,
      `"name":${JSON.stringify(name)}`,
    );
    const headers = shopifyHeaders({ topic: 'orders/paid', body, shop, secret: APP_SECRET, webhookId: `n-${id}` });
    expect((await fetch(`${running.url}/webhooks/shopify`, { method: 'POST', headers, body })).status).toBe(200);
  }
  await running.bridge.engine.drain();
  expect((await store().getOrder(KEY_A))?.snapshot.orderName).toBe(MARKUP);
  const letter = { kind: 'call', reason: 'refused', platform: 'shopify', operation: 'earn' } as const;
  await store().addDeadLetter({ ...letter, id: 'names-own-a', shop: SHOP_A, orderKey: KEY_A });
  await store().addDeadLetter({ ...letter, id: 'names-own-b', shop: SHOP_B, orderKey: KEY_B });
  // Letters that claim shop A (or no shop) but point at shop B's order.
  await store().addDeadLetter({ ...letter, id: 'names-crossed', shop: SHOP_A, orderKey: KEY_B });
  await store().addDeadLetter({ kind: 'call', reason: 'refused', id: 'names-unnamed', orderKey: KEY_B });
  await store().addDeadLetter({ ...letter, id: 'names-tail', shop: SHOP_A, orderKey: `${KEY_A}:${KEY_B}` });
}, 60_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

type Letter = { id: string; shop?: string; orderKey?: string; orderName?: string };
const lettersOf = async (shop: string) => {
  const answer = await asShop(running, shop).get('/dead-letters');
  expect(answer.status).toBe(200);
  return { text: answer.text, letters: answer.body.deadLetters as Letter[] };
};

describe("a shop's dead letters with their orders' names", () => {
  it("lists no letter pointing at another shop's order, and so never its name", async () => {
    const { text, letters } = await lettersOf(SHOP_A);
    expect(letters.map((each) => each.id)).toContain('names-own-a');
    for (const id of ['names-own-b', 'names-crossed', 'names-unnamed', 'names-tail'])
      expect(letters.map((each) => each.id)).not.toContain(id);
    for (const each of letters) expect(each.orderKey?.startsWith(`shopify:${SHOP_A}:`) ?? true).toBe(true);
    for (const foreign of [B_NAME, SHOP_B, 'bob@example.com']) expect(text).not.toContain(foreign);
    const ofB = await lettersOf(SHOP_B);
    expect(ofB.letters.find((each) => each.id === 'names-own-b')?.orderName).toBe(B_NAME);
    expect(ofB.text).not.toContain('onerror');
  });

  it('reads nothing with a forged or crossed session token', async () => {
    const forged = [
      mintSessionToken({ shop: SHOP_B, apiKey: APP_KEY, secret: 'not-the-client-secret-at-all-0000' }),
      mintSessionToken({ shop: SHOP_A, apiKey: APP_KEY, secret: APP_SECRET, claims: { dest: `https://${SHOP_B}` } }),
      mintSessionToken({ shop: SHOP_B, apiKey: 'another-app', secret: APP_SECRET }),
    ];
    for (const token of forged) {
      const answer = await fetch(`${running.url}/admin/api/dead-letters`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(answer.status).toBe(401);
      expect(await answer.text()).not.toContain(B_NAME);
    }
  });

  it('gives the name as plain JSON data, added to the letter as stored and nothing of the customer', async () => {
    const answer = await fetch(`${running.url}/admin/api/dead-letters`, {
      headers: { authorization: `Bearer ${mintSessionToken({ shop: SHOP_A, apiKey: APP_KEY, secret: APP_SECRET })}` },
    });
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const own = ((await answer.json()) as { deadLetters: Letter[] }).deadLetters.find(
      (each) => each.id === 'names-own-a',
    )!;
    const stored = (await store().getDeadLetter('names-own-a'))!;
    expect(own).toEqual({
      id: stored.id,
      platform: 'shopify',
      shop: SHOP_A,
      createdAt: stored.createdAt,
      kind: stored.kind,
      reason: stored.reason,
      topic: null,
      operation: stored.operation,
      // The call in words (order-words.ts letterCallWords).
      callWords: 'giving its points',
      httpStatus: null,
      orderKey: KEY_A,
      orderName: MARKUP,
      retries: stored.retries,
      byHand: false,
    });
    for (const contact of ['anna@example.com', '2125550142', 'Grace', 'Hopper'])
      expect(JSON.stringify(own)).not.toContain(contact);
    // The page puts it in a heading attribute through element(): no HTML is parsed from a letter anywhere.
    const dir = new URL('../../src/http/merchant/', import.meta.url);
    const orders = readFileSync(new URL('orders.js', dir), 'utf8');
    expect(orders).toMatch(/heading: letterTitle\(letter\)/);
    // Of every module of the page (elements.js draws its own markup, never a letter's).
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.js') && name !== 'elements.js'))
      expect(readFileSync(new URL(file, dir), 'utf8'), file).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write/,
      );
  });
});
