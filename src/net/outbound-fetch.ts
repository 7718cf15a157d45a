// The outbound policy for code that calls fetch, not got: a platform's library's OAuth, token exchange,
// refresh and client credentials requests. fetch follows redirects anywhere, a 307 or 308 repeating the POST
// body (client_secret, the code, the refresh token); those requests go to one fixed endpoint of the platform's
// that never redirects, so no redirect is followed at all. fetch is looked up when called, so instrumentation and
// tests that replace globalThis.fetch still see the requests.
import { isSecureTransport } from './addresses.ts';
import { OutboundRefused, shownUrl } from './refusal.ts';

const REDIRECT_STATUSES = new Set([300, 301, 302, 303, 307, 308]);

export async function outboundFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : input.toString());
  if (!isSecureTransport(url)) throw new OutboundRefused({ kind: 'insecure', url: shownUrl(url) });
  const response = await globalThis.fetch(input, { ...init, redirect: 'manual' });
  const location = response.headers.get('location');
  if (REDIRECT_STATUSES.has(response.status) && location) {
    await response.body?.cancel();
    throw new OutboundRefused({
      kind: 'redirect',
      status: response.status,
      from: shownUrl(url),
      to: shownUrl(location, url),
    });
  }
  return response;
}
