// The dashboard at /admin: one static page that signs in with the admin token
// (kept in the tab's sessionStorage, never in a URL) and reads the admin API.
// A merchant gets their own page instead, inside the Shopify admin or out
// of it (merchant-page.ts).
import { fileURLToPath } from 'node:url';
import express from 'express';

const ASSETS = fileURLToPath(new URL('./dashboard/', import.meta.url));

/** Shopify's App Bridge, which must be the page's first script, loaded as is (no async, defer or module). */
export const APP_BRIDGE_URL = 'https://cdn.shopify.com/shopifycloud/app-bridge.js';

const OPERATOR_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

/**
 * Inside the Shopify admin: framed only by the shop's own admin (Shopify
 * requires frame-ancestors https://<shop> https://admin.shopify.com of every
 * HTML answer), and App Bridge and Polaris from Shopify's CDN, which talk to
 * Shopify and style what they draw. Scripts from /shopifycloud/ alone: any
 * merchant can put a file elsewhere on cdn.shopify.com (/s/files/).
 */
export const embeddedCsp = (shop: string) =>
  `default-src 'self'; script-src 'self' https://cdn.shopify.com/shopifycloud/; style-src 'self' 'unsafe-inline'; img-src 'self' data: https://cdn.shopify.com; connect-src 'self' https://*.shopify.com; base-uri 'none'; frame-ancestors https://${shop} https://admin.shopify.com`;

export function dashboard(): express.Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    // The page loads only its own files; nothing inline runs.
    res.set('content-security-policy', OPERATOR_CSP);
    res.set('x-content-type-options', 'nosniff');
    res.set('referrer-policy', 'no-referrer');
    next();
  });
  router.use(express.static(ASSETS, { index: 'index.html', maxAge: 0 }));
  return router;
}
