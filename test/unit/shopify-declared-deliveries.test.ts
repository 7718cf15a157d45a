// What shows that Shopify delivers a topic to a shop through the app's own
// configuration (shopify.app.toml), so that the shop-scoped copy an earlier
// release made may go: a signed body trimmed to the declared fields, even as
// a duplicate; for the topics whose bodies are whole, the subscription's name
// (X-Shopify-Name, unsigned) on a delivery that is not a duplicate. A
// captured body sent again with the name added proves nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { createShopifyAdapter } from '../../adapters/shopify/adapter.ts';
import { DeclaredDeliveries } from '../../adapters/shopify/declared-deliveries.ts';
import { ORDER_FIELDS } from '../../adapters/shopify/topics.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { SHOP, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';

const adapter = createShopifyAdapter({ apiSecrets: ['shpss_test_secret_for_loyalty_bridge'] });
const stores: LowdbStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function ledger(): Promise<DeclaredDeliveries> {
  const store = new LowdbStore({ dataDir: tempDataDir() });
  await store.open();
  stores.push(store);
  return new DeclaredDeliveries(store);
}

async function described(topic: string, body: string, name?: string) {
  const verified = await adapter.verify({
    body: Buffer.from(body),
    headers: { ...shopifyHeaders({ topic, body }), ...(name ? { 'X-Shopify-Name': name } : {}) },
    receivedAt: new Date(),
  });
  if (!verified.ok) throw new Error(verified.reason);
  return adapter.describe(verified.delivery);
}

const fullOrder = shopifyOrderJson({ id: '5001' });
const trimmedOrder = JSON.stringify(
  Object.fromEntries(
    Object.entries(JSON.parse(fullOrder) as Record<string, unknown>).filter(([key]) =>
      ORDER_FIELDS.some((field) => field.split('.')[0] === key),
    ),
  ),
);
const uninstall = JSON.stringify({ id: 1, name: 'Shop', domain: 'shop.example', myshopify_domain: SHOP });
const scopes = JSON.stringify({
  id: 1,
  previous: ['read_orders'],
  current: ['read_orders', 'read_customers'],
  updated_at: '2026-11-23T10:00:00Z',
});

describe('a delivery counts as coming through the app’s configuration', () => {
  const cases: Array<[string, string, string, string | undefined, 'accepted' | 'duplicate', boolean]> = [
    ['an order body trimmed to the declared fields', 'orders/paid', trimmedOrder, undefined, 'accepted', true],
    [
      'the same, as the duplicate of the shop subscription’s copy',
      'orders/paid',
      trimmedOrder,
      undefined,
      'duplicate',
      true,
    ],
    [
      'a whole order body, whatever name it carries',
      'orders/paid',
      fullOrder,
      'loyalty-bridge-orders',
      'accepted',
      false,
    ],
    [
      'app/scopes_update named as the configuration names it',
      'app/scopes_update',
      scopes,
      'loyalty-bridge-app',
      'accepted',
      true,
    ],
    [
      'the same body again (a duplicate): the name is not signed',
      'app/scopes_update',
      scopes,
      'loyalty-bridge-app',
      'duplicate',
      false,
    ],
    [
      'app/scopes_update under another subscription’s name',
      'app/scopes_update',
      scopes,
      'loyalty-bridge-orders',
      'accepted',
      false,
    ],
    ['app/scopes_update with no name (a shop subscription)', 'app/scopes_update', scopes, undefined, 'accepted', false],
    // Kept under any new webhook id (it acts once per install), so a captured one sent again with the name is no duplicate.
    [
      'app/uninstalled, even named as the configuration names it',
      'app/uninstalled',
      uninstall,
      'loyalty-bridge-app',
      'accepted',
      false,
    ],
  ];
  it.each(cases)('%s', async (_name, topic, body, name, result, counts) => {
    const declared = await ledger();
    await declared.note(await described(topic, body, name), result);
    expect((await declared.proven(SHOP)).has(topic)).toBe(counts);
  });

  it('a trimmed, signed body shows the whole configuration is deployed: app/uninstalled is proven with it', async () => {
    const declared = await ledger();
    await declared.note(await described('app/uninstalled', uninstall, 'loyalty-bridge-app'), 'accepted');
    expect((await declared.proven(SHOP)).has('app/uninstalled')).toBe(false);
    await declared.note(await described('orders/paid', trimmedOrder), 'accepted');
    expect((await declared.proven(SHOP)).has('app/uninstalled')).toBe(true);
  });
});
