// The Shopify adapter. Before the answer, and pure: the HMAC over the exact bytes, and for the topics that
// change a shop's standing, the body checked against its topic and the header's shop. After it, from the
// stored delivery: order topics to OrderEvents with facts from the body (refunds and edits completed from
// the Admin API where the bridge has access), the app/* topics, and the compliance topics as privacy requests.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  PlatformUnavailableError,
  type DeliveryInfo,
  type PlatformAdapter,
  type Translation,
} from '../../src/core/platform-adapter.ts';
import { deliveryBody, type StoredDelivery } from '../../src/core/delivery.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { redactBody, type BodyShape } from '../shared/redact.ts';
import { asArray, asRecord, idDigits, isoTime, parseJsonLossless } from '../shared/json.ts';
import { forgetScopes } from './scopes.ts';
import { ShopifyAdminError, type ShopifyAdminApis } from './admin-api.ts';
import { complianceRequest } from './compliance.ts';
import { fetchShopifyOrder } from './graphql-orders.ts';
import { SHOPIFY_HEADER } from './headers.ts';
import { checkGuardedBody, GUARDED_TOPICS, orderBodyProblem, type GuardedTopic } from './guarded-bodies.ts';
import { orderToEvent, refundToEvent, TOPIC_CLAIMS, type EventContext } from './order-events.ts';
import { shopifyKeptBody } from './kept-fields.ts';
import { COMPLIANCE_TOPICS, DECLARED_NAMES, HANDLED_TOPICS, ORDER_TOPICS, trimmedAsDeclared } from './topics.ts';
import { shopifyPreflight, shopifyVerifier, type ShopifyDelivery } from './verify.ts';

export interface ShopifyAdapterOptions {
  /** The app's client secret; during a rotation, the previous one too. */
  apiSecrets: readonly string[];
  /** Admin API clients, for the shops the bridge has access to. */
  admin?: ShopifyAdminApis | undefined;
  /** app/scopes_update: the scopes the merchant granted now (the shop's subscriptions and scope warnings are checked again). */
  onScopesChanged?: ((shop: string, scopes: string[]) => void) | undefined;
}

export type ShopifyAdapter = PlatformAdapter<ShopifyDelivery>;

/** A body's own dedupe key: the same bytes for the same shop and topic, under any webhook id or event id, are one delivery. */
const bodyKey = (shop: string, topic: string, body: Buffer) =>
  `shopify:body:${shop}:${topic}:${createHash('sha256').update(body).digest('base64url')}`;

/** Topics Shopify sends with the same bytes at each uninstall of a shop. */
const PER_INSTALL_TOPICS: ReadonlySet<string> = new Set(['app/uninstalled', 'shop/redact']);

/** Shopify revokes the app's token when the app is uninstalled; a cheap query tells whether it still works. */
const SHOP_QUERY = 'query LoyaltyBridgeInstalled { shop { id } }';

/** How long to wait before asking Shopify again whether an uninstall it did not confirm happened. */
const UNINSTALL_RECHECK_MS = 3 * 60_000;
/** How long after an uninstall was sent its token may still work (the revocation on its way): past it, a working token means installed. */
const REVOCATION_GRACE_MS = 10 * 60_000;

/** What in a Shopify body is a person. */
const SHOPIFY_BODY: BodyShape = {
  personal: new Set([
    'customer',
    'billing_address',
    'shipping_address',
    'email',
    'contact_email',
    'phone',
    'client_details',
    'browser_ip',
    'note',
    'note_attributes',
    'landing_site',
    'referring_site',
    'destination',
    'first_name',
    'last_name',
    'company',
    'address1',
    'address2',
    'zip',
    'latitude',
    'longitude',
  ]),
  emailKeys: new Set(['email', 'contact_email']),
  phoneKeys: new Set(['phone']),
  orderIdKeys: ['id', 'order_id'],
};

/**
 * Whether the delivery came through the app's configuration (shopify.app.toml):
 * a trimmed topic by its signed body alone (a shop-scoped subscription sends
 * the whole resource), the others by the name the configuration gives their
 * subscription (X-Shopify-Name, not signed: declared-deliveries.ts counts it
 * only on a delivery that is not a duplicate).
 */
function viaAppConfiguration(delivery: ShopifyDelivery): { viaAppConfiguration?: 'body' | 'name' } {
  const trimmed = trimmedAsDeclared(delivery.topic, delivery.payload);
  if (trimmed !== undefined) return trimmed ? { viaAppConfiguration: 'body' } : {};
  // app/uninstalled bodies are kept under any new webhook id (they act once per install), so a captured one sent again is
  // no duplicate there: an unsigned name on it proves nothing, and the shop's own copy of that subscription stays.
  if (PER_INSTALL_TOPICS.has(delivery.topic)) return {};
  return delivery.name !== undefined && delivery.name === DECLARED_NAMES.get(delivery.topic)
    ? { viaAppConfiguration: 'name' }
    : {};
}

/** What the adapter's translations are handed, taken from its options when it is made. */
interface AdapterParts {
  admin: ShopifyAdminApis | undefined;
  onScopesChanged: ((shop: string, scopes: string[]) => void) | undefined;
}

export function createShopifyAdapter({ apiSecrets, admin, onScopesChanged }: ShopifyAdapterOptions): ShopifyAdapter {
  const parts: AdapterParts = { admin, onScopesChanged };
  return {
    platform: 'shopify',
    orderIdsAreGlobal: true,
    // Shopify sends a shop the same app/uninstalled and shop/redact bytes at
    // each uninstall (the Shop object, { shop_id, shop_domain }): they act
    // again for a later install. A customer's erasure is never undone by one.
    actsOnce: { 'app/uninstalled': 'per-install', 'shop/redact': 'per-uninstall', 'customers/redact': 'ever' },
    preflight: shopifyPreflight,
    verify: shopifyVerifier(apiSecrets),
    describe: describeDelivery,
    translate: (stored: StoredDelivery) => translate(parts, stored),
    keptBody: shopifyKeptBody,
    redact: (stored, match) => redactBody(stored, match, SHOPIFY_BODY),
    // The body key names the shop (bodyKey); the event and webhook ids do not.
    shopKeyPrefix: (shop) => `shopify:body:${shop}:`,
  };
}

/** The order as Shopify has it now; undefined without access to the shop, or when Shopify has no such order. */
async function currentOrder(
  admin: ShopifyAdminApis | undefined,
  shop: string,
  orderId: string,
  deliveryKey: string,
): Promise<OrderEvent | 'no_access' | undefined> {
  if (!admin || !(await admin.access.hasAccess(shop))) return 'no_access';
  try {
    return await fetchShopifyOrder(admin.for(shop), orderId, `shopify-fetch:${deliveryKey}`);
  } catch (error) {
    if (error instanceof ShopifyAdminError && error.transient) throw new PlatformUnavailableError(error.message);
    if (error instanceof ShopifyAdminError && error.code === 'ACCESS_DENIED') return 'no_access';
    throw error;
  }
}

/**
 * The app was removed from the shop. A body that names the shop says so; one
 * whose myshopify_domain is null (Shopify's schema allows it) is believed
 * only once Shopify refuses the shop's token, which it revokes at uninstall.
 */
/**
 * The app was removed from the shop. Shopify revokes the shop's token at
 * uninstall, so wherever the bridge holds one, Shopify is asked: a token it
 * still accepts means the app is installed (a body sent again after a
 * reinstall, or one read after a quick reinstall), and nothing is
 * forgotten. Just after the delivery, the revocation may still be on its
 * way: asked again a few minutes later. Without a token, a body that names
 * the shop is believed; one whose myshopify_domain is null (Shopify's
 * schema allows it) is not.
 */
async function uninstalled(
  admin: ShopifyAdminApis | undefined,
  stored: StoredDelivery,
  confirmed: boolean,
): Promise<Translation> {
  const { shop } = stored;
  const standing = await installStanding(admin, stored);
  if (standing !== 'gone') return standing;
  if (!confirmed && !(admin && (await admin.access.hasAccess(shop)))) {
    return {
      kind: 'recorded',
      reason: `an app/uninstalled body that names no shop, and the bridge holds no token of ${shop} to confirm it with Shopify: nothing is forgotten`,
    };
  }
  // Whatever is granted at the next install is asked for then.
  if (admin) forgetScopes(admin.for(shop));
  return { kind: 'uninstalled' };
}

/**
 * Whether the app is still installed on the delivery's shop, as far as
 * Shopify says: 'gone' when Shopify refuses the shop's token or the bridge
 * holds none; otherwise what to do with the delivery (recorded, or asked
 * again soon after it was sent).
 */
async function installStanding(
  admin: ShopifyAdminApis | undefined,
  stored: StoredDelivery,
): Promise<'gone' | Translation> {
  const { shop, topic } = stored;
  if (!admin || !(await admin.access.hasAccess(shop))) return 'gone';
  if (await tokenRefused(admin, shop)) return 'gone';
  if (Date.now() - Date.parse(stored.sentAt) < REVOCATION_GRACE_MS) {
    throw new PlatformUnavailableError(
      `Shopify still accepts the app's token for ${shop} just after ${topic}; asked again in a few minutes`,
      UNINSTALL_RECHECK_MS,
    );
  }
  return {
    kind: 'recorded',
    reason: `Shopify accepts the app's token for ${shop}: the app is installed, so ${topic} (sent before a reinstall, or sent again) is not acted on`,
  };
}

/** Whether Shopify refuses the app's token for the shop (after one renewal, as every call does). */
async function tokenRefused(admin: ShopifyAdminApis, shop: string): Promise<boolean> {
  try {
    await admin.for(shop).query(SHOP_QUERY, {}, 1);
    return false;
  } catch (error) {
    if (!(error instanceof ShopifyAdminError)) throw error;
    if (error.code === 'ACCESS_DENIED' && !error.transient) return true;
    throw new PlatformUnavailableError(
      `could not ask Shopify whether the app is still installed on ${shop}: ${error.message}`,
      error.transient ? undefined : UNINSTALL_RECHECK_MS,
    );
  }
}

function describeDelivery(delivery: ShopifyDelivery): DeliveryInfo {
  const { topic, shop } = delivery;
  const handled = HANDLED_TOPICS.has(topic);
  const guard = GUARDED_TOPICS.has(topic) ? checkGuardedBody(topic as GuardedTopic, delivery.payload, shop) : undefined;
  const notItsTopic = handled ? orderBodyProblem(topic, delivery.payload) : undefined;
  const aliases = [
    ...(delivery.eventId ? [`shopify:${delivery.webhookId}`] : []),
    // The same bytes under new ids (a captured delivery sent again) are a
    // duplicate, whatever the topic; but a later install's uninstall and
    // shop/redact are the same bytes too, and must act: those are kept and
    // then act once per install (actsOnce), which a replay does not pass.
    ...(PER_INSTALL_TOPICS.has(topic) ? [] : [bodyKey(shop, topic, delivery.body)]),
  ];
  return {
    // Shopify's guidance: one event, one X-Shopify-Event-Id, whichever
    // subscription delivered it (each subscription has its own webhook id).
    // The topic is part of the key, so two topics of one event stay two.
    // The webhook id stays an alias, so a retry without the event header
    // is still a duplicate.
    key: delivery.eventId ? `shopify:event:${topic}:${delivery.eventId}` : `shopify:${delivery.webhookId}`,
    aliases,
    topic,
    shop,
    sentAt: delivery.triggeredAt ? isoTime(delivery.triggeredAt) : undefined,
    keep: { [SHOPIFY_HEADER.webhookId]: delivery.webhookId, [SHOPIFY_HEADER.apiVersion]: delivery.apiVersion },
    ...viaAppConfiguration(delivery),
    ...(handled ? {} : { ignore: 'a topic loyalty-bridge does not use' }),
    ...(guard && !guard.fits ? { mislabelled: `a ${topic} body that ${guard.reason}` } : {}),
    ...(notItsTopic ? { mislabelled: `a ${topic} body that ${notItsTopic}` } : {}),
    ...(guard?.fits && !guard.confirmed
      ? {
          unconfirmed: `a ${topic} body that names no shop, for a shop the bridge holds no token of: nothing here to forget or to confirm it with`,
        }
      : {}),
  };
}

async function translate(parts: AdapterParts, stored: StoredDelivery): Promise<Translation> {
  const { admin } = parts;
  const { topic, shop } = stored;
  const body = deliveryBody(stored);
  if (!isUtf8(body)) return { kind: 'unusable', reason: 'the body is not valid UTF-8' };
  const parsed = parseJsonLossless(body.toString('utf8'));
  if (!parsed.ok) return { kind: 'unusable', reason: parsed.reason };
  if (GUARDED_TOPICS.has(topic)) {
    // Checked before the answer too; an entry kept by an earlier release was not.
    const guard = checkGuardedBody(topic as GuardedTopic, parsed.value, shop);
    if (!guard.fits) return { kind: 'unusable', reason: `a ${topic} body that ${guard.reason}: not acted on` };
    if (topic === 'app/uninstalled') return uninstalled(admin, stored, guard.confirmed);
    if (topic === 'shop/redact') {
      // Shopify sends it 48 hours after an uninstall, never to a shop that installed the app again: a shop whose token works keeps its data.
      const standing = await installStanding(admin, stored);
      if (standing !== 'gone') return standing;
    }
  }
  if (topic === 'app/scopes_update') return scopesUpdated(parts, shop, parsed.value);
  if ((COMPLIANCE_TOPICS as readonly string[]).includes(topic)) {
    const request = complianceRequest(topic, parsed.value);
    return 'unusable' in request ? { kind: 'unusable', reason: request.unusable } : { kind: 'privacy', request };
  }
  const deliveryKey = stored.headers[SHOPIFY_HEADER.webhookId] ?? stored.sentAt;
  if (topic === 'orders/edited') return orderEdited(admin, shop, parsed.value, deliveryKey);
  const context: EventContext = { shop, deliveryId: deliveryKey, receivedAt: new Date(stored.sentAt) };
  if (topic === 'refunds/create') return refundCreated(admin, parsed.value, context);
  if (!ORDER_TOPICS.has(topic)) return { kind: 'ignored', reason: `topic ${topic} is not one loyalty-bridge uses` };
  return orderChanged(admin, topic, parsed.value, context);
}

/** app/scopes_update: the shop's scopes are asked again, and whoever watches them told. */
async function scopesUpdated(
  { admin, onScopesChanged }: AdapterParts,
  shop: string,
  value: unknown,
): Promise<Translation> {
  // The body names no shop: only a shop the bridge holds a token for is checked again.
  if (!admin || !(await admin.access.hasAccess(shop)))
    return { kind: 'recorded', reason: `app/scopes_update for ${shop}, which the bridge holds no token for` };
  // {"previous": [...], "current": [...], "updated_at": ..., "shop_id": ...}
  const current = asArray(asRecord(value).current).filter((scope): scope is string => typeof scope === 'string');
  if (admin) forgetScopes(admin.for(shop));
  onScopesChanged?.(shop, current);
  return { kind: 'recorded', reason: `the app's scopes on ${shop} are now: ${current.join(', ') || 'none'}` };
}

async function orderEdited(
  admin: ShopifyAdminApis | undefined,
  shop: string,
  value: unknown,
  deliveryKey: string,
): Promise<Translation> {
  // The edit alone says nothing about the order's state: the order is read, or the delivery recorded until its next update.
  const orderId = idDigits(asRecord(asRecord(value).order_edit).order_id);
  const current = orderId === undefined ? 'no_order' : await currentOrder(admin, shop, orderId, deliveryKey);
  if (current === 'no_access' || current === 'no_order')
    return {
      kind: 'recorded',
      reason: `orders/edited carries only the edit; with Admin API access to ${shop} the order is read again`,
    };
  return current
    ? { kind: 'events', events: [current] }
    : { kind: 'unusable', reason: `Shopify has no order ${orderId}` };
}

async function refundCreated(
  admin: ShopifyAdminApis | undefined,
  value: unknown,
  context: EventContext,
): Promise<Translation> {
  const refund = refundToEvent(value, context);
  if (!refund.ok) return { kind: 'unusable', reason: refund.reason };
  // A refund alone cannot always tell full from partial: with access, the order as it is now settles it.
  const current = await currentOrder(admin, context.shop, refund.event.orderId, context.deliveryId);
  return {
    kind: 'events',
    events: current && current !== 'no_access' ? [refund.event, current] : [refund.event],
  };
}

async function orderChanged(
  admin: ShopifyAdminApis | undefined,
  topic: string,
  value: unknown,
  context: EventContext,
): Promise<Translation> {
  const result = orderToEvent(value, context);
  if (!result.ok) return { kind: 'unusable', reason: result.reason };
  const claimed = TOPIC_CLAIMS[topic];
  if (claimed && !result.event.facts.includes(claimed)) {
    // The topic says more than the body shows: the order as Shopify has it now decides; without access, the body alone.
    const current = await currentOrder(admin, context.shop, result.event.orderId, context.deliveryId);
    if (current && current !== 'no_access') return { kind: 'events', events: [result.event, current] };
  }
  return { kind: 'events', events: [result.event] };
}
