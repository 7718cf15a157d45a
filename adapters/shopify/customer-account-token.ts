// A customer account UI extension's session token (shopify.sessionToken.get() in the extension, sent as
// `Authorization: Bearer`): an HS256 JWT Shopify signs with the app's client secret, verified as App Bridge's are
// (session-token.ts: algorithm, signature, aud = the client id, exp and nbf with 10 seconds of leeway), then read
// for its own purpose only. Its claims (shopify.dev, customer account UI extensions, "Session Token API"): dest the
// shop's domain, sub the signed-in customer's GID (absent for no customer, or an app without customer access),
// jti, iat, sid. An admin's App Bridge token has the same signature but names a staff member in sub (a number)
// and its admin in iss: it opens nothing here, as a customer's token opens nothing in the admin.
import type { Shopify } from '@shopify/shopify-api';
import { SESSION_TOKEN_REFUSALS, verifySessionToken, type SessionTokenRefusal } from './session-token.ts';

export const CUSTOMER_TOKEN_REFUSALS = {
  ...SESSION_TOKEN_REFUSALS,
  no_bearer: 'the request carries no session token of the shape Shopify makes (Authorization: Bearer)',
  no_shop: 'the session token does not name a shop domain (dest)',
  admin_token: "the session token is an admin's (iss names the admin), not a customer account extension's",
  not_a_customer: 'the session token names no customer (sub is not a Customer GID): not a customer account token',
} as const;

export type CustomerTokenRefusal = keyof typeof CUSTOMER_TOKEN_REFUSALS;

export type CustomerTokenCheck =
  { ok: true; shop: string; customerId: string | undefined } | { ok: false; refusal: CustomerTokenRefusal };

/** A compact JWS, and no longer than any token Shopify makes: anything else is not read at all. */
const COMPACT_JWT = /^[A-Za-z0-9_-]{1,2000}\.[A-Za-z0-9_-]{1,2000}\.[A-Za-z0-9_-]{0,1000}$/;
/** dest as the documentation's example has it ("store-name.myshopify.com"), or as an origin, as App Bridge's. */
const DEST = /^(?:https:\/\/)?([a-z0-9][a-z0-9-]*\.myshopify\.com)$/;
const CUSTOMER_GID = /^gid:\/\/shopify\/Customer\/(\d{1,20})$/;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The bearer of `Authorization`, when it has the shape of a token; undefined otherwise. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const token = /^Bearer ([^\s]+)$/.exec(authorization ?? '')?.[1];
  return token && COMPACT_JWT.test(token) ? token : undefined;
}

/** Whose shop and customer the token names, if it is a good customer account token of this app; the current secret first. */
export async function checkCustomerAccountToken(
  apps: readonly Shopify[],
  token: string,
  now?: () => number,
): Promise<CustomerTokenCheck> {
  let refusal: SessionTokenRefusal = 'malformed';
  for (const app of apps) {
    const verified = await verifySessionToken(token, {
      clientId: app.config.apiKey,
      clientSecret: app.config.apiSecretKey,
      ...(now ? { now } : {}),
    });
    if (!verified.ok) {
      refusal = verified.refusal;
      // Only a signature made with another secret is worth trying the previous secret on.
      if (refusal === 'bad_signature') continue;
      return { ok: false, refusal };
    }
    const { payload } = verified;
    const shop = DEST.exec(text(payload.dest) ?? '')?.[1];
    if (!shop) return { ok: false, refusal: 'no_shop' };
    // One purpose per token: the admin's names itself as issuer (https://<shop>/admin).
    if (text(payload.iss)?.endsWith('/admin')) return { ok: false, refusal: 'admin_token' };
    if (payload.sub === undefined) return { ok: true, shop, customerId: undefined };
    const customerId = CUSTOMER_GID.exec(text(payload.sub) ?? '')?.[1];
    if (!customerId) return { ok: false, refusal: 'not_a_customer' };
    return { ok: true, shop, customerId };
  }
  return { ok: false, refusal };
}
