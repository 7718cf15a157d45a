// The ledger keeps of a delivery only what translation reads: a Shopify order
// posted to the running bridge with its street addresses, the buyer's IP and
// browser earns as ever, and nothing of those is anywhere under DATA_DIR
// (inbox, orders, dead letters, backups), not even for a delivery the bridge
// cannot use and keeps as a dead letter. Deliveries an earlier release kept
// whole are trimmed at the first start of this one.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createShopifyAdapter } from '../../adapters/shopify/adapter.ts';
import { KEPT_FIELDS_MIGRATION } from '../../src/core/kept-deliveries.ts';
import { storedDelivery } from '../../src/core/platform-adapter.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { receive } from '../helpers/adapters.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { filesAsText } from '../helpers/secrets.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const dataDir = tempDataDir();
let bridge: RunningBridge;
beforeAll(async () => {
  bridge = await startTestBridge({ SHOPIFY_API_SECRET: SHOPIFY_SECRET, DATA_DIR: dataDir });
});
afterAll(() => bridge.stop());

/** What the bridge never reads, each recognisable wherever a copy of it lands. */
const UNREAD = {
  street: '12 Kept-Nowhere Street',
  secondLine: 'Flat Unread 3',
  zip: 'ZIP-UNREAD-62701',
  ip: '203.0.113.177',
  agent: 'UnreadBrowser/9.9',
  note: 'leave it by the unread door',
};

function withAddresses(json: string): string {
  const order = JSON.parse(json.replace(/"id":(\d+)/, '"id":"$1"')) as Record<string, unknown>;
  const address = { address1: UNREAD.street, address2: UNREAD.secondLine, zip: UNREAD.zip, city: 'Springfield' };
  Object.assign(order.billing_address as object, address);
  Object.assign(order.shipping_address as object, address);
  order.browser_ip = UNREAD.ip;
  order.client_details = { browser_ip: UNREAD.ip, user_agent: UNREAD.agent };
  order.note = UNREAD.note;
  return JSON.stringify(order).replace(/"id":"(\d+)"/, '"id":$1');
}

async function deliver(topic: string, body: string, webhookId: string) {
  const response = await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic, body, webhookId }),
    body,
  });
  return (await response.json()) as { result?: string };
}

it('earns on an order with addresses, and keeps no street address, IP, browser or note of it anywhere', async () => {
  const id = '820982911946154509001';
  expect(await deliver('orders/paid', withAddresses(shopifyOrderJson({ id })), 'kept-1')).toMatchObject({
    result: 'accepted',
  });
  // One it cannot use (its id is not a whole number): kept as a dead letter, trimmed the same.
  const unusable = withAddresses(shopifyOrderJson({ id: '820982911946154509002' })).replace(
    '"id":820982911946154509002',
    '"id":12.5',
  );
  expect(await deliver('orders/paid', unusable, 'kept-2')).toMatchObject({ result: 'accepted' });
  await bridge.engine.drain();

  expect(bridge.sandbox?.store.snapshot().earnings.find((each) => each.orderId === id)).toMatchObject({
    email: 'grace@example.com',
    name: 'Grace Hopper',
    mobile: '+12125550142',
  });
  const letters = await bridge.engine.store.listDeadLetters();
  expect(letters.map((letter) => letter.reason)).toEqual([expect.stringMatching(/no numeric id/)]);
  const kept = filesAsText(dataDir);
  expect(kept).toContain('grace@example.com');
  for (const [what, value] of Object.entries(UNREAD)) expect(kept.includes(value), `${what} kept`).toBe(false);
});

it('trims at its first start the deliveries an earlier release kept whole, in the inbox, dead letters and backups', async () => {
  // A ledger as an earlier release left it: a delivery waiting in the inbox and a dead letter, both whole.
  const earlier = tempDataDir();
  const adapter = createShopifyAdapter({ apiSecrets: [SHOPIFY_SECRET] });
  const wholeDelivery = async (id: string, body: string) => {
    const bytes = Buffer.from(body);
    const headers = shopifyHeaders({ topic: 'orders/paid', body, webhookId: `earlier-${id}` });
    const { info } = await receive(adapter, bytes, headers);
    return { key: info.key, delivery: storedDelivery('shopify', info, bytes, new Date()) };
  };
  const waiting = await wholeDelivery('1', withAddresses(shopifyOrderJson({ id: '820982911946154509101' })));
  const unusable = await wholeDelivery(
    '2',
    withAddresses(shopifyOrderJson({ id: '820982911946154509102' })).replace('"id":820982911946154509102', '"id":12.5'),
  );
  const store = new LowdbStore({ dataDir: earlier });
  await store.open();
  await store.accept({ aliases: [], receivedAt: new Date().toISOString(), retry: null, ...waiting });
  await store.addDeadLetter({
    id: 'earlier-letter',
    kind: 'delivery',
    reason: 'the order has no numeric id',
    platform: 'shopify',
    shop: SHOP,
    delivery: unusable.delivery,
  });
  await store.backUp();
  await store.close();
  expect(filesAsText(earlier)).toContain(UNREAD.street);

  const upgraded = await startTestBridge({ SHOPIFY_API_SECRET: SHOPIFY_SECRET, DATA_DIR: earlier });
  try {
    await upgraded.engine.drain();
    expect(
      upgraded.sandbox?.store.snapshot().earnings.find((each) => each.orderId === '820982911946154509101'),
    ).toMatchObject({ email: 'grace@example.com' });
    const letter = JSON.parse((await upgraded.engine.store.getDeadLetter('earlier-letter'))?.delivery?.body ?? '{}');
    // What translation reads of it stays, for a retry once the cause is fixed.
    expect(letter).toMatchObject({
      id: 12.5,
      email: 'grace@example.com',
      billing_address: { first_name: 'Grace', last_name: 'Hopper', phone: '(212) 555-0142', country_code: 'US' },
    });
    expect(Object.keys(letter)).not.toContain('browser_ip');
    expect(await upgraded.engine.store.getRecord(raw('migration'), KEPT_FIELDS_MIGRATION)).toMatchObject({
      deadLetters: 1,
    });
    // During a rolling upgrade an instance of the earlier release still keeps bodies whole: one it cannot use
    // becomes a dead letter kept as this release keeps it.
    const late = await wholeDelivery(
      '3',
      withAddresses(shopifyOrderJson({ id: '820982911946154509103' })).replace(
        '"id":820982911946154509103',
        '"id":13.5',
      ),
    );
    await upgraded.engine.ingest.delivery(late.key, late.delivery);
    await upgraded.engine.drain();
    const letters = await upgraded.engine.store.listDeadLetters();
    expect(letters).toHaveLength(2);
    const kept = filesAsText(earlier);
    for (const [what, value] of Object.entries(UNREAD)) expect(kept.includes(value), `${what} kept`).toBe(false);
  } finally {
    await upgraded.stop();
  }
});
