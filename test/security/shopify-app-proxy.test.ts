// The storefront's requests come through Shopify's app proxy, signed with the app's client secret. Only a
// request Shopify signed for this app, lately, for a shop the bridge serves, says who is asking; and then
// only logged_in_customer_id names the customer. Signed here by a stand-in written from Shopify's
// documentation (test/helpers/shopify-proxy-signer.ts), read as the bridge's route reads a query.
import { beforeEach, describe, expect, it } from 'vitest';
import { ShopifyAccess } from '../../adapters/shopify/access.ts';
import { ShopifyAdminApis } from '../../adapters/shopify/admin-api.ts';
import { AllowedShops } from '../../adapters/shopify/allowed-shops.ts';
import { shopifyApp } from '../../adapters/shopify/shopify-app.ts';
import { shopifyStorefront } from '../../adapters/shopify/storefront.ts';
import { routeQuery } from '../../src/core/platform-answers.ts';
import type { Storefront } from '../../src/core/platform-module.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { proxiedQuery, signProxyQuery } from '../helpers/shopify-proxy-signer.ts';

const SECRET = 'proxy-client-secret';
const PREVIOUS = 'proxy-previous-secret';
const OTHER_APP = 'another-apps-secret';
const SHOP = 'served-store.myshopify.com';
const STRANGER = 'stranger-store.myshopify.com';
const appWith = (secret: string) =>
  shopifyApp({ apiKey: 'proxy-client-id', apiSecretKey: secret, scopes: ['read_orders'], apiVersion: '2026-10' });

let storefront: Storefront;
const refusals: string[] = [];

beforeEach(async () => {
  const store = new LowdbStore({ dataDir: tempDataDir() });
  await store.open();
  // The served shop is installed (its session held); the stranger installed the app too, but is not served.
  const access = new ShopifyAccess({ store, app: appWith(SECRET) });
  for (const shop of [SHOP, STRANGER])
    await access.saveInstalled({ shop, accessToken: `token-${shop}`, scope: 'read_orders,read_customers' });
  refusals.length = 0;
  ({ storefront } = shopifyStorefront({
    apps: [appWith(SECRET), appWith(PREVIOUS)],
    allowed: new AllowedShops({ store, listed: [SHOP] }),
    access,
    apis: new ShopifyAdminApis({ access, apiVersion: '2026-10' }),
    onRefused: (reason) => refusals.push(reason),
  }));
  return () => store.close();
});

/** The request as the bridge's route hands it on, with this query: a string as it came, or each key's values. */
const asked = (query: string | Readonly<Record<string, string | readonly string[]>>): Request => {
  const pairs = (values: string | readonly string[]) => (typeof values === 'string' ? [values] : values);
  const search =
    typeof query === 'string'
      ? query
      : new URLSearchParams(
          Object.entries(query).flatMap(([key, values]) =>
            pairs(values).map((value): [string, string] => [key, value]),
          ),
        ).toString();
  return new Request(`http://bridge.example/shopify/storefront/points?${search}`);
};
const who = (query: string) => storefront.customer(asked(query));

describe('accepted', () => {
  it('a signed guest is a guest of that shop', async () => {
    expect(await who(proxiedQuery({ shop: SHOP }, SECRET))).toEqual({ kind: 'guest', shop: SHOP });
  });

  it('a signed customer is that customer of that shop', async () => {
    expect(await who(proxiedQuery({ shop: SHOP, customerId: '7001' }, SECRET))).toEqual({
      kind: 'customer',
      shop: SHOP,
      customerId: '7001',
    });
  });

  it('a request signed with the previous secret, during a rotation', async () => {
    expect(await who(proxiedQuery({ shop: SHOP, customerId: '7001' }, PREVIOUS))).toMatchObject({ kind: 'customer' });
  });

  it('a subpath the merchant renamed in their admin', async () => {
    const query = proxiedQuery({ shop: SHOP, customerId: '7001', pathPrefix: '/a/points' }, SECRET);
    expect(await who(query)).toMatchObject({ kind: 'customer', customerId: '7001' });
  });
});

describe('refused', () => {
  const signed = () => new URLSearchParams(proxiedQuery({ shop: SHOP, customerId: '7001' }, SECRET));

  it('a forged signature', async () => {
    const query = signed();
    query.set('signature', 'f'.repeat(64));
    expect(await who(query.toString())).toEqual({ kind: 'refused' });
  });

  it('no signature at all, with a customer id', async () => {
    const query = signed();
    query.delete('signature');
    expect(await who(query.toString())).toEqual({ kind: 'refused' });
  });

  it('another customer id put in after signing', async () => {
    const query = signed();
    query.set('logged_in_customer_id', '7002');
    expect(await who(query.toString())).toEqual({ kind: 'refused' });
  });

  it('a customer id dropped after signing, to pass as a guest of another request', async () => {
    const query = signed();
    query.set('logged_in_customer_id', '');
    expect(await who(query.toString())).toEqual({ kind: 'refused' });
  });

  it('another shop put in after signing', async () => {
    const query = signed();
    query.set('shop', 'other-served-store.myshopify.com');
    expect(await who(query.toString())).toEqual({ kind: 'refused' });
  });

  it('a request replayed after the 90 seconds window, and one dated ahead of it', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 91, now - 3600, now + 91])
      expect(await who(proxiedQuery({ shop: SHOP, customerId: '7001', timestamp }, SECRET))).toEqual({
        kind: 'refused',
      });
    expect(refusals.at(-1)).toMatch(/stale/);
    // Within it: still good (Shopify's clock and the bridge's may differ a little).
    expect(await who(proxiedQuery({ shop: SHOP, customerId: '7001', timestamp: now - 60 }, SECRET))).toMatchObject({
      kind: 'customer',
    });
  });

  it('a signature made with another app’s secret', async () => {
    expect(await who(proxiedQuery({ shop: SHOP, customerId: '7001' }, OTHER_APP))).toEqual({ kind: 'refused' });
  });

  it('a shop the bridge does not serve, though signed for this app', async () => {
    expect(await who(proxiedQuery({ shop: STRANGER, customerId: '7001' }, SECRET))).toEqual({ kind: 'refused' });
    expect(refusals).toEqual([`${STRANGER} is not a shop this bridge serves`]);
  });

  it('the customer id given twice, however the route reads it', async () => {
    const twice = `${proxiedQuery({ shop: SHOP, customerId: '7001' }, SECRET)}&logged_in_customer_id=7002`;
    // As the route reads it (the repeated key dropped), as an array, joined, or the last one kept.
    expect(await who(twice)).toEqual({ kind: 'refused' });
    const base = routeQuery(asked(twice));
    for (const value of [['7001', '7002'], '7001,7002', '7002'])
      expect(await storefront.customer(asked({ ...base, logged_in_customer_id: value }))).toEqual({ kind: 'refused' });
    // Even signed as Shopify signs a repeated key ("7001,7002"), it is no customer id.
    const pairs = [
      ['shop', SHOP],
      ['logged_in_customer_id', '7001'],
      ['logged_in_customer_id', '7002'],
      ['path_prefix', '/apps/loyalty'],
      ['timestamp', String(Math.floor(Date.now() / 1000))],
    ] as const;
    const joined = { ...Object.fromEntries(pairs), logged_in_customer_id: '7001,7002' };
    expect(await storefront.customer(asked({ ...joined, signature: signProxyQuery(pairs, SECRET) }))).toEqual({
      kind: 'refused',
    });
  });

  it('a guest’s own parameter that, split differently, reads as another customer’s id under the same signature', async () => {
    // The signed text joins pairs with nothing between: "a=zlogged_in_customer_id=7002m" + "logged_in_customer_id=" + …
    // reads the same as a=z, logged_in_customer_id=7002, mlogged_in_customer_id=, … Shopify signed the guest's request.
    const guest = new URLSearchParams(
      proxiedQuery({ shop: SHOP, extra: [['a', 'zlogged_in_customer_id=7002m']] }, SECRET),
    );
    const reshaped = new URLSearchParams([
      ['a', 'z'],
      ['logged_in_customer_id', '7002'],
      ['mlogged_in_customer_id', ''],
      ['path_prefix', guest.get('path_prefix') ?? ''],
      ['shop', SHOP],
      ['timestamp', guest.get('timestamp') ?? ''],
      ['signature', guest.get('signature') ?? ''],
    ]);
    expect(await who(reshaped.toString())).toEqual({ kind: 'refused' });
  });

  it('any parameter besides Shopify’s own, signed or not', async () => {
    const query = proxiedQuery({ shop: SHOP, customerId: '7001', extra: [['customer_id', '7002']] }, SECRET);
    expect(await who(query)).toEqual({ kind: 'refused' });
    // Names an object has of its own are no parameter of Shopify's either, and break nothing.
    for (const own of ['constructor', 'toString', '__proto__'])
      expect(await who(`${signed().toString()}&${own}=1`)).toEqual({ kind: 'refused' });
  });

  it('and says why without quoting what was sent', async () => {
    const query = signed();
    query.set('logged_in_customer_id', '7002');
    await who(query.toString());
    expect(refusals.join(' ')).not.toMatch(/7002|7001/);
  });
});
