// A customer's e-mail and phone, read from the store's own customer record with the store's token (Customers V3,
// GET /v3/customers?id:in=<id>), for the loyalty service to know them by. The e-mail in the current-customer JWT is
// not used: the bridge reads the contact from the platform's record on its own side, never from what a browser
// carried. Reading it needs the Customers scope (store_v2_customers_read_only, or store_v2_customers); without it
// BigCommerce answers 403 and the answer is 'not-allowed'. What was read never goes into a log line or an error.
import type { CustomerContact } from '../../src/core/platform-module.ts';
import { asArray, asRecord, asString } from '../shared/json.ts';
import { toE164 } from '../shared/phone.ts';
import { BigCommerceApiError, type BigCommerceApi } from './admin-api.ts';

/** A customer id as BigCommerce writes it: a positive int32. */
const CUSTOMER_ID = /^[1-9]\d{0,9}$/;

export async function bigCommerceContact(
  api: BigCommerceApi,
  customerId: string,
): Promise<CustomerContact | 'not-allowed' | undefined> {
  if (!CUSTOMER_ID.test(customerId)) return undefined;
  let answer;
  try {
    // The addresses give a country for a phone written without its country code.
    answer = await api.send('GET', 'v3/customers', { searchParams: { 'id:in': customerId, include: 'addresses' } });
  } catch (error) {
    if (error instanceof BigCommerceApiError && error.status === 403) return 'not-allowed';
    throw error;
  }
  if (answer.status !== 200)
    throw new BigCommerceApiError(`BigCommerce answered ${answer.status} for v3/customers`, answer.status, false);
  // The record whose id is the one asked for, never merely the first: a filter the API ignored would list others.
  const customer = asArray(asRecord(answer.body).data)
    .map(asRecord)
    .find((record) => String(record.id) === customerId);
  if (!customer) return undefined;
  const email = asString(customer.email)?.toLowerCase();
  // The record's phone is free text ("555-123-4567"): a number that cannot be made E.164 is left out, as the service
  // could never match it.
  const country = asArray(customer.addresses)
    .map((address) => asString(asRecord(address).country_code))
    .find((code) => code !== null);
  const phone = toE164(asString(customer.phone), country ?? null);
  if (!email && !phone) return undefined;
  return { ...(email ? { email } : {}), ...(phone ? { phone } : {}) };
}
