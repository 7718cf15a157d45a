// BigCommerce's Customers V3 list on the fake store API, from BigCommerce's documentation (reference/customers.v3.yml,
// "Get All Customers"):
//   GET v3/customers   id:in=4,5,6 (integers; anything else is 422 "The optional filter parameter was not valid"),
//     include=addresses (each address with its country_code and phone; left out otherwise), page, limit (50 by
//     default) -> {data: [customer_Full], meta: {pagination: {total, count, per_page, current_page, total_pages}}}
//   the Customers scope (store_v2_customers, or store_v2_customers_read_only): a token without it gets 403 ("Missing
//     scope - the v3 Auth token is valid but does not have proper permissions"), as an ErrorResponse {status, title,
//     type}
// Customers are kept per store, added with addCustomer.
import { pageOf } from './fake-bigcommerce-pages.ts';
import type { Request, Response } from 'express';
import { fakeScopeOf, fakeStoreOf, type FakeBigCommerce, type FakeStore } from './fake-bigcommerce.ts';

export interface FakeCustomer {
  id: number;
  email: string;
  phone?: string;
  /** The country of the customer's one address (ISO 3166 alpha-2); no address without it. */
  country?: string;
}

const customersOf = new WeakMap<FakeStore, Map<number, FakeCustomer>>();
const served = new WeakSet<FakeBigCommerce>();
const STATUS_CODES = 'https://developer.bigcommerce.com/api-docs/getting-started/api-status-codes';

function record(customer: FakeCustomer, withAddresses: boolean) {
  const created = '2026-01-15T10:00:00Z';
  return {
    id: customer.id,
    email: customer.email,
    first_name: 'Ada',
    last_name: 'Customer',
    company: '',
    phone: customer.phone ?? '',
    registration_ip_address: '',
    notes: '',
    tax_exempt_category: '',
    customer_group_id: 0,
    date_modified: created,
    date_created: created,
    address_count: customer.country ? 1 : 0,
    attribute_count: 0,
    authentication: { force_password_reset: false },
    accepts_product_review_abandoned_cart_emails: false,
    channel_ids: null,
    ...(withAddresses
      ? {
          addresses: customer.country
            ? [
                {
                  id: customer.id * 10,
                  customer_id: customer.id,
                  first_name: 'Ada',
                  last_name: 'Customer',
                  address1: '1 Main Street',
                  address2: '',
                  city: 'Springfield',
                  state_or_province: '',
                  postal_code: '12345',
                  country_code: customer.country,
                  country: customer.country,
                  phone: customer.phone ?? '',
                  address_type: 'residential',
                },
              ]
            : [],
        }
      : {}),
  };
}

function listCustomers(req: Request, res: Response) {
  const scope = fakeScopeOf(res);
  if (scope !== undefined && !/(^|\s)store_v2_customers(_read_only)?(\s|$)/.test(scope))
    return void res.status(403).json({ status: 403, title: 'Missing scope', type: STATUS_CODES });
  const query = req.query as Record<string, string | undefined>;
  const ids = query['id:in']?.split(',');
  if (ids?.some((id) => !/^\d+$/.test(id)))
    return void res.status(422).json({
      status: 422,
      title: 'The optional filter parameter was not valid',
      type: STATUS_CODES,
      errors: { 'id:in': 'must be integers' },
    });
  const limit = Number(query.limit ?? 50);
  const page = Number(query.page ?? 1);
  const withAddresses = (query.include ?? '').split(',').includes('addresses');
  const matching = [...(customersOf.get(fakeStoreOf(res))?.values() ?? [])]
    .filter((customer) => !ids || ids.includes(String(customer.id)))
    .sort((a, b) => a.id - b.id);
  res.json(pageOf(matching, page, limit, (customer) => record(customer, withAddresses)));
}

/** Adds the Customers V3 list to the fake's store API (once per fake). */
export function serveFakeCustomers(fake: FakeBigCommerce): void {
  if (served.has(fake)) return;
  served.add(fake);
  fake.storeApi.get('/v3/customers', listCustomers);
}

/** A customer of the store `hash` (which must exist), served by the Customers V3 list. */
export function addCustomer(fake: FakeBigCommerce, hash: string, customer: FakeCustomer): void {
  serveFakeCustomers(fake);
  const store = fake.stores.get(hash);
  if (!store) throw new Error(`no fake store ${hash}`);
  const customers = customersOf.get(store) ?? new Map<number, FakeCustomer>();
  customers.set(customer.id, customer);
  customersOf.set(store, customers);
}
