// A current-customer JWT as BigCommerce makes it, from its documentation ("Current Customer API", and the example
// response in "Authentication and example requests"): header {"alg":"HS256","typ":"JWT"}; payload customer {id,
// email, group_id}, iss "bc/apps", sub the store hash, iat, exp 15 minutes later, version 1, aud the app's client
// id, application_id, store_hash, operation "current_customer", in that order; HMAC-SHA256 with the app's client
// secret. Signed here with node:crypto, independently of the library that checks.
import { createHmac } from 'node:crypto';

export interface CurrentCustomerJwtOptions {
  storeHash: string;
  customerId: number;
  email: string;
  clientId: string;
  clientSecret: string;
  /** Seconds since the epoch; now by default. */
  iat?: number;
  /** Seconds since the epoch; iat + 15 minutes by default. */
  exp?: number;
  /** Claims changed or added; undefined removes one. */
  claims?: Record<string, unknown>;
  /** Header fields changed (the signature stays HMAC-SHA256 unless alg is HS512; none leaves it empty). */
  header?: Record<string, unknown>;
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export function currentCustomerJwt(options: CurrentCustomerJwtOptions): string {
  const iat = options.iat ?? Math.floor(Date.now() / 1000);
  const header = { alg: 'HS256', typ: 'JWT', ...options.header };
  const payload = {
    customer: { id: options.customerId, email: options.email, group_id: '6' },
    iss: 'bc/apps',
    sub: options.storeHash,
    iat,
    exp: options.exp ?? iat + 900,
    version: 1,
    aud: options.clientId,
    application_id: options.clientId,
    store_hash: options.storeHash,
    operation: 'current_customer',
    ...options.claims,
  };
  const signed = `${part(header)}.${part(payload)}`;
  if (header.alg === 'none') return `${signed}.`;
  const digest = header.alg === 'HS512' ? 'sha512' : 'sha256';
  return `${signed}.${createHmac(digest, options.clientSecret).update(signed).digest('base64url')}`;
}
