// A WooCommerce store's own pages, outside any admin. WooCommerce has no app launcher and signs nothing for the
// bridge, so a merchant proves they administer the store by an approval in its WordPress (/wc-auth): the bridge
// keeps no merchant accounts, and the store's login is the proof the operator trusted when the store was
// connected. A sign-in is tied to the browser that started it by a cookie, and its key is only offered until
// the store accepts it; a connect's return opens no page, which would be a login CSRF (docs/woocommerce.md).
import { wooModule } from '../../adapters/woocommerce/module.ts';
import { stringifySetCookie } from 'cookie';
import express, { type RequestHandler, type Response } from 'express';
import { beginWooConnect, CONNECT_TTL_MS, pendingReentries, sha256 } from '../../adapters/woocommerce/connect.ts';
import { reentryTickets, takeReturnTicket, type ReturnTicket } from '../../adapters/woocommerce/connect-return.ts';
import { StoreAddressError, wooShopOf, wooStoreUrl } from '../../adapters/woocommerce/shop-identity.ts';
import { wooConnectionId, type WooConnection, type WooStores } from '../../adapters/woocommerce/stores.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import type { UserAddressPolicy } from '../net/user-address.ts';
import { SecretsKeyMissingError } from '../core/store/record-secrets.ts';
import { keptPageKey } from '../composition/kept-page-key.ts';
import { bridgeShopTokens, WOOCOMMERCE_STORE_PAGE, type BridgeShopTokens } from './bridge-shop-token.ts';
import { keptSecret, newSecret } from './browser-secret.ts';
import { sendStandaloneMerchantPage } from './merchant-page.ts';
import { escapeHtml, plainPage } from './plain-page.ts';
import { storePageDoor } from './store-page-door.ts';
import { wooConnectProblem } from './woocommerce-connect.ts';

/**
 * Sign-ins of one store under way at once (started, or approved and awaiting
 * their browser): each holds a record until it is used or expires. Anyone may
 * start one, so past this the oldest gives way rather than the newest being
 * refused: a few requests cannot lock the merchant out for half an hour, and
 * pushing their sign-in out takes a steady stream of them.
 */
const REENTRIES_AT_ONCE = 20;
const COOKIE = '__Host-loyalty-bridge-woo';
export const RETURN_PATH = '/woocommerce/return';
const OPEN_PATH = '/woocommerce/open';
const STORE_PATH = '/woocommerce/store';

export interface WooPagesParts {
  store: LedgerStore;
  stores: WooStores;
  publicUrl: string | undefined;
  appName: string;
  addresses: UserAddressPolicy;
  /** The store pages' sessions; undefined when the bridge may keep no key for them (no SECRETS_KEY). */
  tokens: BridgeShopTokens | undefined;
  /** The admin API as a store's own page sees it (shop-admin-api.ts), behind this platform's door. */
  shopRoutes: RequestHandler;
  logger: Logger;
}

/** The connection the bridge made for this store through /wc-auth, if it has one (not the environment's store). */
const connectionOf = (store: LedgerStore, shop: string) =>
  store.getRecord<WooConnection>('session', wooConnectionId(shop));

export function wooStorePages(parts: WooPagesParts): { routes: express.Router; door: RequestHandler | undefined } {
  const { store, stores, tokens, logger } = parts;
  const router = express.Router();
  const page = (res: Response, status: number, title: string, text: string, again = true) =>
    plainPage(res, status, title, text, again ? { link: { href: OPEN_PATH, text: 'Open your store’s page' } } : {});

  router.get('/open', async (req, res) => {
    res.set({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    const address = typeof req.query.store === 'string' ? req.query.store.trim() : '';
    if (!address) return void sendAddressForm(res);
    const problem = wooConnectProblem(parts.publicUrl);
    if (problem || !tokens) return page(res, 503, 'Not available yet', unavailable(problem), false);
    let storeUrl: string;
    try {
      storeUrl = wooStoreUrl(address);
    } catch (error) {
      if (error instanceof StoreAddressError) return page(res, 400, 'Not a store address', error.message);
      throw error;
    }
    const shop = wooShopOf(storeUrl);
    const connection = await connectionOf(store, shop);
    if (connection?.url !== storeUrl)
      return page(
        res,
        404,
        'This store is not connected',
        `loyalty-bridge has no WooCommerce store at ${storeUrl}: its operator connects a store first.`,
      );
    await makeRoom(shop);
    const secret = keptSecret(req, COOKIE) ?? newSecret();
    const began = await beginWooConnect(store, storeUrl, {
      publicUrl: parts.publicUrl!,
      appName: parts.appName,
      returnPath: RETURN_PATH,
      addresses: parts.addresses,
      reentry: { browser: sha256(secret) },
    });
    logger.info({ platform: wooModule.name, shop }, 'a merchant is signing in to their store’s page through WordPress');
    res
      .append(
        'set-cookie',
        stringifySetCookie(COOKIE, secret, {
          path: '/',
          secure: true,
          httpOnly: true,
          sameSite: 'lax',
          maxAge: CONNECT_TTL_MS / 1000,
        }),
      )
      .redirect(303, began.authorizeUrl);
  });

  router.get('/return', async (req, res) => {
    res.set({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    const nonce = typeof req.query.user_id === 'string' ? req.query.user_id : '';
    if (req.query.success !== '1')
      return page(res, 200, 'Not signed in', 'The request was declined in WordPress. Try again when you are ready.');
    if (!tokens) return page(res, 503, 'Not available yet', unavailable(undefined), false);
    const ticket = await takeReturnTicket(store, nonce);
    if (!ticket) return page(res, 401, 'This link has been used', 'It works once, for a few minutes.');
    if (ticket.browser !== undefined && ticket.browser !== sha256(keptSecret(req, COOKIE) ?? ''))
      return page(res, 401, 'Another browser', 'This approval was started in another browser: start again here.');
    const entered = await enter(ticket);
    if (!entered.ok) return page(res, entered.status, entered.title, entered.text);
    // A link the operator made for the merchant was started in no browser: whoever holds its return (the merchant,
    // or anyone they handed it to before opening it) is no proof of who approved. The store is connected; its page
    // opens for a sign-in started here.
    if (ticket.browser === undefined)
      return plainPage(
        res,
        200,
        'Your store is connected',
        `loyalty-bridge is connected to ${wooShopOf(ticket.storeUrl)}. To open its page in this browser, sign in: you approve it once more in your store’s WordPress.`,
        {
          link: {
            href: `${OPEN_PATH}?store=${encodeURIComponent(ticket.storeUrl)}`,
            text: 'Sign in to your store’s page',
          },
        },
      );
    // The session in this answer, to the browser whose cookie started the sign-in: never in an address.
    sendWooStorePage(res, tokens.mint(ticket.forShop));
  });

  // The page's own address once signed in: a reload keeps the tab's session, and nothing here brings one.
  router.get('/store', (_req, res) => sendWooStorePage(res));

  /** Leaves room for one more sign-in of this store: the oldest ones under way give way. */
  async function makeRoom(shop: string): Promise<void> {
    const under = [...(await pendingReentries(store, shop)), ...(await reentryTickets(store, shop))].sort((a, b) =>
      a.createdAt.localeCompare(b.createdAt),
    );
    for (const oldest of under.slice(0, Math.max(0, under.length - REENTRIES_AT_ONCE + 1)))
      await store.deleteRecord(oldest.kind, oldest.id);
  }

  /** The store's page opens for this approval; a re-entry's key first replaces the store's old one, once the store took it. */
  async function enter(
    ticket: ReturnTicket,
  ): Promise<{ ok: true } | { ok: false; status: number; title: string; text: string }> {
    const shop = ticket.forShop;
    const connection = await connectionOf(store, shop);
    if (connection?.url !== ticket.storeUrl)
      return { ok: false, status: 404, title: 'This store is not connected', text: 'Ask the bridge’s operator.' };
    if (ticket.purpose !== 'reentry' || !ticket.consumerKey || !ticket.consumerSecret) return { ok: true };
    const key = { consumerKey: ticket.consumerKey, consumerSecret: ticket.consumerSecret };
    const tried = await stores.tryKey(shop, key);
    if (tried !== 'accepted') {
      logger.warn({ platform: wooModule.name, shop, tried }, 'a re-entry’s key was not taken by the store');
      return tried === 'refused'
        ? { ok: false, status: 401, title: 'Not signed in', text: 'Your store did not recognise the key it sent.' }
        : { ok: false, status: 502, title: 'Your store did not answer', text: 'Try again in a moment.' };
    }
    // In one step with the check: a store disconnected or connected again while its answer was awaited stays so.
    const replaced = await stores.replaceKey(shop, connection, {
      ...key,
      keyId: ticket.keyId,
      keyPermissions: ticket.keyPermissions ?? connection.keyPermissions,
    });
    if (!replaced) return { ok: false, status: 409, title: 'The store changed meanwhile', text: 'Sign in again.' };
    logger.info(
      { platform: wooModule.name, shop, keyId: ticket.keyId, previousKeyId: connection.keyId },
      'a merchant signed in to their store’s page; the store’s new key replaced the old one',
    );
    return { ok: true };
  }

  const door = tokens
    ? storePageDoor(
        {
          platform: wooModule.name,
          purpose: WOOCOMMERCE_STORE_PAGE,
          tokens,
          ended: `this sign-in has ended: open your store’s page again at ${OPEN_PATH}`,
          logger,
          async refusal({ shop, issuedAt }) {
            const connection = await connectionOf(store, shop);
            if (!connection) return { status: 401, error: 'the store is no longer connected to this bridge' };
            // Connected again since (by the operator, perhaps for a new owner at that address): earlier sessions end.
            if (issuedAt < Date.parse(connection.connectedAt))
              return { status: 401, error: 'the store was connected again since this sign-in: sign in again' };
            return undefined;
          },
        },
        parts.shopRoutes,
      )
    : undefined;
  return { routes: router, door };
}

/** A WooCommerce store's page, at the top level: with the session of a sign-in, or the tab's own (a reload). */
function sendWooStorePage(res: Response, session?: string): void {
  sendStandaloneMerchantPage(res, {
    session,
    frameAncestors: "'none'",
    signInAgain: OPEN_PATH,
    whereToSignIn: 'sign in through your store’s WordPress, as its administrator',
    pagePath: STORE_PATH,
  });
}

/**
 * The store pages' sessions, keyed from the key the bridge keeps for them;
 * none where no store can be connected (PUBLIC_URL not https), or where the
 * bridge may keep no secret (no SECRETS_KEY outside sandbox mode): the pages
 * then say so.
 */
export async function wooPageTokens(
  store: LedgerStore,
  publicUrl: string | undefined,
): Promise<BridgeShopTokens | undefined> {
  if (wooConnectProblem(publicUrl)) return undefined;
  try {
    return bridgeShopTokens([await keptPageKey(store)], Date.now, WOOCOMMERCE_STORE_PAGE);
  } catch (error) {
    if (error instanceof SecretsKeyMissingError) return undefined;
    throw error;
  }
}

const unavailable = (problem: string | undefined) =>
  problem ?? 'loyalty-bridge cannot keep sign-ins yet: its operator has to set SECRETS_KEY.';

function sendAddressForm(res: Response): void {
  res
    .status(200)
    .type('html')
    .set('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
    .send(
      `<!doctype html><meta charset="utf-8"><title>Your store’s loyalty page</title><body style="font-family:system-ui;max-width:40em;margin:3em auto"><h1>Your store’s loyalty page</h1><p>Enter your store’s address. You approve the sign-in in your store’s WordPress, as an administrator.</p><form method="get" action="${escapeHtml(OPEN_PATH)}"><label>Store address <input id="store" name="store" type="url" required placeholder="https://shop.example.com"></label> <button type="submit">Continue</button></form></body>`,
    );
}
