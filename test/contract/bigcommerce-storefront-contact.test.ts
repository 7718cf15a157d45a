// A BigCommerce customer's contact (adapters/bigcommerce/storefront-contact.ts), read over HTTP from the fake store
// API's Customers V3 list (test/helpers/fake-bigcommerce-customers.ts): the e-mail as the service keys it, the phone
// in E.164 where it can be made so, nothing for no such customer, and 'not-allowed' for an install without the
// Customers scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BigCommerceApi, BigCommerceApiError } from '../../adapters/bigcommerce/admin-api.ts';
import { bigCommerceContact } from '../../adapters/bigcommerce/storefront-contact.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { addCustomer, serveFakeCustomers } from '../helpers/fake-bigcommerce-customers.ts';

const STORE = 'contact01';
const OTHER = 'contact02';
let fake: FakeBigCommerce;

/** The store API with a token granted the scopes given (an API account's token, with all, without). */
const api = (scope?: string, hash = STORE) => {
  const token = `token-${hash}-${scope ?? 'all'}`;
  const store = fake.addStore(hash, token);
  if (scope !== undefined) store.tokenScopes.set(token, scope);
  return new BigCommerceApi({ storeHash: hash, accessToken: token, baseUrl: fake.url });
};

beforeAll(async () => {
  fake = await startFakeBigCommerce({ storeHash: STORE, accessToken: 'store-token' });
  serveFakeCustomers(fake);
  addCustomer(fake, STORE, { id: 4927, email: '  John.Doe@Example.COM ', phone: '+44 20 7946 0958' });
  addCustomer(fake, STORE, { id: 4928, email: 'ada@example.com' });
  addCustomer(fake, STORE, { id: 4929, email: 'grace@example.com', phone: '(212) 555-0142', country: 'US' });
  addCustomer(fake, STORE, { id: 4930, email: 'linus@example.com', phone: '555-0142' });
  fake.addStore(OTHER, 'other-token');
  addCustomer(fake, OTHER, { id: 5001, email: 'other@example.com' });
});
afterAll(async () => {
  await fake.close();
});

describe("a BigCommerce customer's contact", () => {
  it('is the e-mail lower-cased and trimmed, and the phone in E.164', async () => {
    const reader = api('store_v2_customers_read_only store_v2_orders_read_only');
    expect(await bigCommerceContact(reader, '4927')).toEqual({ email: 'john.doe@example.com', phone: '+442079460958' });
    // A phone without its country code takes the country of the customer's address.
    expect(await bigCommerceContact(reader, '4929')).toEqual({ email: 'grace@example.com', phone: '+12125550142' });
  });

  it('has no phone when the record has none, or one that cannot be made E.164', async () => {
    const reader = api('store_v2_customers');
    expect(await bigCommerceContact(reader, '4928')).toEqual({ email: 'ada@example.com' });
    expect(await bigCommerceContact(reader, '4930')).toEqual({ email: 'linus@example.com' });
  });

  it('is nothing for no such customer, for another store’s, or for an id that is not one', async () => {
    const reader = api();
    for (const id of ['4999', '5001', '0', '-1', '4927,4928', 'abc', ''])
      expect([id, await bigCommerceContact(reader, id)]).toEqual([id, undefined]);
  });

  it("is 'not-allowed' for an install without the Customers scope, and an error for a refused token", async () => {
    expect(await bigCommerceContact(api('store_v2_orders_read_only'), '4927')).toBe('not-allowed');
    const revoked = new BigCommerceApi({ storeHash: STORE, accessToken: 'no-such-token', baseUrl: fake.url });
    await expect(bigCommerceContact(revoked, '4927')).rejects.toMatchObject({ status: 401 });
    await expect(bigCommerceContact(revoked, '4927')).rejects.toBeInstanceOf(BigCommerceApiError);
  });

  it('asks for the one customer only', async () => {
    const before = fake.requests.length;
    await bigCommerceContact(api(), '4927');
    expect(fake.requests.slice(before)).toEqual([{ method: 'GET', path: '/v3/customers', status: 200, store: STORE }]);
  });
});
