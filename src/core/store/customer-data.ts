// What counts as a customer's personal data in the ledger, and how it is
// found and erased. Both backends use these, so that the lowdb files and
// PostgreSQL forget exactly the same things.
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { OrderRecord } from '../order-record.ts';
import type { Adjustment, CustomerMatch } from './ledger-store.ts';

export const normalEmail = (email: string) => email.trim().toLowerCase();

/** Characters no address in a text holds: a run of them ends one. */
const ADDRESS_BREAKS = /[\s"'<>,;:()[\]{}]+/;

/** The whole e-mail addresses in a text, normalised: a request for anna@ never matches joanna@. */
export const wholeEmails = (text: string): string[] =>
  // Split at the characters an address cannot hold, then each piece with an '@' that has something on both sides:
  // what /[^…]+@[^…]+/g finds, in one pass. That expression, on a long run without an '@', was tried from every
  // start position across the whole run: quadratic, 10.5 s on a 150 KB body a merchant signed.
  text
    .split(ADDRESS_BREAKS)
    .filter((piece) => {
      const at = piece.indexOf('@', 1);
      return at !== -1 && at < piece.length - 1;
    })
    .map(normalEmail);

/** The digits of a phone number: "+1 (212) 555-0142" and "12125550142" are the same number. */
export const phoneDigits = (phone: string) => phone.replace(/\D/g, '');

/** A number written with its country code, in E.164; undefined for one without (or not a number). */
export const internationalPhone = (phone: string): string | undefined => {
  if (!phone.trim().startsWith('+')) return undefined;
  const parsed = parsePhoneNumberFromString(phone);
  return parsed?.isPossible() ? parsed.number : undefined;
};

/**
 * Two phone numbers are the same number, whole: compared in E.164, so each
 * must carry its country code. A number without one could be several
 * customers' in several countries (a platform's compliance requests may name
 * "555-625-1199"): it matches no one, and the request is met by its e-mail
 * and order ids. Numbers kept in orders are E.164 already; one in a raw body
 * is read in its own address's country before it is compared (redact.ts).
 */
export function samePhone(a: string, b: string): boolean {
  const [x, y] = [internationalPhone(a), internationalPhone(b)];
  return x !== undefined && x === y;
}

/**
 * Digits every stored number that may be this one ends with, for narrowing
 * candidates in SQL (samePhone decides): its last seven, so that no spelling
 * of a match is narrowed away.
 */
export const phoneSuffix = (phone: string): string => phoneDigits(internationalPhone(phone) ?? '').slice(-7);

/** Whether an order key (platform:shop:orderId) is of this shop: the whole shop, not one whose name starts the same (example.com is not example.com:8443). */
export const isOrderKeyOfShop = (key: string, platform: string, shop: string): boolean => {
  const prefix = `${platform}:${shop}:`;
  return key.startsWith(prefix) && !key.slice(prefix.length).includes(':');
};

export function inScope(platform: string, shop: string, match: CustomerMatch): boolean {
  return (!match.platform || match.platform === platform) && (!match.shop || match.shop === shop);
}

/**
 * Is a manual adjustment within a request's reach? A shop's request (or one
 * limited to a platform) reaches the adjustments made for that shop alone:
 * the operator's, made for no shop, and other merchants' are not its to
 * erase or read. The operator's own request, for no shop, reaches them all.
 */
export function adjustmentInScope(adjustment: Pick<Adjustment, 'platform' | 'shop'>, match: CustomerMatch): boolean {
  if (!match.platform && !match.shop) return true;
  return (
    adjustment.platform !== undefined &&
    adjustment.shop !== undefined &&
    inScope(adjustment.platform, adjustment.shop, match)
  );
}

/** Is this order the customer's: their e-mail, their phone, or an order the request names? */
export function orderMatches(
  record: Pick<OrderRecord, 'platform' | 'shop' | 'orderId' | 'snapshot'>,
  match: CustomerMatch,
): boolean {
  if (!inScope(record.platform, record.shop, match)) return false;
  if (match.exceptOrderKeys?.includes(`${record.platform}:${record.shop}:${record.orderId}`)) return false;
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
  for (const field of ['customer.name', 'customer.email', 'customer.mobile', 'attributes', 'landingSite'])
    delete record.snapshotFrom[field];
  record.erasedAt = at;
}

/**
 * Text that may quote the customer (a service's error message): their e-mail
 * and phone replaced, the phone in each spelling it may take (as asked, E.164,
 * its digits), and the contact details of the orders found to be theirs
 * (`alsoTheirs`: an order found by phone has its own e-mail).
 */
export function scrubText(
  text: string,
  match: CustomerMatch,
  alsoTheirs: ReadonlyArray<string | null | undefined> = [],
): string {
  const spellings = new Set<string>();
  for (const value of [...match.emails, ...match.phones, ...alsoTheirs]) {
    const trimmed = value?.trim();
    if (!trimmed) continue;
    spellings.add(trimmed);
    const e164 = internationalPhone(trimmed);
    if (e164) {
      spellings.add(e164);
      spellings.add(e164.slice(1));
    }
  }
  let scrubbed = text;
  // Longest first, so that a spelling inside another (its digits in its E.164) never leaves part of it behind.
  for (const spelling of [...spellings].sort((a, b) => b.length - a.length)) {
    scrubbed = scrubbed.replace(new RegExp(spelling.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), '[erased]');
  }
  return scrubbed;
}

/** Is a contact (kept on a record: an adjustment, a data request) the customer's? */
export function contactMatches(
  contact: { email?: string | null | undefined; mobile?: string | null | undefined; phone?: string | null | undefined },
  match: CustomerMatch,
): boolean {
  const email = contact.email;
  if (email && match.emails.some((wanted) => normalEmail(wanted) === normalEmail(email))) return true;
  const phone = contact.mobile ?? contact.phone;
  return Boolean(phone && match.phones.some((wanted) => samePhone(wanted, phone)));
}
