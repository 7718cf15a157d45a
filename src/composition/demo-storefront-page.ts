// The demo store page on a first run (issue 68): a pretend store of a demo shop's, served by the bridge at
// /demo/storefront/<platform>/, with the platform's own storefront widget in it (PlatformDemo.storefront). A visitor
// is a guest until they press "Sign in", which signs them in as the demo's customer (a cookie of this page's, as a
// store's session is); the widget's calls to the store's own side (a platform's proxy, a plugin's routes) are
// answered by the platform's stand-in for it, which forwards them signed as the platform signs them, or signs who is
// signed in as the platform's plugin does, for the bridge's real storefront routes. Its checkout takes a reward's
// code and sends the paid order through the real webhook route, as the platform would. Nothing opens once the demo
// stopped.
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { DemoOrder, DemoStorefront } from '../core/platform-module.ts';
import { escapeHtml, plainPage } from '../http/plain-page.ts';
import type { Logger } from '../logger.ts';
import type { DemoCodes } from './demo-storefront.ts';
import { orderName, type DemoPlayer, type SentOrder } from './demo-store.ts';

/** Below the demo's prefix (DEMO_PAGE_PREFIX); each platform's page below it, at /<platform>. */
export const STOREFRONT_PATH = '/storefront';
const SIGNED_IN = 'demo_customer';
/** The one thing on sale, and its price in the demo shop's currency. */
const CART = { item: 'A notebook and a pencil', price: '40.00' };
/** What the widget may send to the store's side: a redeem is its largest, with no body at all. */
const MAX_PROXIED_BYTES = 4_096;

export interface DemoStorefrontPageParts {
  player: DemoPlayer;
  storefront: DemoStorefront;
  codes: DemoCodes;
  /** The bridge's own address, where the store's side forwards the widget's calls. */
  url(): string;
  /** This run's sign-in cookie value: random, so a cookie made up by anyone else signs no one in. */
  session: string;
  playing(): boolean;
  /** Sends the checkout's paid order through the webhook route; undefined once the demo stopped. */
  checkout(order: DemoOrder): Promise<SentOrder | undefined>;
  /** Sends another of the platform's deliveries once (a data request): undefined once taken, else why not. */
  deliver(delivery: { headers: Record<string, string>; body: string }): Promise<string | undefined>;
  /** The orders sent to the shop, for the page that says an order was paid. */
  sent(): readonly SentOrder[];
  logger: Logger;
}

/** A decimal amount of two places at most ("5.00", "5") in cents, exactly. */
const cents = (amount: string): number => {
  const [whole = '0', fraction = ''] = amount.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
};
const moneyText = (total: number) => `${Math.floor(total / 100)}.${String(total % 100).padStart(2, '0')}`;

const signedIn = (req: Request, session: string) =>
  session !== '' && (req.headers.cookie ?? '').split(';').some((pair) => pair.trim() === `${SIGNED_IN}=${session}`);

/** The page may load its own script and stylesheet, call its own origin (the store's side, the bridge), and post its own forms: nothing else. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Nothing of the demo's store pages opens once the demo stopped. */
const whilePlaying =
  (playing: () => boolean): RequestHandler =>
  (_req, res, next) => {
    if (playing()) return next();
    plainPage(
      res,
      410,
      'The demo has stopped',
      'A store of yours is connected: the demo store page is gone with the demo.',
    );
  };

/** The hostname a Host header names, lowercased, without its port (an IPv6 address keeps its brackets). */
const hostnameOf = (host: string): string =>
  (host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '')).toLowerCase();

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The demo answers a browser on this machine only: a Host header naming a loopback address or the bridge's own
 * (`own`, its configured HOST and the address it told). Anything else, say a bridge reached from a network by
 * another name, finds nothing there (the router is skipped, and the bridge answers 404).
 */
export function ownHostOnly(own: () => readonly string[]): RequestHandler {
  return (req, _res, next) => {
    const host = hostnameOf(req.headers.host ?? '');
    const allowed = [...LOOPBACK, ...own().map(hostnameOf)];
    next(host !== '' && allowed.includes(host) ? undefined : 'router');
  };
}

/** /demo/storefront/: the demo's store pages, one for each platform whose demo has one, for the newcomer to pick. */
export function demoStorefrontChooser(
  pages: ReadonlyArray<{ platform: string; platformName: string }>,
  playing: () => boolean,
): express.Router {
  const routes = express.Router().use(whilePlaying(playing));
  routes.get('/', (req, res) => {
    const links = pages
      .map(
        ({ platform, platformName }) =>
          `<li><a href="${req.baseUrl}/${encodeURIComponent(platform)}/">A ${escapeHtml(platformName)} store</a></li>`,
      )
      .join('');
    sendPage(
      res,
      200,
      `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo stores</title><style>${STYLE}</style></head>
<body><header><strong>Demo stores</strong></header><main><h1>See what your customers see</h1>
<div class="note"><p>Pretend stores, served by loyalty-bridge: each with the points widget its platform’s stores show, asking the bridge as on a real store. Pick the platform your store runs on.</p></div>
<ul>${links}</ul></main></body></html>`,
    );
  });
  return routes;
}

export function demoStorefrontPage(parts: DemoStorefrontPageParts): express.Router {
  const { storefront } = parts;
  const routes = express.Router();
  routes.use(whilePlaying(() => parts.playing()));
  const here = (req: Request) => `${req.baseUrl}/`;
  // The orders this page's checkout made in this run: ?paid= shows one of those alone, not any of the demo's orders.
  const checkedOut = new Set<number>();
  routes.get('/', (req, res) => {
    const paid =
      typeof req.query.paid === 'string'
        ? parts.sent().find(({ number }) => checkedOut.has(number) && String(number) === req.query.paid)
        : undefined;
    sendPage(res, 200, page(parts, req.baseUrl, signedIn(req, parts.session), paid ? { paid } : {}));
  });
  // The session reaches the page, and the paths of the store's origin its widget asks (originPaths).
  const session = (req: Request, value: string) =>
    [req.baseUrl, ...storefront.originPaths].map(
      (path) => `${SIGNED_IN}=${value}; Path=${path}; HttpOnly; SameSite=Strict${value ? '' : '; Max-Age=0'}`,
    );
  routes.post('/sign-in', (req, res) => {
    res.set('set-cookie', session(req, parts.session)).redirect(303, here(req));
  });
  routes.post('/sign-out', (req, res) => {
    res.set('set-cookie', session(req, '')).redirect(303, here(req));
  });
  routes.get('/assets/:name', (req, res) => {
    const asset = storefront.asset(req.params.name ?? '');
    if (!asset) return res.status(404).json({ error: 'not found' });
    res.type(asset.contentType).set('cache-control', 'no-store').send(asset.body);
  });
  // A form posted by another site on this machine (another port is the same site, so the cookie goes) pays with a
  // code or asks for the customer's data as them: only the page's own origin may post these (review K1).
  const ownForm: RequestHandler = (req, res, next) =>
    ownOrigin(req, parts.url()) ? next() : res.status(403).json({ error: 'not from the demo store page' });
  routes.post('/checkout', ownForm, express.urlencoded({ extended: false, limit: 1_024 }), checkout(parts, checkedOut));
  if (storefront.dataRequest) routes.post('/data-request', ownForm, askForData(parts));
  const { sidePath } = storefront;
  if (sidePath !== undefined)
    routes.all(
      [sidePath, `${sidePath}/*path`],
      express.raw({ type: () => true, limit: MAX_PROXIED_BYTES }),
      storeSide(parts, (req) => ({ path: req.path.slice(sidePath.length) || '/', page: here(req) })),
    );
  return routes;
}

/**
 * The store's own origin, where a widget asks it there (DemoStorefront.originPaths): the bridge's origin answers
 * those paths for the demo's store pages while the demo plays, each as its page's store side does.
 */
export function demoStorefrontOrigin(
  pages: ReadonlyArray<StoreSideParts & { page: string }>,
  playing: () => boolean,
): express.Router {
  const routes = express.Router();
  for (const parts of pages)
    for (const path of parts.storefront.originPaths)
      routes.all(
        path,
        (_req, _res, next) => (playing() ? next() : next('router')),
        express.raw({ type: () => true, limit: MAX_PROXIED_BYTES }),
        storeSide(parts, (req) => ({ path: req.path, page: parts.page })),
      );
  return routes;
}

/** The checkout: the code used once, for the signed-in customer alone, then the paid order sent as the platform sends it. */
function checkout(parts: DemoStorefrontPageParts, checkedOut: Set<number>): RequestHandler {
  const { player, storefront, codes } = parts;
  return async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const text = typeof body.code === 'string' ? body.code : '';
    if (!signedIn(req, parts.session))
      return sendPage(res, 400, page(parts, req.baseUrl, false, { refused: 'Sign in to pay with a reward code.' }));
    const used = codes.use(text, storefront.customer.id, CART.price);
    if ('refused' in used) return sendPage(res, 400, page(parts, req.baseUrl, true, { refused: used.refused }));
    const order: DemoOrder = {
      customer: storefront.customer.of,
      total: moneyText(Math.max(0, cents(CART.price) - cents(used.amount))),
      code: { code: used.code, amount: used.amount, kind: used.benefit.kind },
      steps: [storefront.paidStep],
    };
    try {
      const sent = await parts.checkout(order);
      if (!sent) return plainPage(res, 410, 'The demo has stopped', 'The order was not sent.');
      checkedOut.add(sent.number);
      res.redirect(303, `${req.baseUrl}/?paid=${sent.number}`);
    } catch (error) {
      parts.logger.warn(
        { err: error, platform: player.platform },
        'the demo store page’s order did not reach the bridge',
      );
      sendPage(
        res,
        502,
        page(parts, req.baseUrl, true, { refused: 'The order could not be sent to the bridge: try again.' }),
      );
    }
  };
}

/**
 * The signed-in customer asks the store for their data: the platform's request for it, naming their orders, sent
 * through the webhook route, where the merchant's Data requests shows it.
 */
function askForData(parts: DemoStorefrontPageParts): RequestHandler {
  const { storefront } = parts;
  // A request is named by a number: a new one each time, this run or another (a later run’s would replace it).
  let asked = 0;
  return async (req, res) => {
    if (!signedIn(req, parts.session) || !storefront.dataRequest)
      return sendPage(res, 400, page(parts, req.baseUrl, false, { refused: 'Sign in to ask for your data.' }));
    const email = storefront.customer.of.email;
    const orderIds = parts
      .sent()
      .filter(({ order }) => order.customer.email === email)
      .map(({ id }) => id);
    const at = new Date().toISOString();
    asked = Math.max(Date.now(), asked + 1);
    const delivery = storefront.dataRequest({ id: asked, orderIds, secret: parts.player.secret, at });
    const failed = await parts.deliver(delivery);
    if (failed !== undefined) parts.logger.debug({ platform: parts.player.platform }, `a demo data request: ${failed}`);
    const told =
      failed === undefined
        ? { asked: 'The store has your request. Its owner sees it in Data requests, and answers within 30 days.' }
        : { refused: 'The request could not be sent to the store: try again.' };
    sendPage(res, failed === undefined ? 200 : 502, page(parts, req.baseUrl, true, told));
  };
}

/**
 * The store's own side, as it stands in front of the bridge: the widget's call handed to the platform's stand-in
 * (storefront.serve) with the signed-in customer's id from this page's session, never the browser's; what it
 * forwards goes to the bridge's storefront routes, what it answers itself (a plugin's route) goes back as it is.
 */
type StoreSideParts = Pick<DemoStorefrontPageParts, 'player' | 'storefront' | 'url' | 'session'>;

function storeSide(parts: StoreSideParts, where: (req: Request) => { path: string; page: string }): RequestHandler {
  const { player, storefront } = parts;
  return async (req, res) => {
    // A redeem is a POST with no body: another site on this machine (another port is the same site, so the cookie
    // goes) could send it. Only the page's own origin may.
    if (req.method !== 'GET' && req.method !== 'HEAD' && !ownOrigin(req, parts.url()))
      return res.status(403).json({ error: 'not from the demo store page' });
    const query = Object.entries(req.query).flatMap(([key, value]) =>
      typeof value === 'string' ? [[key, value] as const] : [],
    );
    const headers = Object.fromEntries(
      Object.entries(req.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
    );
    const served = storefront.serve({
      method: req.method,
      ...where(req),
      query,
      headers,
      customerId: signedIn(req, parts.session) ? storefront.customer.id : undefined,
      secret: player.secret,
    });
    if (!served) return res.status(404).json({ error: 'not found' });
    res.set('cache-control', 'no-store');
    if ('redirect' in served) return res.redirect(302, served.redirect);
    if (!('forward' in served)) return res.status(served.status).type(served.contentType).send(served.body);
    const body = Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : undefined;
    const answer = await fetch(`${parts.url()}/${player.platform}${served.forward}`, {
      method: req.method,
      ...(body ? { body } : {}),
      signal: AbortSignal.timeout(30_000),
    }).catch(() => undefined);
    if (!answer) return res.status(502).json({ error: 'the bridge did not answer' });
    res
      .status(answer.status)
      .type(answer.headers.get('content-type') ?? 'application/json')
      .send(Buffer.from(await answer.arrayBuffer()));
  };
}

/** The request's Origin is the bridge's: the address it told, or the one this request reached (a loopback Host). */
const ownOrigin = (req: Request, url: string): boolean => {
  const origin = req.headers.origin;
  if (!origin) return false;
  const told = URL.canParse(url) ? new URL(url).origin : undefined;
  return origin === told || origin === `${req.protocol}://${req.headers.host ?? ''}`;
};

/** What the page says of an order its checkout made: with the code it was paid with, if any. */
const paidWords = ({ order, ...sent }: SentOrder): string =>
  order.code
    ? `Order ${orderName({ order, ...sent })} is paid: ${order.code.kind === 'free_shipping' ? 'free shipping' : `${order.code.amount} off`} with the code ${order.code.code}, ${order.total} to pay.`
    : `Order ${orderName({ order, ...sent })} is paid: ${order.total} to pay.`;

function sendPage(res: Response, status: number, html: string): void {
  // same-origin, not no-referrer: under no-referrer a browser posts the page's own forms with Origin: null, as a
  // sandboxed page of another site would, and ownForm could not tell them apart. Other sites still get no address.
  res.status(status).type('html').set('cache-control', 'no-store').set('referrer-policy', 'same-origin');
  res.set('content-security-policy', CSP).send(html);
}

const STYLE = `body{margin:0;font-family:system-ui,sans-serif;color:#111827;line-height:1.5}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.75rem 1.25rem;border-bottom:1px solid #e5e7eb}
header form{margin:0}.account{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}main{max-width:44rem;margin:0 auto;padding:1rem 1.25rem 8rem}
.note{background:#f3f4f6;border-radius:.5rem;padding:.25rem 1rem}.item{border:1px solid #e5e7eb;border-radius:.5rem;padding:1rem}
.item+.item{margin-top:1rem}.paid{background:#ecfdf5;border:1px solid #10b981;border-radius:.5rem;padding:.75rem 1rem}.refused{background:#fef2f2;border:1px solid #ef4444;border-radius:.5rem;padding:.75rem 1rem}
label{display:block;margin:.75rem 0 .25rem}input{font:inherit;padding:.4rem .5rem;width:100%;max-width:22rem;box-sizing:border-box}
button{font:inherit;padding:.45rem .9rem;margin-top:.5rem;cursor:pointer}`;

function page(
  parts: DemoStorefrontPageParts,
  base: string,
  signed: boolean,
  told: { paid?: SentOrder; refused?: string; asked?: string },
): string {
  const { player, storefront } = parts;
  const who = `${storefront.customer.of.first} ${storefront.customer.of.last}`;
  const widget = storefront.widget({
    assetBase: `${base}/assets/`,
    side: `${base}${storefront.sidePath ?? ''}`,
    signInUrl: `${base}/#account`,
    customerId: signed ? storefront.customer.id : undefined,
    secret: player.secret,
  });
  const account = signed
    ? `<span>Signed in as ${escapeHtml(who)}</span><form method="post" action="${base}/sign-out"><button>Sign out</button></form>`
    : `<form method="post" action="${base}/sign-in"><button>Sign in as ${escapeHtml(who)}</button></form>`;
  const paid = told.paid ? `<p class="paid" role="status">${escapeHtml(paidWords(told.paid))}</p>` : '';
  const refused = told.refused ? `<p class="refused" role="alert">${escapeHtml(told.refused)}</p>` : '';
  const asked = told.asked ? `<p class="paid" role="status">${escapeHtml(told.asked)}</p>` : '';
  const yourData =
    signed && storefront.dataRequest
      ? `<section class="item"><h2>Your data</h2><p>Ask the store what it keeps about you.</p><form method="post" action="${base}/data-request"><button>Ask for my data</button></form></section>`
      : '';
  const checkout = signed
    ? `<form method="post" action="${base}/checkout"><label for="code">Reward code</label><input id="code" name="code" autocomplete="off" required><br><button>Pay with the code</button></form>`
    : '<p>Sign in to pay with a reward code.</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo store: ${escapeHtml(player.platformName)}</title><style>${STYLE}</style>${widget.head}</head>
<body><header><strong>Demo store (${escapeHtml(player.platformName)})</strong><div id="account" class="account">${account}</div></header>
<main><div class="note"><p>A pretend store, served by loyalty-bridge, to show what your customers see. The “Your points” button is the one ${escapeHtml(player.platformName)} stores show, asking the bridge as on a real store.</p>
<p>Try it: sign in as ${escapeHtml(who)}, open “Your points”, redeem a reward, then pay below with its code.</p></div>
${paid}${refused}${asked}<section class="item"><h1>${CART.item}</h1><p>${CART.price} ${escapeHtml(storefront.currency)}</p>${checkout}</section>${yourData}</main>
${widget.body}</body></html>`;
}
