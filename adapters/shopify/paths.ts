// Where Shopify's flows answer on the bridge (mounted under /shopify), and what the Shopify admin loads into a
// page it frames: App Bridge (first, loaded as is) and Polaris, from Shopify's CDN. shopify.app.toml names the
// App URL and the callback (test/unit/shopify-app-toml.test.ts).
import type { PlatformHead } from '../../src/core/platform-module.ts';

/** The App URL: shopify.app.toml's application_url, the Dev Dashboard's App URL. */
export const SHOPIFY_APP_URL_PATH = '/shopify/app';
export const SHOPIFY_CALLBACK_PATH = '/shopify/auth/callback';
/** Where the bridge mounts the storefront part (/<name>/storefront): shopify.app.toml's [app_proxy] url. */
export const SHOPIFY_STOREFRONT_PATH = '/shopify/storefront';
/** The bounce page (bounce.ts). */
export const SHOPIFY_BOUNCE_PATH = '/shopify/session-token';
/** Where a merchant signs in again outside the admin: opening the app from the admin (Apps, loyalty-bridge). */
export const SHOPIFY_ADMIN = 'https://admin.shopify.com/';

export const APP_BRIDGE_URL = 'https://cdn.shopify.com/shopifycloud/app-bridge.js';
/** Polaris web components, the newest stable release of version 1 (Shopify's App Home documentation). */
export const POLARIS_URL = 'https://cdn.shopify.com/shopifycloud/polaris-1.js';

/** Shopify's signal, on a 401 for a session token: App Bridge (and the page) tries once more with a fresh one. */
export const RETRY_INVALID_SESSION_HEADER = 'x-shopify-retry-invalid-session-request';

/** Shopify requires frame-ancestors https://<shop> https://admin.shopify.com of every HTML answer inside the admin. */
export const shopAdminFrame = (shop: string) => `https://${shop} https://admin.shopify.com`;

/**
 * Inside the Shopify admin: App Bridge (told the client id) and, on the merchant page, Polaris. Scripts from
 * /shopifycloud/ alone: any merchant can put a file elsewhere on cdn.shopify.com (/s/files/).
 */
export const shopifyHead = (shop: string, apiKey: string, scripts: readonly string[]): PlatformHead => ({
  page: {
    global: 'shopify',
    appPath: SHOPIFY_APP_URL_PATH,
    // App Bridge's nav says so of a link clicked.
    navigateEvent: 'shopify:navigate',
    retryHeader: RETRY_INVALID_SESSION_HEADER,
  },
  scripts,
  meta: { 'shopify-api-key': apiKey },
  sources: {
    script: ['https://cdn.shopify.com/shopifycloud/'],
    image: ['https://cdn.shopify.com'],
    connect: ['https://*.shopify.com'],
  },
  frameAncestors: shopAdminFrame(shop),
});
