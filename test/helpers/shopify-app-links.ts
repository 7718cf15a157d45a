// What Shopify itself makes when a merchant opens the app, built here as
// Shopify documents it, with the client secret:
//   a session token   App Bridge's ID token: an HS256 JWT whose payload has
//                     iss https://<shop>/admin, dest https://<shop>, aud the
//                     client id, sub the staff member, exp (a minute on),
//                     nbf, iat, jti and sid
//   an App URL        the app's address with shop, host (base64 of the
//                     admin's address), timestamp, and inside the admin
//                     embedded=1, id_token, locale and session; hmac is the
//                     hex HMAC-SHA256 of the other parameters, sorted, as a
//                     query string
import { createHmac, randomUUID } from 'node:crypto';

export interface SessionTokenOptions {
  shop: string;
  apiKey: string;
  secret: string;
  /** Seconds from now; Shopify's tokens live a minute. */
  expiresInS?: number;
  /** Seconds from now at which the token becomes valid. */
  notBeforeS?: number;
  /** Claims to replace (aud, dest, iss...). */
  claims?: Record<string, unknown>;
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

export function mintSessionToken({
  shop,
  apiKey,
  secret,
  expiresInS = 60,
  notBeforeS = 0,
  claims = {},
}: SessionTokenOptions): string {
  const now = Math.floor(Date.now() / 1000);
  const payload = {
    iss: `https://${shop}/admin`,
    dest: `https://${shop}`,
    aud: apiKey,
    sub: '42',
    exp: now + expiresInS,
    nbf: now + notBeforeS,
    iat: now,
    jti: randomUUID(),
    sid: randomUUID(),
    ...claims,
  };
  const unsigned = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(payload))}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

export interface AppUrlOptions {
  shop: string;
  secret: string;
  /** Inside the admin: embedded=1 and this id_token. */
  idToken?: string;
  /** Inside the admin without a session token: embedded=1 alone. */
  embedded?: boolean;
  /** Seconds since the epoch; unless given, now, or a second after the last link made (linkSecond). */
  timestamp?: number;
  /** Parameters to change after signing (a tampered link). */
  tamper?: Record<string, string>;
  /** No hmac at all. */
  unsigned?: boolean;
}

let lastLinkSecond = 0;
/**
 * Now in seconds, one later than the last link's when that was now too: two
 * links made in one second for one shop would be the same link, and the
 * bridge opens a link outside the admin once (adapters/shopify/link-once.ts), so a
 * test's second link would be refused whenever it came in its first's second.
 */
const linkSecond = () => (lastLinkSecond = Math.max(Math.floor(Date.now() / 1000), lastLinkSecond + 1));

/** The App URL's query string, as Shopify sends the merchant to it. */
export function appUrlQuery({
  shop,
  secret,
  idToken,
  embedded = false,
  timestamp = linkSecond(),
  tamper = {},
  unsigned = false,
}: AppUrlOptions): string {
  const params: Record<string, string> = {
    host: Buffer.from(`admin.shopify.com/store/${shop.split('.')[0]}`).toString('base64'),
    shop,
    timestamp: String(timestamp),
    ...(idToken || embedded ? { embedded: '1', locale: 'en', session: randomUUID().replace(/-/g, '') } : {}),
    ...(idToken ? { id_token: idToken } : {}),
  };
  const message = new URLSearchParams(
    Object.keys(params)
      .sort()
      .map((key): [string, string] => [key, params[key]!]),
  ).toString();
  const hmac = createHmac('sha256', secret).update(message).digest('hex');
  const signed = new URLSearchParams({ ...params, ...(unsigned ? {} : { hmac }), ...tamper });
  return signed.toString();
}

/**
 * A customer account UI extension's session token, as Shopify documents its claims (customer account UI
 * extensions, "Session Token API"): dest the shop's domain (no scheme), aud the client id, sub the signed-in
 * customer's GID (absent for none), exp five minutes on, nbf, iat, jti; no iss. Signed as App Bridge's are.
 */
export function mintCustomerAccountToken(
  options: Omit<SessionTokenOptions, 'claims'> & { customerId?: string; claims?: Record<string, unknown> },
): string {
  const { customerId, claims = {}, ...rest } = options;
  return mintSessionToken({
    expiresInS: 300,
    ...rest,
    claims: {
      iss: undefined,
      sid: undefined,
      dest: options.shop,
      sub: customerId === undefined ? undefined : `gid://shopify/Customer/${customerId}`,
      ...claims,
    },
  });
}
