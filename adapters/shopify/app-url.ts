// The App URL (GET /shopify/app): Shopify opens it each time the merchant opens the app, with shop, host,
// timestamp and hmac, and inside the admin embedded=1 and id_token. The first open after a managed
// installation is where the bridge gets its Admin API access. Embedded, a good id_token makes the request the
// shop's whatever its hmac's age (a reload after 90 s keeps the old one), and without one the bounce page
// answers; not embedded, a fresh signed link opens the page once. The cases: docs/shopify.md.
import { InvalidHostError } from '@shopify/shopify-api';
import {
  embeddedPageAnswer,
  merchantPageAnswer,
  plainPageAnswer,
  redirectAnswer,
  routeQuery,
} from '../../src/core/platform-answers.ts';
import { SecretsKeyMissingError } from '../../src/core/store/record-secrets.ts';
import { ShopifyAccessError } from './access.ts';
import { cameBackFromBounce, redirectToBounce } from './bounce.ts';
import { KEY_MISSING, type ShopifyFlowParts } from './flow-parts.ts';
import type { ShopifyInstall } from './install.ts';
import { firstUseOfLink } from './link-once.ts';
import { APP_BRIDGE_URL, POLARIS_URL, shopAdminFrame, shopifyHead } from './paths.ts';

/** A page that says what to do; inside the admin, framed by the shop's admin. */
const said = (status: number, title: string, text: string, framedBy?: string): Response =>
  plainPageAnswer(
    status,
    { title, paragraphs: [text], link: null, form: null },
    { frameAncestors: framedBy ? shopAdminFrame(framedBy) : null },
  );

/** What the App URL is handed: the flows' parts, the install it may begin, and its own address. */
type AppUrlParts = ShopifyFlowParts & { install: ShopifyInstall; appUrl: string };

export function shopifyAppUrl(parts: AppUrlParts): (request: Request) => Promise<Response> {
  return (request) => openApp(parts, request);
}

const shopParam = ({ app }: AppUrlParts, request: Request) =>
  app.utils.sanitizeShop(routeQuery(request).shop ?? '') ?? undefined;

/** The bounce page, unless this request already came back from it: then a page that says what to do, framed by the shop's admin. */
const bounceOrExplain = ({ appUrl }: AppUrlParts, request: Request, shop: string | undefined): Response =>
  shop && !cameBackFromBounce(routeQuery(request))
    ? redirectToBounce(request, appUrl)
    : said(
        401,
        'The app could not confirm your session',
        'Shopify’s session for this page was not accepted. Reload the page; if this keeps happening, ask whoever runs this app to check its client secret (SHOPIFY_API_SECRET).',
        shop,
      );

async function openApp(parts: AppUrlParts, request: Request): Promise<Response> {
  const { app, signatures, embedded, logger } = parts;
  const query = routeQuery(request);
  const idToken = query.id_token;

  if (embedded && idToken) return openWithSessionToken(parts, request, idToken);

  const checked = await signatures.appUrl(query);
  if (!checked.ok) {
    const shop = shopParam(parts, request);
    // Inside the admin (a reload after the link went stale): App Bridge brings a fresh session token.
    if (embedded && shop && query.embedded === '1') return bounceOrExplain(parts, request, shop);
    logger.warn({ reason: checked.reason }, 'the App URL was opened without a valid Shopify signature');
    return said(
      401,
      'Open this app from your Shopify admin',
      `This address works only as Shopify opens it: ${checked.reason}.`,
      embedded ? shop : undefined,
    );
  }
  if (embedded && !checked.embedded) {
    // Opened outside the admin (a bookmark, say): the app lives inside it.
    try {
      return redirectAnswer(app.auth.buildEmbeddedAppUrl(checked.host ?? ''));
    } catch (error) {
      if (error instanceof InvalidHostError)
        return said(
          400,
          'Open this app from your Shopify admin',
          'The link does not say which Shopify admin it came from.',
        );
      throw error;
    }
  }
  // Signed, inside the admin, and no session token: the bounce page brings one, as shopify-app-js does. The hmac says
  // Shopify made this link in the last 90 s, not that the admin's signed-in user is opening it (a copied link carries
  // it too); and a shop Shopify installed by itself gets its access by token exchange, which needs the session token.
  if (embedded) return bounceOrExplain(parts, request, checked.shop);
  return serve(parts, request, checked.shop, undefined);
}

/** Inside the admin, with a session token. */
async function openWithSessionToken(parts: AppUrlParts, request: Request, idToken: string): Promise<Response> {
  // The session token says whose request this is; the link's own hmac and timestamp may be long stale (a reload).
  const token = await parts.signatures.sessionToken(idToken);
  const shop = shopParam(parts, request);
  if (token.ok && (!shop || token.shop === shop)) return serve(parts, request, token.shop, idToken);
  parts.logger.warn(
    { shop, reason: token.ok ? 'the session token is for another shop' : token.reason },
    'the App URL carried a session token that was refused',
  );
  return bounceOrExplain(parts, request, shop);
}

/** Shows the shop its page, once the request is known to be the shop's. */
async function serve(
  parts: AppUrlParts,
  request: Request,
  shop: string,
  idToken: string | undefined,
): Promise<Response> {
  const { shopify, allowed, installed, embedded, apiKey, usedLinks, logger, install } = parts;
  const { access } = shopify;
  const framedBy = embedded ? shop : undefined;
  const allowance = await allowed.check(shop);
  if (!allowance.allowed) {
    logger.warn({ shop }, 'the App URL was opened for a shop the bridge does not serve');
    return said(403, 'This bridge does not serve this shop', allowance.reason, framedBy);
  }
  if (!embedded) {
    if (!(await access.hasWorkingAccess(shop))) return install.begin(request, shop);
    // The link signs in once: sent again (copied, logged, from history), it opens nothing (link-once.ts).
    if (!(await firstUseOfLink(usedLinks, String(routeQuery(request).hmac))))
      return said(
        401,
        'This link has been used',
        'Open the app again from your Shopify admin: each time it signs you in once.',
      );
    // Shopify has just said who opened the app: the shop's own page, signed in as that shop in this answer (never
    // in an address, which could be handed to another browser), drawn by the bridge's stand-ins, as Polaris and
    // App Bridge live in the admin only.
    return merchantPageAnswer({ shop, user: null, mayConnectPlugin: null });
  }
  if (idToken && !(await access.hasWorkingAccess(shop))) {
    const refused = await exchangeToken(parts, request, shop, idToken, framedBy);
    if (refused) return refused;
    await installed(shop, 'token_exchange');
  }
  return embeddedPageAnswer({ ...shopifyHead(shop, apiKey, [APP_BRIDGE_URL, POLARIS_URL]), merchantPage: true });
}

/** The shop's access by token exchange: undefined once it is kept, or the page that says why not. */
async function exchangeToken(
  parts: AppUrlParts,
  request: Request,
  shop: string,
  idToken: string,
  framedBy: string | undefined,
): Promise<Response | undefined> {
  try {
    await parts.shopify.access.exchange(shop, idToken);
    return undefined;
  } catch (error) {
    parts.logger.warn({ shop, reason: (error as Error).message }, 'token exchange failed at the App URL');
    // As shopify-app-js: a session token Shopify does not take (expired on its way, used already) is an invalid session, which a fresh one puts right.
    if (error instanceof ShopifyAccessError && error.code === 'invalid_session')
      return bounceOrExplain(parts, request, shop);
    if (error instanceof SecretsKeyMissingError)
      return said(503, 'loyalty-bridge cannot keep access to this shop', KEY_MISSING, framedBy);
    const refused = error instanceof ShopifyAccessError && error.code !== 'unavailable';
    return said(
      refused ? 401 : 502,
      'Shopify did not give access to this shop',
      refused
        ? 'Reload the app; if it persists, uninstall and install it again.'
        : 'Shopify did not answer; reload the app in a minute.',
      framedBy,
    );
  }
}
