// A whole PlatformAdapter for a platform that signs each webhook's exact body with an HMAC-SHA256 of a shared
// secret, in one header (most do: Shopify, WooCommerce, TinyShop). What the bridge demands of every adapter is kept
// here once, so a module states only what differs: a request without the header is refused before its body is
// read; the signature is checked over the raw bytes, in constant time, against every secret the delivery may be
// signed with, before a byte of it is parsed; a body that is not a UTF-8 JSON object, or names no topic, shop or
// id, is refused with the reason; keys name their shop (shopDeliveryKeys), so that a shop's erasure forgets them;
// each event is checked against the bridge's schema and belongs to its delivery's platform and shop.
import { isUtf8 } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { deliveryBody, type StoredDelivery } from '../../src/core/delivery.ts';
import { orderEventSchema, type OrderEvent, type OrderEventInput } from '../../src/core/order-event.ts';
import {
  shopDeliveryKeys,
  type DeliveryInfo,
  type PlatformAdapter,
  type RawDelivery,
  type Translation,
  type Verification,
} from '../../src/core/platform-adapter.ts';
import { parseJsonLossless, type JsonObject } from './json.ts';
import { keptBody, type Shape } from './kept-fields.ts';
import { redactBody, type BodyShape } from './redact.ts';
import { flatHeaders, hmacBase64Matches } from './signature.ts';

/** One value per header, lower-case names. */
export type FlatHeaders = Readonly<Record<string, string>>;

/** How the HMAC's bytes are written in the header. */
export type SignatureEncoding = 'base64' | 'hex';

/** An order event as a platform makes it: the builder names its platform and its delivery's shop. */
export type PlatformOrderEvent = Omit<OrderEventInput, 'platform' | 'shop'>;

/**
 * What a body becomes. Not an uninstall or a privacy request: a destructive topic needs `actsOnce`, and an adapter
 * of its own that states it.
 */
export type BodyTranslation =
  | { kind: 'events'; events: PlatformOrderEvent[] }
  | Extract<Translation, { kind: 'ignored' | 'recorded' | 'unusable' }>;

/** What a delivery is: DeliveryInfo but its key, which is made from the shop and the delivery's id. */
export type Described = Pick<DeliveryInfo, 'topic' | 'shop' | 'sentAt' | 'keep' | 'ignore' | 'mislabelled'> & {
  id: string;
};

/** What differs between platforms whose webhooks are signed this way. */
export interface SignedWebhooks<Delivery> {
  /** The module's name. */
  platform: string;
  /** The header that carries the signature, and how it is written. */
  signature: { header: string; encoding: SignatureEncoding };
  /**
   * The secrets a delivery with these headers may be signed with: the platform's one secret, or the store's that an
   * unsigned header names (so that one store's secret never passes another's delivery); two during a rotation.
   * None: refused (401). Thrown: not known authentic, answered 503, sent again.
   */
  secrets(headers: FlatHeaders): Promise<readonly string[]>;
  /** The verified body (numbers past 2^53 as their digits) and its headers, as the platform's delivery. */
  read(body: JsonObject, headers: FlatHeaders): Delivery;
  /** Its topic, shop and id, each from what the platform signs where it signs it; one empty: refused (400). */
  describe(delivery: Delivery): Described;
  /** The stored body (what `kept` keeps of it) as order events. */
  translate(body: JsonObject, stored: StoredDelivery): Promise<BodyTranslation>;
  /** The fields translate reads, all the ledger keeps of a body (kept-fields.ts); null: the body as it came. */
  kept: Shape | null;
  /** Where the bodies hold a person, for a customer's erasure (redact.ts). */
  personal: BodyShape;
}

/** Longer shops or ids than this are no platform's: refused before they become keys. */
const MAX_NAME = 255;

export function signedWebhookAdapter<Delivery>(spec: SignedWebhooks<Delivery>): PlatformAdapter<Delivery> {
  const header = spec.signature.header.toLowerCase();
  const keys = shopDeliveryKeys(spec.platform);
  const shape = spec.kept;
  return {
    platform: spec.platform,
    // Each shop's order ids are its own, and no topic acts once: BodyTranslation has no destructive kind.
    orderIdsAreGlobal: false,
    actsOnce: {},
    preflight: (headers) => (one(headers[header]) ? { ok: true } : { ok: false, reason: `no ${header} header` }),
    verify: (raw) => verify(spec, header, raw),
    describe(delivery) {
      const { id, ...info } = spec.describe(delivery);
      return { ...info, key: keys.key(info.shop, id) };
    },
    async translate(stored) {
      const body = jsonObject(deliveryBody(stored));
      if (!body.ok) return { kind: 'unusable', reason: body.reason };
      const translated = await spec.translate(body.value, stored);
      return translated.kind === 'events' ? checkedEvents(spec.platform, stored.shop, translated.events) : translated;
    },
    keptBody: shape === null ? null : (_topic, body) => keptBody(body, shape),
    redact: (stored, match) => redactBody(stored, match, spec.personal),
    shopKeyPrefix: keys.prefix,
  };
}

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

async function verify<Delivery>(
  spec: SignedWebhooks<Delivery>,
  header: string,
  raw: RawDelivery,
): Promise<Verification<Delivery>> {
  const headers = flatHeaders(raw.headers);
  const secrets = await spec.secrets(headers);
  if (secrets.length === 0) return { ok: false, status: 401, reason: 'no secret is known for this delivery' };
  // Every secret is checked, so the time taken does not tell which one matched.
  const matches = secrets.map((secret) => hmacMatches(raw.body, secret, headers[header], spec.signature.encoding));
  if (!matches.includes(true)) return { ok: false, status: 401, reason: 'the signature does not match' };
  const body = jsonObject(raw.body);
  if (!body.ok) return { ok: false, status: 400, reason: body.reason };
  let delivery: Delivery;
  let refused: string | undefined;
  try {
    delivery = spec.read(body.value, headers);
    refused = refusal(spec.describe(delivery));
  } catch {
    // A body its platform's reading cannot take: refused for good (400), not answered 503 to come back forever.
    return { ok: false, status: 400, reason: 'the body is not a delivery of this platform' };
  }
  return refused ? { ok: false, status: 400, reason: refused } : { ok: true, delivery };
}

/** Whether `given` is the HMAC-SHA256 of the body with the secret, compared as text in constant time. */
export function hmacMatches(body: Buffer, secret: string, given: string | undefined, encoding: SignatureEncoding) {
  if (encoding === 'base64') return hmacBase64Matches(body, secret, given);
  if (!given) return false;
  // Hex is read in either case; anything else in it (a second value after a comma) fails the length.
  const expected = Buffer.from(createHmac('sha256', secret).update(body).digest('hex'));
  const actual = Buffer.from(given.trim().toLowerCase());
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

type BodyRead = { ok: true; value: JsonObject } | { ok: false; reason: string };

function jsonObject(body: Buffer): BodyRead {
  if (!isUtf8(body)) return { ok: false, reason: 'the body is not UTF-8' };
  const parsed = parseJsonLossless(body.toString('utf8'));
  if (!parsed.ok) return parsed;
  const { value } = parsed;
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? { ok: true, value: value as JsonObject }
    : { ok: false, reason: 'the body is not a JSON object' };
}

/** Why a delivery is not one every delivery must be: it names its topic, shop and id. */
function refusal({ topic, shop, id }: Described): string | undefined {
  const named = { topic, shop, id };
  const missing = Object.entries(named).filter(([, value]) => typeof value !== 'string' || value.trim() === '');
  if (missing.length > 0) return `the delivery names no ${missing.map(([name]) => name).join(', ')}`;
  const long = Object.entries(named).filter(([, value]) => value.length > MAX_NAME);
  if (long.length > 0) return `the delivery's ${long.map(([name]) => name).join(', ')} is over ${MAX_NAME} characters`;
  return undefined;
}

function checkedEvents(platform: string, shop: string, made: readonly PlatformOrderEvent[]): Translation {
  const events: OrderEvent[] = [];
  for (const event of made) {
    const checked = orderEventSchema.safeParse({ ...event, platform, shop });
    // Where and what is wrong, never the value: it can be a customer's.
    if (!checked.success) {
      const problems = checked.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
      return { kind: 'unusable', reason: `an order event is not the bridge's: ${problems.join('; ')}` };
    }
    events.push(checked.data);
  }
  return { kind: 'events', events };
}
