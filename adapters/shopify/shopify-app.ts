// The app as @shopify/shopify-api knows it (client id and secret, public address, scopes), for what the
// library is for: OAuth, the client credentials grant, refreshes, token exchange, and checking what Shopify
// signs for the app. Its fetch is bound late, so that instrumentation and tests see its requests, and follows
// no redirect (the outbound policy): fetch follows any, a 307 repeating the body with the client secret in it.
// OAuth reads a Fetch Request and answers a Response (the web-api adapter): the module's routes hold no Node objects.
import '@shopify/shopify-api/adapters/web-api';
import { LogSeverity, shopifyApi, type Shopify } from '@shopify/shopify-api';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { outboundFetch } from '../../src/net/outbound-fetch.ts';

setAbstractFetchFunc((...args: Parameters<typeof fetch>) => outboundFetch(...args));

export interface ShopifyAppOptions {
  apiKey: string;
  apiSecretKey: string;
  /** The bridge's public address, https://...; OAuth sends the merchant back there. */
  appUrl?: string | undefined;
  scopes: string[];
  apiVersion: string;
  /** The app runs inside the Shopify admin (SHOPIFY_EMBEDDED). */
  embedded?: boolean;
}

export function shopifyApp(options: ShopifyAppOptions): Shopify {
  const url = new URL(options.appUrl ?? 'https://localhost');
  return shopifyApi({
    apiKey: options.apiKey,
    apiSecretKey: options.apiSecretKey,
    scopes: options.scopes,
    hostName: url.host,
    hostScheme: url.protocol === 'http:' ? 'http' : 'https',
    // Any version string works for the grants; the library's list may lag Shopify's newest.
    apiVersion: options.apiVersion as never,
    isEmbeddedApp: options.embedded ?? false,
    // The library's own log lines name shops and flows, never tokens; ours say more, once.
    logger: { level: LogSeverity.Error, log: async () => undefined },
  });
}
