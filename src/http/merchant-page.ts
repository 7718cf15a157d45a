// The merchant's page (src/http/merchant/), which a merchant opens from their store's admin. Inside the
// Shopify admin it comes with App Bridge (the first script, loaded as is) and Polaris, from Shopify's CDN;
// elsewhere with the bridge's stand-ins (merchant/elements.js) and the store-page session in the page itself.
// That session comes only in the answer to the sign-in that proved who the merchant is, never in an address,
// which anyone could hand to another browser (a login CSRF). Nothing inline runs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Response } from 'express';
import { APP_BRIDGE_URL, embeddedCsp } from './dashboard.ts';
import { escapeHtml } from './plain-page.ts';

const ASSETS = fileURLToPath(new URL('./merchant/', import.meta.url));

/** Polaris web components, the newest stable release of version 1 (Shopify's App Home documentation). */
export const POLARIS_URL = 'https://cdn.shopify.com/shopifycloud/polaris-1.js';

/** The merchant's page of a Shopify shop outside the admin (SHOPIFY_EMBEDDED=false): its address once signed in. */
export const SHOPIFY_STORE_PAGE_PATH = '/shopify/store';
/** Where a Shopify merchant signs in again outside the admin: opening the app from the admin (Apps, loyalty-bridge). */
const SHOPIFY_ADMIN = 'https://admin.shopify.com/';

/** The page's views, each with an address under the App URL (a reload of the admin opens the same one). */
export const MERCHANT_VIEWS = ['setup', 'orders', 'privacy'] as const;

/** The page's own script and style, for any page that loads them (they hold nothing of a shop); the page itself only through the App URL. */
export function merchantAssets(): express.Router {
  const router = express.Router();
  for (const file of ['merchant.js', 'merchant.css', 'elements.js'])
    router.get(`/${file}`, (_req, res) => {
      res.set('x-content-type-options', 'nosniff');
      res.sendFile(`${ASSETS}${file}`, { maxAge: 0 });
    });
  return router;
}

let template: string | undefined;

/** The merchant's page for one shop inside the Shopify admin, as the App URL answers it. */
export function sendMerchantPage(res: Response, { shop, apiKey }: { shop: string; apiKey: string }): void {
  template ??= readFileSync(`${ASSETS}index.html`, 'utf8');
  const head = [
    `<meta name="shopify-api-key" content="${escapeHtml(apiKey)}">`,
    `<script src="${APP_BRIDGE_URL}"></script>`,
    `<script src="${POLARIS_URL}"></script>`,
  ].join('\n    ');
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
    .send(template.replace('<head>', `<head>\n    ${head}`));
}

export interface StandalonePage {
  /** The session the sign-in made for this browser; none: the tab's own, if it has one (a reload). */
  session?: string | undefined;
  frameAncestors: string;
  /** Where the merchant signs in: a new session once this one has ended, or one of their own when the page has none. */
  signInAgain?: string;
  /** What a page without a session tells the merchant to do, in their words: "open loyalty-bridge from your Shopify admin". */
  whereToSignIn: string;
  /** The page's own address, put in the address bar in place of the sign-in's (which a reload must not send again). */
  pagePath?: string;
}

/**
 * The page outside the Shopify admin: the bridge's stand-ins, the session it
 * made for the page, who may frame it, and where the merchant signs in.
 */
export function sendStandaloneMerchantPage(
  res: Response,
  { session, frameAncestors, signInAgain, whereToSignIn, pagePath }: StandalonePage,
): void {
  template ??= readFileSync(`${ASSETS}index.html`, 'utf8');
  const head = [
    ...(session ? [`<meta name="loyalty-bridge-session" content="${escapeHtml(session)}">`] : []),
    ...(signInAgain ? [`<meta name="loyalty-bridge-sign-in" content="${escapeHtml(signInAgain)}">`] : []),
    `<meta name="loyalty-bridge-where-to-sign-in" content="${escapeHtml(whereToSignIn)}">`,
    ...(pagePath ? [`<meta name="loyalty-bridge-page" content="${escapeHtml(pagePath)}">`] : []),
    '<script src="/merchant/elements.js"></script>',
  ].join('\n    ');
  res
    .status(200)
    .type('html')
    .set({
      'content-security-policy': [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "connect-src 'self'",
        "img-src 'self'",
        `frame-ancestors ${frameAncestors}`,
        "base-uri 'none'",
        "form-action 'none'",
      ].join('; '),
      'x-content-type-options': 'nosniff',
      // The page holds a session: nothing keeps it, and no address it links to learns where it came from.
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    })
    // After the charset, which a browser must meet first; the stand-ins before merchant.js.
    .send(template.replace('<meta charset="utf-8" />', `<meta charset="utf-8" />\n    ${head}`));
}

/**
 * A Shopify shop's page outside the admin: with the session of a sign-in
 * (the answer to Shopify's signed link, or to an install), or with the tab's
 * own (a reload of /shopify/store), framed by nobody.
 */
export function sendShopifyStorePage(res: Response, session?: string): void {
  sendStandaloneMerchantPage(res, {
    session,
    frameAncestors: "'none'",
    signInAgain: SHOPIFY_ADMIN,
    whereToSignIn: 'open loyalty-bridge from your Shopify admin, under Apps',
    pagePath: SHOPIFY_STORE_PAGE_PATH,
  });
}
