// A WooCommerce store's own pages, outside any admin. WooCommerce has no app launcher and signs nothing for the
// bridge, so a merchant proves they administer the store by an approval in its WordPress (/wc-auth): the bridge
// keeps no merchant accounts, and the store's login is the proof the operator trusted when the store was
// connected. A sign-in is tied to the browser that started it by a cookie, and its key is only offered until
// the store accepts it; a connect's return opens no page, which would be a login CSRF (docs/woocommerce.md).
import { stringifySetCookie } from 'cookie';
import { tabDoor } from '../../src/core/capabilities/door.ts';
import {
  merchantPageAnswer,
  plainPageAnswer,
  redirectAnswer,
  routeQuery,
  withHeaders,
} from '../../src/core/platform-answers.ts';
import type { MerchantDoor, PlatformRoute } from '../../src/core/platform-module.ts';
import type { RecordRole, LedgerLifecycle } from '../../src/core/store/ledger-store.ts';
import type { Logger } from '../../src/logger.ts';
import type { UserAddressPolicy } from '../../src/net/user-address.ts';
import { keptSecret, newSecret, secretHash } from '../shared/browser-secret.ts';
import { beginWooConnect, CONNECT_TTL_MS, pendingReentries } from './connect.ts';
import { reentryTickets, takeReturnTicket, type ReturnTicket } from './connect-return.ts';
import { wooConnectProblem } from './connect-problem.ts';
import { StoreAddressError, wooShopOf, wooStoreUrl } from './shop-identity.ts';
import { WOO_CONNECTION, wooConnectionId, type WooStores } from './stores.ts';

/**
 * Sign-ins of one store under way at once (started, or approved and awaiting
 * their browser): each holds a record until it is used or expires. Anyone may
 * start one, so past this the oldest gives way rather than the newest being
 * refused: a few requests cannot lock the merchant out for half an hour, and
 * pushing their sign-in out takes a steady stream of them.
 */
const REENTRIES_AT_ONCE = 20;
const COOKIE = '__Host-loyalty-bridge-woo';
/** Where an approval asked from the store's page comes back, and where a sign-in starts (below /woocommerce). */
export const RETURN_PATH = '/return';
export const OPEN_PATH = '/open';
const OPEN_URL = `/woocommerce${OPEN_PATH}`;
/** Nothing of a sign-in is kept by a cache, or told to the page a link leads to. */
const PRIVATE = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } as const;

export interface WooPagesParts {
  store: RecordRole & Pick<LedgerLifecycle, 'exclusive'>;
  stores: WooStores;
  publicUrl: string | undefined;
  appName: string;
  addresses: UserAddressPolicy;
  logger: Logger;
}

/** The connection the bridge made for this store through /wc-auth, if it has one (not the environment's store). */
const connectionOf = (store: RecordRole & Pick<LedgerLifecycle, 'exclusive'>, shop: string) =>
  store.getRecord(WOO_CONNECTION, wooConnectionId(shop));

const page = (status: number, title: string, text: string, again = true): Response =>
  plainPageAnswer(
    status,
    {
      title,
      paragraphs: [text],
      link: again ? { href: OPEN_URL, text: 'Open your store’s page' } : null,
      form: null,
    },
    { frameAncestors: null },
  );

const addressForm = (): Response =>
  plainPageAnswer(
    200,
    {
      title: 'Your store’s loyalty page',
      paragraphs: [
        'Enter your store’s address. You approve the sign-in in your store’s WordPress, as an administrator.',
      ],
      link: null,
      form: {
        action: OPEN_URL,
        name: 'store',
        label: 'Store address',
        placeholder: 'https://shop.example.com',
        button: 'Continue',
      },
    },
    { frameAncestors: null },
  );

export function wooStorePages(parts: WooPagesParts): { routes: PlatformRoute[]; door: MerchantDoor | undefined } {
  const door = merchantDoor(parts.store);
  return {
    // No store is connected or signed in without an https PUBLIC_URL: no page, and no key kept for its sessions.
    door: wooConnectProblem(parts.publicUrl) ? undefined : door,
    routes: [
      { method: 'GET', path: OPEN_PATH, handle: (request) => open(parts, request) },
      { method: 'GET', path: RETURN_PATH, handle: (request) => comeBack(parts, request) },
    ],
  };
}

async function open(parts: WooPagesParts, request: Request): Promise<Response> {
  const { store, logger } = parts;
  const address = (routeQuery(request).store ?? '').trim();
  if (!address) return addressForm();
  const problem = wooConnectProblem(parts.publicUrl);
  if (problem) return page(503, 'Not available yet', problem, false);
  let storeUrl: string;
  try {
    storeUrl = wooStoreUrl(address);
  } catch (error) {
    if (error instanceof StoreAddressError) return page(400, 'Not a store address', error.message);
    throw error;
  }
  const shop = wooShopOf(storeUrl);
  const connection = await connectionOf(store, shop);
  if (connection?.url !== storeUrl)
    return page(
      404,
      'This store is not connected',
      `loyalty-bridge has no WooCommerce store at ${storeUrl}: its operator connects a store first.`,
    );
  await makeRoom(store, shop);
  const secret = keptSecret(request.headers, COOKIE) ?? newSecret();
  const began = await beginWooConnect(store, storeUrl, {
    publicUrl: parts.publicUrl!,
    appName: parts.appName,
    returnPath: `/woocommerce${RETURN_PATH}`,
    addresses: parts.addresses,
    reentry: { browser: secretHash(secret) },
  });
  logger.info({ shop }, 'a merchant is signing in to their store’s page through WordPress');
  return withHeaders(redirectAnswer(began.authorizeUrl, 303), PRIVATE, [
    stringifySetCookie(COOKIE, secret, {
      path: '/',
      secure: true,
      httpOnly: true,
      sameSite: 'lax',
      maxAge: CONNECT_TTL_MS / 1000,
    }),
  ]);
}

async function comeBack(parts: WooPagesParts, request: Request): Promise<Response> {
  const { store } = parts;
  const query = routeQuery(request);
  const nonce = query.user_id ?? '';
  if (query.success !== '1')
    return page(200, 'Not signed in', 'The request was declined in WordPress. Try again when you are ready.');
  const problem = wooConnectProblem(parts.publicUrl);
  if (problem) return page(503, 'Not available yet', problem, false);
  const ticket = await takeReturnTicket(store, nonce);
  if (!ticket) return page(401, 'This link has been used', 'It works once, for a few minutes.');
  if (ticket.browser !== undefined && ticket.browser !== secretHash(keptSecret(request.headers, COOKIE) ?? ''))
    return page(401, 'Another browser', 'This approval was started in another browser: start again here.');
  const entered = await enter(parts, ticket);
  if (!entered.ok) return page(entered.status, entered.title, entered.text);
  // A link the operator made for the merchant was started in no browser: whoever holds its return (the merchant,
  // or anyone they handed it to before opening it) is no proof of who approved. The store is connected; its page
  // opens for a sign-in started here.
  if (ticket.browser === undefined)
    return plainPageAnswer(
      200,
      {
        title: 'Your store is connected',
        paragraphs: [
          `loyalty-bridge is connected to ${wooShopOf(ticket.storeUrl)}. To open its page in this browser, sign in: you approve it once more in your store’s WordPress.`,
        ],
        link: {
          href: `${OPEN_URL}?store=${encodeURIComponent(ticket.storeUrl)}`,
          text: 'Sign in to your store’s page',
        },
        form: null,
      },
      { frameAncestors: null },
    );
  // The session in this answer, to the browser whose cookie started the sign-in: never in an address.
  return withHeaders(merchantPageAnswer({ shop: ticket.forShop, user: null, mayConnectPlugin: null }), PRIVATE);
}

/** Leaves room for one more sign-in of this store: the oldest ones under way give way. */
async function makeRoom(store: WooPagesParts['store'], shop: string): Promise<void> {
  const under = [...(await pendingReentries(store, shop)), ...(await reentryTickets(store, shop))].sort((a, b) =>
    a.createdAt.localeCompare(b.createdAt),
  );
  for (const oldest of under.slice(0, Math.max(0, under.length - REENTRIES_AT_ONCE + 1)))
    await store.deleteRecord(oldest.type, oldest.id);
}

/** The store's page opens for this approval; a re-entry's key first replaces the store's old one, once the store took it. */
async function enter(
  { store, stores, logger }: WooPagesParts,
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
    logger.warn({ shop, tried }, 'a re-entry’s key was not taken by the store');
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
    { shop, keyId: ticket.keyId, previousKeyId: connection.keyId },
    'a merchant signed in to their store’s page; the store’s new key replaced the old one',
  );
  return { ok: true };
}

/** The door of the store's page: a session ends once its store is no longer connected as it was. */
function merchantDoor(store: WooPagesParts['store']): MerchantDoor {
  // A page of its own tab: WooCommerce's admin frames nothing of the bridge's, and gives no secret of the app's to
  // sign pages with (the bridge keeps one).
  return tabDoor(
    async ({ shop, issuedAt }) => {
      const connection = await connectionOf(store, shop);
      if (!connection) return { status: 401, error: 'the store is no longer connected to this bridge' };
      // Connected again since (by the operator, perhaps for a new owner at that address): earlier sessions end.
      if (issuedAt < Date.parse(connection.connectedAt))
        return { status: 401, error: 'the store was connected again since this sign-in: sign in again' };
      return undefined;
    },
    { path: OPEN_PATH, words: 'sign in through your store’s WordPress, as its administrator' },
  );
}
