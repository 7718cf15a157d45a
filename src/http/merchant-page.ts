// The merchant's pages (issue 34): one page, src/http/merchant/, that a
// merchant opens from their store's admin to set up, watch and act on their
// loyalty integration. Inside the Shopify admin the App URL answers it,
// with App Bridge (which must be the first script, loaded as is) and Polaris
// web components, both from Shopify's CDN, and the shopify-api-key meta tag
// that tells App Bridge which app it is. Its script and style are files of
// its own at /merchant/: nothing inline runs. The page calls the admin
// API's shop routes with App Bridge's session tokens.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Response } from 'express';
import { APP_BRIDGE_URL, embeddedCsp } from './dashboard.ts';
import { escapeHtml } from './plain-page.ts';

const ASSETS = fileURLToPath(new URL('./merchant/', import.meta.url));

/** Polaris web components, the newest stable release of version 1 (Shopify's App Home documentation). */
export const POLARIS_URL = 'https://cdn.shopify.com/shopifycloud/polaris-1.js';

/** The page's views, each with an address under the App URL (a reload of the admin opens the same one). */
export const MERCHANT_VIEWS = ['setup', 'orders', 'privacy'] as const;

/** The page's own script and style, for any page that loads them (they hold nothing of a shop); the page itself only through the App URL. */
export function merchantAssets(): express.Router {
  const router = express.Router();
  for (const file of ['merchant.js', 'merchant.css'])
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
