// The dashboard at /admin: one static page that signs in with the admin token
// (kept in the tab's sessionStorage, never in a URL) and reads the admin API.
// The same page, served by the Shopify App URL inside the Shopify admin: it
// loads App Bridge from Shopify's CDN (the shopify-api-key meta tag tells it
// which app it is) and calls the admin API with the session tokens App Bridge
// hands out, so it shows that shop alone. (Outside the admin, the App URL
// sends the merchant here with a shop token in the fragment.)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Response } from 'express';
import { escapeHtml } from './plain-page.ts';

const ASSETS = fileURLToPath(new URL('./dashboard/', import.meta.url));

/** Shopify's App Bridge, which must be the page's first script, loaded as is (no async, defer or module). */
export const APP_BRIDGE_URL = 'https://cdn.shopify.com/shopifycloud/app-bridge.js';

const OPERATOR_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

/**
 * Inside the Shopify admin: framed only by the shop's own admin (Shopify
 * requires frame-ancestors https://<shop> https://admin.shopify.com of every
 * HTML answer), and App Bridge from Shopify's CDN, which talks to
 * Shopify and styles what it draws.
 */
export const embeddedCsp = (shop: string) =>
  `default-src 'self'; script-src 'self' https://cdn.shopify.com; style-src 'self' 'unsafe-inline'; img-src 'self' data: https://cdn.shopify.com; connect-src 'self' https://*.shopify.com; frame-ancestors https://${shop} https://admin.shopify.com`;

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

let template: string | undefined;

/** A page inside a shop's admin never carries the operator's sign-in form: the merchant is signed in by Shopify. */
const withoutOperatorSignIn = (page: string) =>
  page.replace(/<!-- operator sign-in -->[\s\S]*?<!-- \/operator sign-in -->/, '');

/** The dashboard page for one shop inside the Shopify admin, as the App URL answers it. */
export function sendEmbeddedPage(res: Response, { shop, apiKey }: { shop: string; apiKey: string }): void {
  template ??= readFileSync(`${ASSETS}index.html`, 'utf8');
  // The page is served from the App URL, its files from /admin/.
  const head = [
    '<base href="/admin/">',
    `<meta name="shopify-api-key" content="${escapeHtml(apiKey)}">`,
    `<script src="${APP_BRIDGE_URL}"></script>`,
  ].join('\n  ');
  res
    .status(200)
    .type('html')
    .set({
      'content-security-policy': embeddedCsp(shop),
      'x-content-type-options': 'nosniff',
      // The address carries Shopify's signed query.
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    })
    .send(withoutOperatorSignIn(template).replace('<head>', `<head>\n  ${head}`));
}
