// The bounce page, as Shopify's own libraries answer a document request inside the admin whose session token
// is missing, expired or invalid: a page that loads only App Bridge, which asks the admin for a fresh token
// and loads the address again with it. So a merchant who reloads the app after its link went stale sees the
// app, never an error page. It never loops: the address carries `bounced=<unix seconds>`, and a request back
// from a bounce within BOUNCE_WINDOW_S still without a good token gets a page that says what to do.
import type { Request, RequestHandler, Response } from 'express';
import { APP_BRIDGE_URL, embeddedCsp } from './dashboard.ts';
import { MERCHANT_VIEWS } from './merchant-page.ts';
import { escapeHtml } from './plain-page.ts';
import { trimTrailing } from '../trim-trailing.ts';

export const SHOPIFY_BOUNCE_PATH = '/shopify/session-token';
/** Marks a reload that comes back from the bounce page, with when it left (unix seconds). */
export const BOUNCED_PARAM = 'bounced';
/** A return from the bounce page takes a few seconds at most (App Bridge asks the admin for a token and reloads). */
export const BOUNCE_WINDOW_S = 30;

export interface BounceParts {
  apiKey: string;
  /** The bridge's public address: where App Bridge is sent back to. */
  appUrl: string;
  /** The App URL's path, the only place the bounce sends App Bridge back to. */
  appPath: string;
  /** A shop domain, or undefined when the text is not one (the library's sanitizeShop). */
  sanitizeShop: (shop: string) => string | undefined;
}

/** Where the bounce may send App Bridge back to: the App URL, and the merchant page's views under it. */
const returnPaths = (appPath: string): ReadonlySet<string> =>
  new Set([appPath, ...MERCHANT_VIEWS.map((view) => `${appPath}/${view}`)]);

/** Whether this request is the return of a bounce made moments ago (a little clock skew between bridges allowed). */
export function cameBackFromBounce(req: Request, nowS = Math.floor(Date.now() / 1000)): boolean {
  const value = req.query[BOUNCED_PARAM];
  if (typeof value !== 'string' || !/^\d{1,12}$/.test(value)) return false;
  const age = nowS - Number(value);
  return age >= -5 && age <= BOUNCE_WINDOW_S;
}

/** Sends a document request to the bounce page, to come back to the same address with a fresh session token. */
export function redirectToBounce(req: Request, res: Response, parts: Pick<BounceParts, 'appUrl' | 'appPath'>): void {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(req.query))
    if (typeof value === 'string' && name !== 'id_token') params.set(name, value);
  params.set(BOUNCED_PARAM, String(Math.floor(Date.now() / 1000)));
  // Back to the view the merchant reloaded (the address the admin keeps), or else the App URL.
  const asked = `${req.baseUrl}${req.path}`;
  const path = returnPaths(parts.appPath).has(asked) ? asked : parts.appPath;
  const reload = `${trimTrailing(parts.appUrl, '/')}${path}?${params.toString()}`;
  const bounce = new URLSearchParams({
    shop: String(req.query.shop ?? ''),
    ...(typeof req.query.host === 'string' ? { host: req.query.host } : {}),
    'shopify-reload': reload,
  });
  res.redirect(302, `${SHOPIFY_BOUNCE_PATH}?${bounce.toString()}`);
}

/** GET /shopify/session-token: App Bridge alone, framed by the shop's admin. */
export function bouncePage(parts: BounceParts): RequestHandler {
  const appOrigin = new URL(parts.appUrl).origin;
  return (req, res) => {
    const shop = parts.sanitizeShop(String(req.query.shop ?? ''));
    const reload = typeof req.query['shopify-reload'] === 'string' ? req.query['shopify-reload'] : '';
    let target: URL | undefined;
    try {
      target = new URL(reload);
    } catch {
      target = undefined;
    }
    // App Bridge goes back only to this bridge's App URL (or a view under it): never an address a link chose.
    if (!shop || !target || target.origin !== appOrigin || !returnPaths(parts.appPath).has(target.pathname)) {
      res.status(400).type('text/plain').send('This page is only reached from the app inside the Shopify admin.');
      return;
    }
    res
      .status(200)
      .type('html')
      .set({
        'content-security-policy': embeddedCsp(shop),
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
      })
      .send(
        `<!doctype html><meta charset="utf-8"><meta name="shopify-api-key" content="${escapeHtml(parts.apiKey)}"><script src="${APP_BRIDGE_URL}"></script>`,
      );
  };
}
