// The one policy for every outbound HTTP client, as got hooks and a handler no call's options can turn off:
// https only (plain http only to this machine); a redirect followed only within one scheme, host and port,
// since got 14 carries a platform's access-token header, x-api-key, query-string keys and bodies to another host, and
// Basic auth to another scheme; and a user's address never reaching loopback, private or link-local
// addresses, checked at each connection (request-filtering-agent), so that DNS rebinding is refused too.
import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import got, {
  type BeforeRequestHook,
  type ExtendOptions,
  type Got,
  type HandlerFunction,
  type Options,
  type PlainResponse,
  type Response,
} from 'got';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { isNonPublicLiteral, isSecureTransport } from './addresses.ts';
import { OutboundRefused, shownUrl } from './refusal.ts';

export interface OutboundPolicy {
  /** The address came from a user: each connection must reach a public address. */
  userAddress: boolean;
  /** ALLOW_PRIVATE_STORE_ADDRESSES: a user's address may be on this machine or its network (development). */
  allowPrivate?: boolean | undefined;
  /** The resolver connections use (Node's net `lookup`); tests inject one to play DNS rebinding. */
  lookup?: LookupFunction | undefined;
}

const REDIRECT_STATUSES = new Set([300, 301, 302, 303, 307, 308]);

/** Where a response redirects to, resolved against the request's address; undefined when it does not. */
function redirectTarget(response: Pick<PlainResponse, 'statusCode' | 'headers' | 'url'>): URL | undefined {
  const location = response.headers.location;
  if (!REDIRECT_STATUSES.has(response.statusCode) || !location) return undefined;
  try {
    // got reads Location as latin1 bytes of UTF-8, the same here.
    return new URL(Buffer.from(location, 'binary').toString(), response.url);
  } catch {
    return undefined;
  }
}

const sameOrigin = (a: URL, b: URL) => a.protocol === b.protocol && a.hostname === b.hostname && a.port === b.port;

/** got calls this for every redirect; it must not throw, so it only decides. */
const followOnlyWithinOrigin = (response: PlainResponse): boolean => {
  const target = redirectTarget(response);
  return target !== undefined && sameOrigin(target, new URL(response.url));
};

/** A redirect got did not follow: refused, in words that say where it pointed. */
function refusedRedirect(response: Pick<PlainResponse, 'statusCode' | 'headers' | 'url'>): OutboundRefused | undefined {
  const target = redirectTarget(response);
  if (!target) return undefined;
  return new OutboundRefused({
    kind: 'redirect',
    status: response.statusCode,
    from: shownUrl(response.url),
    to: shownUrl(target),
  });
}

/** Before every request, the first and each redirect's. */
const refuseInsecure: BeforeRequestHook = (options) => {
  const url = options.url;
  if (url instanceof URL && !isSecureTransport(url))
    throw new OutboundRefused({ kind: 'insecure', url: shownUrl(url) });
};

/**
 * A user's address written as a non-public IP (127.0.0.1): refused before any socket, in words. The agents refuse
 * it too, but on a socket Node then reports only as closed (ERR_SOCKET_CLOSED), which reads as a service down.
 */
const refusePrivateLiteral =
  (policy: OutboundPolicy): BeforeRequestHook =>
  (options) => {
    const url = options.url;
    if (!isPublicOnly(policy) || !(url instanceof URL)) return;
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isNonPublicLiteral(host) === true) throw new OutboundRefused({ kind: 'private_address', host, address: host });
  };

const refuseRedirect = (response: Response): Response => {
  const refused = refusedRedirect(response);
  if (refused) throw refused;
  return response;
};

/** afterResponse hooks run for promises only: a stream (a download) ends in the same refusal. */
function refuseStreamedRedirects(options: Options, result: ReturnType<HandlerFunction>): void {
  if (options.isStream) {
    // With isStream, got hands back its Request, a Duplex.
    const stream = result as unknown as Duplex;
    stream.on('response', (response: PlainResponse) => {
      const refused = refusedRedirect(response);
      if (refused) stream.destroy(refused);
    });
  }
}

/** One pair for the whole process, so connections to the same store are kept alive and reused. */
let filteringAgents: { http: HttpAgent; https: HttpsAgent } | undefined;
/** The agents' options: their own list of non-public ranges, and IPv4-compatible IPv6, which it lets through (::a00:1 is 10.0.0.1). */
export const PUBLIC_ONLY_AGENT_OPTIONS = { keepAlive: true, denyIPAddressList: ['::/96'] };
const publicOnlyAgents = () =>
  (filteringAgents ??= {
    http: new RequestFilteringHttpAgent(PUBLIC_ONLY_AGENT_OPTIONS),
    https: new RequestFilteringHttpsAgent(PUBLIC_ONLY_AGENT_OPTIONS),
  });

const isPublicOnly = (policy: OutboundPolicy) => policy.userAddress && !policy.allowPrivate;

/**
 * The policy, set again on each call's own options just before its request.
 * got merges a call's options over the instance's, so a call's
 * `followRedirect: true` or `agent` would otherwise win over the policy; a
 * handler gets each call's final options, and the policy's handler is the
 * instance's last. Hooks need no such care: a call's are added after the
 * instance's, never in their place. With the public-only agents, the other
 * ways to a socket that would pass them by are closed too.
 */
const imposePolicy =
  (policy: OutboundPolicy): HandlerFunction =>
  (options, next) => {
    // got passes no options when the call's own did not make sense: then it only reports that.
    if (!(options as Options | undefined)) return next(options);
    options.followRedirect = followOnlyWithinOrigin;
    if (isPublicOnly(policy)) {
      options.agent = publicOnlyAgents();
      options.http2 = false;
      options.request = undefined;
      options.createConnection = undefined;
    }
    if (policy.lookup) options.dnsLookup = policy.lookup as Options['dnsLookup'];
    const result = next(options);
    refuseStreamedRedirects(options, result);
    return result;
  };

/** got options that apply the policy: its hooks, and its handler, which no client's defaults and no call's options can turn off. */
export function outboundOptions(policy: OutboundPolicy): ExtendOptions {
  return {
    hooks: { beforeRequest: [refuseInsecure, refusePrivateLiteral(policy)], afterResponse: [refuseRedirect] },
    handlers: [imposePolicy(policy)],
  };
}

/** A got instance for one client: its own defaults, then the policy (its handler last). */
export const outboundGot = (policy: OutboundPolicy, defaults: ExtendOptions = {}): Got =>
  got.extend(defaults, outboundOptions(policy));
