// An address a user gives (a store to connect, an account's base URL), looked at when it is given, so that
// the answer comes before the merchant approves in WordPress for nothing. It is not the guard: what a name
// resolves to now says nothing of the next connection, which is checked on the address it uses
// (outbound.ts). A name that does not resolve now is let through for the same reason.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isLocalName, isNonPublicLiteral, isSecureTransport } from './addresses.ts';
import { shownUrl, type Refusal } from './refusal.ts';

export interface UserAddressPolicy {
  /** ALLOW_PRIVATE_STORE_ADDRESSES (development). */
  allowPrivate: boolean;
  /** The resolver; tests inject one. */
  lookup?: LookupFunction | undefined;
}

/** Long enough for a resolver that answers; a silent one must not hold the dashboard's request. */
const LOOKUP_TIMEOUT_MS = 3_000;

function resolveAll(host: string, lookup: LookupFunction): Promise<string[]> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve([]), LOOKUP_TIMEOUT_MS);
    timer.unref();
    const done = (addresses: string[]) => {
      clearTimeout(timer);
      resolve(addresses);
    };
    const callback = (error: NodeJS.ErrnoException | null, found: string | LookupAddress[]) =>
      done(error ? [] : Array.isArray(found) ? found.map((each) => each.address) : [found]);
    lookup(host, { all: true }, callback as Parameters<LookupFunction>[2]);
  });
}

/** Why this address may not be used, or undefined when it may (so far as can be told now). */
export async function userAddressRefusal(url: URL, policy: UserAddressPolicy): Promise<Refusal | undefined> {
  if (!isSecureTransport(url)) return { kind: 'insecure', url: shownUrl(url) };
  if (policy.allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isNonPublicLiteral(host);
  if (literal !== undefined) return literal ? { kind: 'private_address', host, address: host } : undefined;
  if (isLocalName(host)) return { kind: 'private_address', host, address: 'this machine' };
  const addresses = await resolveAll(host, policy.lookup ?? (dnsLookup as LookupFunction));
  const inside = addresses.find((address) => isNonPublicLiteral(address) !== false);
  return inside === undefined ? undefined : { kind: 'private_address', host, address: inside };
}
