// Personal data out of a raw delivery body, for erasure: the body is parsed
// losslessly (order ids above 2^53 keep their digits), the fields that hold a
// person (named per platform) are dropped wherever they appear, and the rest
// is written back. What remains still tells the order's story: ids, totals,
// statuses, refunds.
import { isLosslessNumber, parse, stringify } from 'lossless-json';
import type { StoredDelivery } from '../../src/core/delivery.ts';
import { normalEmail, samePhone, wholeEmails } from '../../src/core/store/customer-data.ts';
import type { CustomerMatch } from '../../src/core/store/ledger-store.ts';
import { toE164 } from './phone.ts';

type Json = unknown;

function drop(value: Json, keys: ReadonlySet<string>): Json {
  if (Array.isArray(value)) return value.map((item) => drop(item, keys));
  if (typeof value !== 'object' || value === null || isLosslessNumber(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !keys.has(key))
      .map(([key, item]) => [key, drop(item, keys)]),
  );
}

/** Where an address says its country, in the platforms' bodies (Shopify, WooCommerce, BigCommerce). */
const COUNTRY_KEYS = ['country_code', 'country', 'country_iso2'] as const;

/**
 * Every string under one of these keys, anywhere in the body (e-mails,
 * phones), with the country of the object it sits in: a phone written
 * without its country code is read in its own address's country, never in
 * the requester's.
 */
function collect(
  value: Json,
  keys: ReadonlySet<string>,
  into: Array<{ text: string; country: string | null }> = [],
): Array<{ text: string; country: string | null }> {
  if (Array.isArray(value)) for (const item of value) collect(item, keys, into);
  else if (typeof value === 'object' && value !== null && !isLosslessNumber(value)) {
    const record = value as Record<string, unknown>;
    const country =
      COUNTRY_KEYS.map((key) => record[key]).find(
        (item): item is string => typeof item === 'string' && item.trim() !== '',
      ) ?? null;
    for (const [key, item] of Object.entries(record)) {
      if (keys.has(key) && typeof item === 'string') into.push({ text: item, country });
      else collect(item, keys, into);
    }
  }
  return into;
}

const idText = (value: unknown) =>
  isLosslessNumber(value)
    ? value.value
    : typeof value === 'number' || typeof value === 'string'
      ? String(value)
      : undefined;

export interface BodyShape {
  /** Keys whose values are a person (the whole value goes). */
  personal: ReadonlySet<string>;
  emailKeys: ReadonlySet<string>;
  phoneKeys: ReadonlySet<string>;
  /** Keys that hold the order's id, at the top of the body. */
  orderIdKeys: readonly string[];
}

/** Whether a body is about the customer, and the body without anyone's personal data. */
export function redactBody(
  delivery: StoredDelivery,
  match: CustomerMatch,
  shape: BodyShape,
): { about: boolean; redacted: StoredDelivery } {
  if (delivery.bodyEncoding !== 'utf8') return { about: false, redacted: delivery };
  let body: Json;
  try {
    body = parse(delivery.body);
  } catch {
    // Not JSON: it cannot be taken apart, so it is judged by the whole e-mail addresses in it, and erased whole.
    const found = wholeEmails(delivery.body);
    const about = match.emails.some((email) => email.trim() !== '' && found.includes(normalEmail(email)));
    return { about, redacted: about ? { ...delivery, body: '' } : delivery };
  }
  const top = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const orderIds = shape.orderIdKeys.map((key) => idText(top[key])).filter((id): id is string => id !== undefined);
  const emails = collect(body, shape.emailKeys).map(({ text }) => text);
  const phones = collect(body, shape.phoneKeys).flatMap(({ text, country }) => toE164(text, country) ?? []);
  const about =
    orderIds.some((id) => match.orderIds.includes(id)) ||
    emails.some((email) => match.emails.some((wanted) => normalEmail(wanted) === normalEmail(email))) ||
    phones.some((phone) => match.phones.some((wanted) => samePhone(wanted, phone)));
  if (!about) return { about, redacted: delivery };
  return { about, redacted: { ...delivery, body: stringify(drop(body, shape.personal)) ?? '' } };
}
