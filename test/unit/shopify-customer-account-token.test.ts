// A customer account extension's session token (customer-account-token.ts), row by row: what it names, and
// the clock's edges (10 seconds of leeway on exp and nbf, as App Bridge's). Signed as Shopify signs it
// (test/helpers/shopify-app-links.ts); the HTTP side is test/security/shopify-customer-account-token.test.ts.
import type { Shopify } from '@shopify/shopify-api';
import { describe, expect, it } from 'vitest';
import { bearerToken, checkCustomerAccountToken } from '../../adapters/shopify/customer-account-token.ts';
import { mintCustomerAccountToken } from '../helpers/shopify-app-links.ts';

const SHOP = 'shop-a.myshopify.com';
const KEY = 'client-id';
const SECRET = 'client-secret-0123456789abcdef';
const OLD_SECRET = 'old-client-secret-0123456789ab';
/** Only what the check reads of the library's app: its client id and secret. */
const app = (apiSecretKey: string) => ({ config: { apiKey: KEY, apiSecretKey } }) as unknown as Shopify;
const APPS = [app(SECRET), app(OLD_SECRET)];
const mint = (options: Partial<Parameters<typeof mintCustomerAccountToken>[0]> = {}) =>
  mintCustomerAccountToken({ shop: SHOP, apiKey: KEY, secret: SECRET, customerId: '7001', ...options });
const check = (token: string, offsetS = 0) => checkCustomerAccountToken(APPS, token, () => Date.now() + offsetS * 1000);

describe("a customer account extension's session token", () => {
  it('names the shop and the customer (the digits of sub), or a guest without sub', async () => {
    expect(await check(mint())).toEqual({ ok: true, shop: SHOP, customerId: '7001' });
    expect(await check(mint({ customerId: undefined }))).toEqual({ ok: true, shop: SHOP, customerId: undefined });
    // dest as an origin, as App Bridge writes it, names the same shop.
    expect(await check(mint({ claims: { dest: `https://${SHOP}` } }))).toMatchObject({ ok: true, shop: SHOP });
    // Signed with the previous secret during a rotation.
    expect(await check(mint({ secret: OLD_SECRET }))).toMatchObject({ ok: true, customerId: '7001' });
  });

  it('gives exp and nbf 10 seconds of leeway, and no more', async () => {
    const token = mint({ expiresInS: 300 });
    expect((await check(token, 305)).ok).toBe(true);
    expect(await check(token, 315)).toEqual({ ok: false, refusal: 'expired' });
    const early = mint({ notBeforeS: 0 });
    expect((await check(early, -5)).ok).toBe(true);
    expect(await check(early, -15)).toEqual({ ok: false, refusal: 'not_yet_valid' });
  });

  it('refuses what names no shop or no customer of one', async () => {
    const rows: Array<[Record<string, unknown>, string]> = [
      [{ dest: undefined }, 'no_shop'],
      [{ dest: 'shop-a.myshopify.com.evil.example' }, 'no_shop'],
      [{ dest: 'http://shop-a.myshopify.com' }, 'no_shop'],
      [{ dest: `https://${SHOP}/admin` }, 'no_shop'],
      [{ iss: `https://${SHOP}/admin` }, 'admin_token'],
      [{ sub: '42' }, 'not_a_customer'],
      [{ sub: 'gid://shopify/Customer/' }, 'not_a_customer'],
      [{ sub: 'gid://shopify/Customer/7001/x' }, 'not_a_customer'],
      [{ sub: 7001 }, 'not_a_customer'],
    ];
    for (const [claims, refusal] of rows)
      expect([claims, await check(mint({ claims }))]).toEqual([claims, { ok: false, refusal }]);
  });

  it('takes the bearer of an Authorization header only when it has the shape of a token', () => {
    const token = mint();
    expect(bearerToken(`Bearer ${token}`)).toBe(token);
    for (const header of [
      undefined,
      '',
      token,
      `bearer ${token}`,
      `Bearer ${token} x`,
      `Bearer ${token}, Bearer ${token}`,
      'Bearer a.b',
    ])
      expect(bearerToken(header)).toBeUndefined();
  });
});
