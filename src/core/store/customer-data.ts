// What counts as a customer's personal data in the ledger, and how it is
// found and erased. Both backends use these, so that the lowdb files and
// PostgreSQL forget exactly the same things.
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { OrderRecord } from '../order-record.ts';
import type { CustomerMatch } from './ledger-store.ts';

export const normalEmail = (email: string) => email.trim().toLowerCase();

/** The digits of a phone number: "+1 (212) 555-0142" and "12125550142" are the same number. */
export const phoneDigits = (phone: string) => phone.replace(/\D/g, '');

/** A number written with its country code, in E.164; undefined for one without (or not a number). */
const international = (phone: string) => {
  const parsed = parsePhoneNumberFromString(phone.trim().startsWith('+') ? phone : `+${phoneDigits(phone)}`);
  return phone.trim().startsWith('+') && parsed?.isPossible() ? parsed : undefined;
};

/**
 * Two phone numbers are the same number, whole: compared in E.164. One given
 * without its country code (Shopify's compliance requests may name
 * "555-625-1199") is read in the other's country, so it must be that
 * number's whole national number, never a few digits at its end: a request
 * for one customer never reaches another whose number merely ends the same.
 */
export function samePhone(a: string, b: string): boolean {
  const [x, y] = [international(a), international(b)];
  if (x && y) return x.number === y.number;
  const known = x ?? y;
  if (!known) return phoneDigits(a).length >= 6 && phoneDigits(a) === phoneDigits(b);
  const read = parsePhoneNumberFromString(x ? b : a, { defaultCallingCode: known.countryCallingCode });
  return Boolean(read?.isPossible() && read.number === known.number);
}

/**
 * Digits every stored number that may be the same as this one ends with, for
 * narrowing candidates in SQL (samePhone decides): the whole E.164 digits, or
 * the national number without its trunk prefix.
 */
export const phoneSuffix = (phone: string): string => international(phone)?.number.slice(1) ?? phoneDigits(phone).replace(/^0+/, '');

/** Whether an order key (platform:shop:orderId) is of this shop: the whole shop, not one whose name starts the same (example.com is not example.com:8443). */
export const isOrderKeyOfShop = (key: string, platform: string, shop: string): boolean => {
  const prefix = `${platform}:${shop}:`;
  return key.startsWith(prefix) && !key.slice(prefix.length).includes(':');
};

export function inScope(platform: string, shop: string, match: CustomerMatch): boolean {
  return (!match.platform || match.platform === platform) && (!match.shop || match.shop === shop);
}

/** Is this order the customer's: their e-mail, their phone, or an order the request names? */
export function orderMatches(record: Pick<OrderRecord, 'platform' | 'shop' | 'orderId' | 'snapshot'>, match: CustomerMatch): boolean {
  if (!inScope(record.platform, record.shop, match)) return false;
  if (match.orderIds.includes(record.orderId)) return true;
  const { email, mobile } = record.snapshot.customer;
  if (email && match.emails.some((wanted) => normalEmail(wanted) === normalEmail(email))) return true;
  return Boolean(mobile && match.phones.some((wanted) => samePhone(wanted, mobile)));
}

/** Erases the personal fields of an order, in place. Its id, facts, points state and call history stay. */
export function eraseOrder(record: OrderRecord, at: string): void {
  record.snapshot.customer = { name: null, email: null, mobile: null };
  // Note attributes and the landing page are free text a shop controls: they can carry personal data.
  record.snapshot.attributes = {};
  record.snapshot.landingSite = null;
  for (const field of ['customer.name', 'customer.email', 'customer.mobile', 'attributes', 'landingSite']) delete record.snapshotFrom[field];
  record.erasedAt = at;
}

/** Text that may quote the customer (a service's error message): their e-mail and phone replaced. */
export function scrubText(text: string, match: CustomerMatch): string {
  let scrubbed = text;
  for (const email of match.emails) {
    if (email.trim()) scrubbed = scrubbed.replace(new RegExp(email.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), '[erased]');
  }
  for (const phone of match.phones) {
    if (phone.trim()) scrubbed = scrubbed.split(phone.trim()).join('[erased]');
  }
  return scrubbed;
}

/** Is a contact (kept on a record: an adjustment, a data request) the customer's? */
export function contactMatches(contact: { email?: string | null | undefined; mobile?: string | null | undefined; phone?: string | null | undefined }, match: CustomerMatch): boolean {
  const email = contact.email;
  if (email && match.emails.some((wanted) => normalEmail(wanted) === normalEmail(email))) return true;
  const phone = contact.mobile ?? contact.phone;
  return Boolean(phone && match.phones.some((wanted) => samePhone(wanted, phone)));
}
