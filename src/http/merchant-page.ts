// The merchant's page (src/http/merchant/), which a merchant opens from their store's admin. Inside a
// platform's admin it comes with the platform's own head (its scripts first, loaded as is, and its meta: the
// module says which); elsewhere with the bridge's stand-ins (merchant/elements.js) and the store-page session
// in the page itself. That session comes only in the answer to the sign-in that proved who the merchant is,
// never in an address, which anyone could hand to another browser (a login CSRF). Nothing inline runs.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Response } from 'express';
import type { PlatformHead } from '../core/platform-module.ts';
import { escapeHtml } from './plain-page.ts';

const ASSETS = fileURLToPath(new URL('./merchant/', import.meta.url));

/** The page's own script and style, for any page that loads them (they hold nothing of a shop); the page itself only through the App URL. */
export function merchantAssets(): express.Router {
  const router = express.Router();
  // Every script of the page (merchant.js imports the rest as modules) and its style; the template is not one.
  const files = readdirSync(ASSETS).filter((file) => /\.(?:js|css)$/.test(file));
  for (const file of files)
    router.get(`/${file}`, (_req, res) => {
      res.set('x-content-type-options', 'nosniff');
      res.sendFile(`${ASSETS}${file}`, { maxAge: 0 });
    });
  return router;
}

let template: string | undefined;
const STYLESHEET = '<link rel="stylesheet" href="/merchant/merchant.css" />';

/** Inside a platform's admin: framed by the shop's admin only, its scripts and what they reach allowed, and nothing else. */
const embeddedCsp = ({ sources, frameAncestors }: PlatformHead) =>
  [
    "default-src 'self'",
    ['script-src', "'self'", ...sources.script].join(' '),
    "style-src 'self' 'unsafe-inline'",
    ['img-src', "'self'", 'data:', ...sources.image].join(' '),
    ['connect-src', "'self'", ...sources.connect].join(' '),
    "base-uri 'none'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');

/**
 * A page inside a platform's admin: the merchant's page with the platform's head, or (`merchantPage` false) the
 * head alone, whose scripts fetch the platform's fresh session token and load the page again.
 */
export function sendEmbeddedPage(res: Response, head: PlatformHead, merchantPage: boolean): void {
  const { page } = head;
  // What merchant.js takes of the platform's own, which it names nowhere itself.
  const own: Record<string, string> = page
    ? {
        'loyalty-bridge-host': page.global,
        'loyalty-bridge-app-path': page.appPath,
        'loyalty-bridge-navigate-event': page.navigateEvent,
        ...(page.retryHeader ? { 'loyalty-bridge-retry-header': page.retryHeader } : {}),
      }
    : {};
  const lines = [
    ...Object.entries({ ...head.meta, ...(merchantPage ? own : {}) }).map(
      ([name, content]) => `<meta name="${escapeHtml(name)}" content="${escapeHtml(content)}">`,
    ),
    ...head.scripts.map((src) => `<script src="${escapeHtml(src)}"></script>`),
  ];
  template ??= readFileSync(`${ASSETS}index.html`, 'utf8');
  res
    .status(200)
    .type('html')
    .set({
      'content-security-policy': embeddedCsp(head),
      'x-content-type-options': 'nosniff',
      // The address carries the platform's signed query.
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    })
    .send(
      merchantPage
        ? template.replace('<head>', `<head>\n    ${lines.join('\n    ')}`)
        : `<!doctype html><meta charset="utf-8">${lines.join('')}`,
    );
}

export interface StandalonePage {
  /** The session the sign-in made for this browser; none: the tab's own, if it has one (a reload). */
  session?: string | undefined;
  frameAncestors: string;
  /** Where the merchant signs in: a new session once this one has ended, or one of their own when the page has none. */
  signInAgain?: string;
  /** What a page without a session tells the merchant to do, in their words: "open loyalty-bridge from your … admin, under Apps". */
  whereToSignIn: string;
  /** The page's own address, put in the address bar in place of the sign-in's (which a reload must not send again). */
  pagePath?: string;
  /** The platform's look: a stylesheet's path on the bridge, linked after the page's own (PlatformModule.look). */
  look?: string;
}

/**
 * The page outside a platform's admin: the bridge's stand-ins, the session it
 * made for the page, who may frame it, and where the merchant signs in.
 */
export function sendStandaloneMerchantPage(
  res: Response,
  { session, frameAncestors, signInAgain, whereToSignIn, pagePath, look }: StandalonePage,
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
    .send(
      template
        .replace('<meta charset="utf-8" />', `<meta charset="utf-8" />\n    ${head}`)
        // The platform's look after the page's own stylesheet, whose neutral rules it overrides.
        .replace(
          STYLESHEET,
          look ? `${STYLESHEET}\n    <link rel="stylesheet" href="${escapeHtml(look)}" />` : STYLESHEET,
        ),
    );
}
