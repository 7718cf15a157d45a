// Who asks on a WooCommerce storefront (docs/wordpress-plugin.md §3). The widget fetches a short-lived identity
// token from the plugin's REST route on the store's own origin (for a signed-in user, nonce-checked, never cached
// nor printed in a page) and sends it to the bridge as `Authorization: Bearer`. The plugin signs it under the
// store's plugin key for the identity purpose: the customer's WordPress user id, their account's e-mail (who they
// are at the loyalty service; the store's own server signs it, so it is taken from the token rather than read
// again from the store), and its time. The token's phone is never who they are: it is the billing phone, which the
// customer types at any checkout and in My Account › Addresses, unchecked, so a customer whose account has no
// e-mail could type someone else's and read and spend their points (the service and the ledger know customers by
// phone too). Nor is an e-mail its owner never proved: WooCommerce checks no address (registration signs a new
// customer in at once; My Account changes the address unconfirmed), so anyone could register with a guest buyer's
// address and spend their points. The plugin mails the customer a one-time link and says "emailProven" only while the
// account's address is the one proven; until then the customer is asked to prove it (contactUnproven).
// A door signature (another purpose) opens nothing here, nor a token under a key the store no longer has, nor one
// older than its five minutes.
import { routeQuery } from '../../src/core/platform-answers.ts';
import type { CustomerContact, StorefrontAsker } from '../../src/core/platform-module.ts';
import type { KeyOf } from './plugin-keys.ts';
import { IDENTITY_PURPOSE, readPayload, signedPayload } from './plugin-signature.ts';
import { wooShopNamed } from './shop-identity.ts';

/** Why a token was refused, for the operator's log. Nothing of the token (nor the customer it names) is in them. */
export const IDENTITY_REFUSALS = {
  malformed: 'the identity token is not of the shape the WordPress plugin makes',
  not_connected: 'the identity token names a store whose plugin is not connected',
  old_key: 'the identity token is signed under a key the store no longer has (the plugin was connected again)',
  bad_signature: 'the identity token is not signed with the store’s plugin key for identity',
  missing_time: 'the identity token lacks iat or exp',
  bad_lifetime: 'the identity token does not expire within the 5 minutes after its iat',
  not_yet_valid: 'the identity token is issued in the future (is the store’s clock or this server’s wrong?)',
  expired: 'the identity token has expired (an old token, replayed)',
  no_customer: 'the identity token names no customer',
} as const;

export type IdentityRefusal = keyof typeof IDENTITY_REFUSALS;

export type IdentityCheck =
  | { ok: true; shop: string; customerId: string; contact: CustomerContact | 'unproven' }
  | { ok: false; refusal: IdentityRefusal };

/** The plugin's tokens live five minutes. */
export const IDENTITY_LIFETIME_SECONDS = 300;
/** Clock difference allowed between the store's server and this one, before iat. Kept small: see current-customer.ts. */
export const IDENTITY_LEEWAY_SECONDS = 30;
/** A token is a few hundred characters; an e-mail of 254 and a phone add little. Anything much longer is not read. */
const MAX_TOKEN_LENGTH = 4096;
const TOKEN = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;
/** A WordPress user id: a positive integer, as the plugin writes it (a string). */
const USER_ID = /^[1-9][0-9]{0,19}$/;

const refused = (refusal: IdentityRefusal): IdentityCheck => ({ ok: false, refusal });
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * Who the customer is at the loyalty service, from the token's own fields: the account's e-mail. Not the phone the
 * token carries (the billing phone, typed by the customer and checked by no one): a customer without an e-mail has
 * no contact, and is told so.
 */
function contactOf(payload: Record<string, unknown>): CustomerContact {
  const email = typeof payload.email === 'string' ? payload.email.trim() : '';
  return email.length > 0 && email.length <= 254 && email.includes('@') ? { email } : {};
}

/**
 * The store, customer and contact an identity token names, if the store's current plugin key signed it for identity
 * and it is fresh. `keyOf`: the store's current key (plugin-keys.ts).
 */
export async function checkPluginIdentity(token: string, keyOf: KeyOf, nowMs = Date.now()): Promise<IdentityCheck> {
  const parts = token.length <= MAX_TOKEN_LENGTH ? TOKEN.exec(token) : null;
  if (!parts) return refused('malformed');
  const [, payloadText, signature] = parts as unknown as [string, string, string];
  // Read unsigned only to learn which store's key checks it.
  const unsigned = readPayload(payloadText);
  if (!unsigned || typeof unsigned.store !== 'string' || unsigned.store === '') return refused('malformed');
  const key = await keyOf(unsigned.store);
  if (!key) return refused('not_connected');
  if (unsigned.keyId !== key.keyId) return refused('old_key');
  const payload = signedPayload(IDENTITY_PURPOSE, payloadText, signature, key.key);
  if (!payload || payload.purpose !== 'storefront-identity') return refused('bad_signature');
  const { iat, exp, customerId } = payload;
  if (!isTime(iat) || !isTime(exp)) return refused('missing_time');
  if (exp <= iat || exp - iat > IDENTITY_LIFETIME_SECONDS) return refused('bad_lifetime');
  const nowS = nowMs / 1000;
  if (nowS < iat - IDENTITY_LEEWAY_SECONDS) return refused('not_yet_valid');
  if (nowS > exp) return refused('expired');
  if (typeof customerId !== 'string' || !USER_ID.test(customerId)) return refused('no_customer');
  const contact = payload.emailProven === true ? contactOf(payload) : 'unproven';
  return { ok: true, shop: unsigned.store, customerId, contact };
}

export interface WooCustomerAskerOptions {
  keyOf: KeyOf;
  /** Whether the bridge serves the store (the storefront part's `served`). */
  served(shop: string): Promise<boolean>;
  /** Why a request was refused, for the operator's log: never the token. */
  onRefused?: (reason: string) => void;
  /** A test's clock (milliseconds); the system's otherwise. */
  now?: () => number;
}

/**
 * Who asks, from the request's headers and query alone: a customer with a good token of a served store; a guest
 * with no Authorization header and `?store=` naming a served store (shown only what the store's pages show anyone:
 * its ways to earn and its rewards); anyone else is refused.
 */
export function wooCustomerAsker(options: WooCustomerAskerOptions): (request: Request) => Promise<StorefrontAsker> {
  const { served, onRefused } = options;
  const refuse = (reason: string): StorefrontAsker => {
    onRefused?.(reason);
    return { kind: 'refused' };
  };
  const notServed = 'the store named is not one this bridge serves with a connected plugin';
  return async (request) => {
    const authorization = request.headers.get('authorization') ?? undefined;
    const store = routeQuery(request).store;
    if (authorization !== undefined) {
      if (store !== undefined) return refuse('the request carries both an identity token and a store');
      const token = /^Bearer (\S+)$/.exec(authorization)?.[1];
      if (!token) return refuse('the Authorization header is not a bearer token');
      const checked = await checkPluginIdentity(token, options.keyOf, (options.now ?? Date.now)());
      if (!checked.ok) return refuse(IDENTITY_REFUSALS[checked.refusal]);
      if (!(await served(checked.shop))) return refuse(notServed);
      const { shop, customerId, contact } = checked;
      return contact === 'unproven'
        ? { kind: 'customer', shop, customerId, contactUnproven: true }
        : { kind: 'customer', shop, customerId, contact };
    }
    if (store === undefined) return refuse('the request carries neither an identity token nor a store');
    // The store as the bridge names it, exactly: the plugin prints it so.
    if (store === '' || wooShopNamed(store) !== store) return refuse('the store named is not a store’s name');
    if (!(await served(store))) return refuse(notServed);
    return { kind: 'guest', shop: store };
  };
}
