// Who asks on a BigCommerce storefront. The widget's script fetches /customer/current.jwt?app_client_id=<ours> from
// the store's own origin (with the shopper's cookies; 404 for a guest) and sends the JWT as `Authorization: Bearer`.
// BigCommerce signs it HS256 with the app's client secret ("Current Customer API": customer {id, email, group_id},
// iss "bc/apps", sub the store hash, iat, exp 15 minutes later, version 1, aud our client id, application_id,
// store_hash, operation "current_customer"). The same secret signs the signed_payload_jwt of the load, uninstall
// and remove_user callbacks (iss "bc", sub "stores/<hash>", no operation): one purpose per token, so iss and
// operation are checked before anything is read, and such a payload opens nothing here (signed-payload.ts in turn
// requires iss "bc", nbf and jti, which a current-customer token lacks).
import { compactVerify, errors } from 'jose';
import { routeQuery } from '../../src/core/platform-answers.ts';
import type { StorefrontAsker } from '../../src/core/platform-module.ts';
import { asRecord } from '../shared/json.ts';

/** Why a token was refused, for the operator's log. Nothing of the token (nor the customer it names) is in them. */
export const CURRENT_CUSTOMER_REFUSALS = {
  malformed: 'the current-customer token is not a JWT of the shape BigCommerce makes',
  wrong_algorithm: 'the current-customer token is not signed with HS256',
  bad_signature: "the current-customer token is not signed with this app's client secret (BIGCOMMERCE_CLIENT_SECRET)",
  wrong_issuer: 'the token was not issued by BigCommerce for apps (iss is not "bc/apps"): not a current-customer token',
  wrong_operation: 'the token is not a current-customer token (operation is not "current_customer")',
  wrong_audience: 'the current-customer token is for another app (aud is not BIGCOMMERCE_CLIENT_ID)',
  no_store: 'the current-customer token names no store (sub and store_hash must be the same store hash)',
  missing_time: 'the current-customer token lacks iat or exp',
  expired: 'the current-customer token has expired',
  not_yet_valid: "the current-customer token is issued in the future (is this server's clock right?)",
  too_old: 'the current-customer token was issued more than 15 minutes ago (an old token, replayed)',
  bad_lifetime: 'the current-customer token does not expire within the 15 minutes after its iat that BigCommerce gives',
  no_customer: 'the current-customer token names no customer (customer.id is not a positive integer)',
} as const;

export type CurrentCustomerRefusal = keyof typeof CURRENT_CUSTOMER_REFUSALS;

export type CurrentCustomerCheck =
  { ok: true; shop: string; customerId: string } | { ok: false; refusal: CurrentCustomerRefusal };

export interface CurrentCustomerKeys {
  clientId: string;
  /** The current client secret, then the previous one during a rotation. */
  clientSecrets: readonly string[];
  /** A test's clock (milliseconds); the system's otherwise. */
  now?: () => number;
}

/** "Current customer tokens are valid for 15 minutes." */
export const CURRENT_CUSTOMER_LIFETIME_SECONDS = 15 * 60;
/**
 * Clock difference allowed between BigCommerce's servers and this one, around exp and iat. Both run on synchronised
 * clocks, and every second of it widens the window a copied token can be replayed in: kept small.
 */
export const CURRENT_CUSTOMER_LEEWAY_SECONDS = 30;
/**
 * The example token is about 450 characters; an e-mail of 255 (the longest a customer record takes) adds ~340.
 * Anything much longer is not BigCommerce's, and is not read at all.
 */
const MAX_TOKEN_LENGTH = 2048;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** A store hash as it stands in the API's path (settings.ts). */
export const STORE_HASH = /^[a-z0-9]{1,32}$/;

const refused = (refusal: CurrentCustomerRefusal): CurrentCustomerCheck => ({ ok: false, refusal });
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** jose's verdict on the signature as one of ours; an error that is not jose's is a bug, and is thrown on. */
function refusalOf(error: unknown): CurrentCustomerRefusal {
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'wrong_algorithm';
  if (error instanceof errors.JOSEError) return 'malformed';
  throw error;
}

/** The claims of a signed token, read for this purpose only. */
function checkClaims(payload: Record<string, unknown>, clientId: string, nowS: number): CurrentCustomerCheck {
  // Purpose first: a signed_payload_jwt (iss "bc") or any other token BigCommerce signs with this secret stops here.
  if (payload.iss !== 'bc/apps') return refused('wrong_issuer');
  if (payload.operation !== 'current_customer') return refused('wrong_operation');
  if (payload.aud !== clientId) return refused('wrong_audience');
  // application_id is not compared. The documentation says nothing of it but its example, where it differs from aud
  // ("6sv16tasdgr2b5hs5dd67g2srvq" beside aud "6sv16tfx3j5gsopm42ss5dd67g2srvq"): demanding it equal the client id
  // could refuse every real customer. It adds nothing to what the signature proves: only BigCommerce and this app
  // hold the secret, and aud already names this app.
  const { sub, store_hash: storeHash } = payload;
  if (typeof sub !== 'string' || sub !== storeHash || !STORE_HASH.test(sub)) return refused('no_store');
  const { iat, exp, nbf } = payload;
  if (!isTime(iat) || !isTime(exp)) return refused('missing_time');
  const leeway = CURRENT_CUSTOMER_LEEWAY_SECONDS;
  if (exp - iat > CURRENT_CUSTOMER_LIFETIME_SECONDS || exp <= iat) return refused('bad_lifetime');
  if (iat > nowS + leeway || (isTime(nbf) && nbf > nowS + leeway)) return refused('not_yet_valid');
  // The freshness window, from iat and whatever exp says: a token is good for 15 minutes after BigCommerce made it.
  if (nowS - iat > CURRENT_CUSTOMER_LIFETIME_SECONDS + leeway) return refused('too_old');
  if (nowS > exp + leeway) return refused('expired');
  // A number in the documentation's example (4927); group_id beside it is a string, and is not read. Neither is
  // version: every claim read is checked for its shape, so a changed format is refused here anyway.
  const id = asRecord(payload.customer).id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) return refused('no_customer');
  // The token's customer.email is not used: the contact is read from the store's own customer record on the bridge's
  // side (storefront-contact.ts), never from what a browser carried.
  return { ok: true, shop: sub, customerId: String(id) };
}

/** The store and customer a current-customer token names, if BigCommerce signed it for this app and it is fresh. */
export async function checkCurrentCustomerToken(
  token: string,
  keys: CurrentCustomerKeys,
): Promise<CurrentCustomerCheck> {
  if (token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) return refused('malformed');
  // An empty secret (a previous secret left unset) would let anyone sign: never tried.
  const secrets = keys.clientSecrets.filter((secret) => secret !== '');
  let refusal: CurrentCustomerRefusal = 'bad_signature';
  for (const secret of secrets) {
    let payloadBytes: Uint8Array;
    try {
      ({ payload: payloadBytes } = await compactVerify(token, new TextEncoder().encode(secret), {
        algorithms: ['HS256'],
      }));
    } catch (error) {
      refusal = refusalOf(error);
      // Only a signature made with another secret is worth trying the previous secret on.
      if (refusal === 'bad_signature') continue;
      return refused(refusal);
    }
    let payload: unknown;
    try {
      payload = JSON.parse(new TextDecoder().decode(payloadBytes));
    } catch {
      return refused('malformed');
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return refused('malformed');
    const nowS = (keys.now ?? Date.now)() / 1000;
    return checkClaims(payload as Record<string, unknown>, keys.clientId, nowS);
  }
  return refused(refusal);
}

export interface BigCommerceCustomerAskerOptions extends CurrentCustomerKeys {
  /** Whether the bridge serves the store and holds its install (the storefront part's `served`). */
  served(shop: string): Promise<boolean>;
  /** Why a request was refused, for the operator's log: never the token. */
  onRefused?: (reason: string) => void;
}

/**
 * Who asks, from the request's headers and query alone (its body is never read): a customer with a good token of a
 * served store; a guest with no Authorization header at all and the `store` query naming a served store; anyone else
 * is refused. A guest is let in unsigned because what a guest is shown is the store's public ways to earn and its
 * rewards, the same as its page shows to anyone: nothing of any customer, and nothing that can be spent. The store
 * hash a guest names is public too (it is in the store's own asset addresses).
 */
export function bigCommerceCustomerAsker(
  options: BigCommerceCustomerAskerOptions,
): (request: Request) => Promise<StorefrontAsker> {
  const { served, onRefused } = options;
  const refuse = (reason: string): StorefrontAsker => {
    onRefused?.(reason);
    return { kind: 'refused' };
  };
  const notServed = (shop: string) => `${shop} is not a store this bridge serves`;
  return async (request) => {
    const authorization = request.headers.get('authorization') ?? undefined;
    const store = routeQuery(request).store;
    if (authorization !== undefined) {
      // Both at once is not what the widget sends: which would decide who asks is not left to guess.
      if (store !== undefined) return refuse('the request carries both a current-customer token and a store');
      const token = /^Bearer (\S+)$/.exec(authorization)?.[1];
      if (!token) return refuse('the Authorization header is not a bearer token');
      const checked = await checkCurrentCustomerToken(token, options);
      if (!checked.ok) return refuse(CURRENT_CUSTOMER_REFUSALS[checked.refusal]);
      // Signed for this app, but the store must be one the bridge serves and holds an install of.
      if (!(await served(checked.shop))) return refuse(notServed(checked.shop));
      return { kind: 'customer', shop: checked.shop, customerId: checked.customerId };
    }
    if (store === undefined) return refuse('the request carries neither a current-customer token nor a store');
    if (!STORE_HASH.test(store)) return refuse('the store named is not a store hash');
    if (!(await served(store))) return refuse(notServed(store));
    return { kind: 'guest', shop: store };
  };
}
