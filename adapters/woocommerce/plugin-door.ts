// The merchant's page, opened from wp-admin through the store's WordPress plugin (docs/wordpress-plugin.md §2). The
// plugin's menu entry is a plain link to /woocommerce/plugin-door?store=<shop>, the same for everyone: it proves
// nothing. The bridge makes a secret, hands it to this browser alone in a first-party cookie, and sends the door's
// nonce, a hash of that secret and the store (so the door opens only the store it was started for), to the
// store's wp-admin, where the plugin (for an administrator of the shop) signs the nonce under the store's plugin key
// and sends the browser back to /plugin-door/finish. The page opens only where the cookie is, so a finish link made
// in one browser (or server to server) and handed to another opens nothing there: that browser has no cookie, or
// another nonce. The nonce works once, within the signature's two minutes.
// A start keeps nothing: anyone may start doors, as many as they like, and none can push the merchant's own out or
// cost the ledger a record. What is kept is the hash of each nonce the plugin signed, once it is spent (used, or
// burnt where it reached another browser), for as long as its signature could still be fresh: only a request the
// store's key signed writes anything.
import { createHash } from 'node:crypto';
import { stringifySetCookie } from 'cookie';
import {
  merchantPageAnswer,
  plainPageAnswer,
  redirectAnswer,
  routeQuery,
  withHeaders,
  type RouteQuery,
} from '../../src/core/platform-answers.ts';
import type { PlatformRoute } from '../../src/core/platform-module.ts';
import { z } from 'zod';
import type { RecordRole } from '../../src/core/store/ledger-store.ts';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import type { Logger } from '../../src/logger.ts';
import { keptSecret, newSecret, secretHash } from '../shared/browser-secret.ts';
import { wooConnectProblem } from './connect-problem.ts';
import { pluginKeyOf } from './plugin-keys.ts';
import { DOOR_PURPOSE, readPayload, signedPayload } from './plugin-signature.ts';
import { WOO_CONNECTION, wooConnectionId } from './stores.ts';

export const DOOR_COOKIE = '__Host-loyalty-bridge-door';
export const PLUGIN_DOOR_PATH = '/plugin-door';
export const PLUGIN_DOOR_FINISH_PATH = '/plugin-door/finish';
/** How long the browser keeps its nonce: the merchant's trip through wp-admin and back. */
export const DOOR_TTL_MS = 5 * 60_000;
/** How old a signature may be (either way, for the clocks' skew): the plugin signs and redirects at once. */
export const DOOR_SIGNATURE_SECONDS = 120;
/** A spent nonce is kept while a signature of it could still be fresh. */
const SPENT_KEPT_MS = 2 * DOOR_SIGNATURE_SECONDS * 1000 + 60_000;
/** Spent nonces kept for one store at once: a merchant opens their page a few times in five minutes, not fifty. */
const SPENT_PER_STORE = 50;
/** Nothing of a door is kept by a cache, or told to the page a link leads to. */
const PRIVATE = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } as const;

/** A nonce the plugin signed that opens nothing any more: used, or burnt. Names its store, so its erasure takes it. */
interface SpentNonce {
  platform: 'woocommerce';
  shop: string;
  spentAt: string;
  expiresAt: string;
}

const KIND = recordType<SpentNonce>(
  'woo-plugin-door',
  z.looseObject({ platform: z.literal('woocommerce'), shop: z.string(), spentAt: z.string(), expiresAt: z.string() }),
);

const doorRecordId = (nonce: string) => `woo-plugin-door:${secretHash(nonce)}`;

/** The nonce of a door this browser started for the store: its cookie's secret cannot be learnt from it. */
const doorNonce = (secret: string, shop: string) =>
  createHash('sha256').update(`loyalty-bridge door\u0000${shop}\u0000${secret}`).digest('base64url');

const page = (status: number, title: string, text: string): Response =>
  withHeaders(
    plainPageAnswer(status, { title, paragraphs: [text], link: null, form: null }, { frameAncestors: null }),
    PRIVATE,
  );

const AGAIN = 'Open your loyalty program again from WooCommerce › Loyalty points in your WordPress.';

export interface PluginDoorParts {
  store: RecordRole;
  publicUrl: string | undefined;
  logger: Logger;
  /** A test's clock; the system's otherwise. */
  now?: () => Date;
}

/** Why a finish opens nothing, for the operator's log: nothing of the nonce, signature or user in them. */
export const DOOR_REFUSALS = {
  no_cookie: 'the browser holds no door cookie (a finish link opened in another browser)',
  other_nonce:
    'the signed nonce is not of a door this browser started to this store (a finish link opened in another browser)',
  malformed: 'the finish link is not one the plugin makes',
  not_connected: 'the store’s plugin is not connected',
  old_key: 'the signature is under a key the store no longer has',
  bad_signature: 'the signature is not the store’s plugin key’s for the merchant door',
  stale: 'the signature is older than two minutes, or from the future',
  used: 'the nonce is unknown, expired or used',
} as const;

/** What the door's routes read, with its clock settled. */
interface Door {
  store: RecordRole;
  publicUrl: string | undefined;
  logger: Logger;
  now: () => Date;
}

export function pluginDoorRoutes({
  store,
  publicUrl,
  logger,
  now = () => new Date(),
}: PluginDoorParts): PlatformRoute[] {
  const door: Door = { store, publicUrl, logger, now };
  return [
    { method: 'GET', path: PLUGIN_DOOR_PATH, handle: (request) => start(door, request) },
    { method: 'GET', path: PLUGIN_DOOR_FINISH_PATH, handle: (request) => finish(door, request) },
  ];
}

async function start({ store, publicUrl }: Door, request: Request): Promise<Response> {
  const query = routeQuery(request);
  const problem = wooConnectProblem(publicUrl);
  if (problem) return page(503, 'Not available yet', problem);
  const shop = (query.store ?? '').trim();
  const key = shop ? await pluginKeyOf(store, shop) : undefined;
  if (!key) return page(404, 'This store is not connected', 'Connect the Loyalty points plugin in WordPress first.');
  // The operator's connection names where the store's WordPress is; the plugin's own address otherwise.
  const connection = await store.getRecord(WOO_CONNECTION, wooConnectionId(shop));
  const storeUrl = connection?.url ?? key.storeUrl;
  const secret = newSecret();
  // Where the plugin said its wp-admin is (WordPress in a directory of its own), else where WordPress puts it.
  const to = new URL('admin-post.php', key.adminUrl ?? `${storeUrl}/wp-admin/`);
  to.searchParams.set('action', 'loyalty_bridge_door');
  to.searchParams.set('nonce', doorNonce(secret, shop));
  return withHeaders(redirectAnswer(to.href, 303), PRIVATE, [
    stringifySetCookie(DOOR_COOKIE, secret, {
      path: '/',
      secure: true,
      httpOnly: true,
      sameSite: 'lax',
      maxAge: DOOR_TTL_MS / 1000,
    }),
  ]);
}

/**
 * Spends a nonce the store's plugin signed: whether this call spent it (false: it was spent before). Spent nonces
 * past the time their signature could be fresh go first; only signed requests come here, so the list stays short.
 */
async function spend(store: RecordRole, nonce: string, shop: string, at: Date): Promise<boolean> {
  let live = 0;
  for (const { id, value } of await store.listRecords(KIND))
    if (Date.parse(value.expiresAt) <= at.getTime()) await store.deleteRecord(KIND, id);
    else if (value.shop === shop) live += 1;
  // Only the store's own key signs, but a store (or a copy of its key) could sign finishes by the thousand: past
  // this it spends nothing more for a while, and a door of its own opens nothing until the spent ones expire.
  if (live >= SPENT_PER_STORE) return false;
  const { added } = await store.addRecord(KIND, doorRecordId(nonce), {
    platform: 'woocommerce',
    shop,
    spentAt: at.toISOString(),
    expiresAt: new Date(at.getTime() + SPENT_KEPT_MS).toISOString(),
  });
  return added;
}

async function finish(door: Door, request: Request): Promise<Response> {
  const { logger } = door;
  const checked = await check(door, routeQuery(request), request.headers);
  if (!checked.ok) {
    logger.warn({ reason: DOOR_REFUSALS[checked.refusal] }, 'a merchant door from WordPress was refused');
    return page(
      401,
      'Not signed in',
      checked.refusal === 'stale' || checked.refusal === 'used'
        ? `This link has expired or was used. ${AGAIN}`
        : `This link opens nothing in this browser. ${AGAIN}`,
    );
  }
  logger.info({ shop: checked.shop }, 'a merchant opened their store’s page from WordPress');
  return withHeaders(
    merchantPageAnswer({ shop: checked.shop, user: checked.user, mayConnectPlugin: checked.mayConnect }),
    PRIVATE,
    // The nonce is spent: the browser need not keep it.
    [stringifySetCookie(DOOR_COOKIE, '', { path: '/', secure: true, httpOnly: true, sameSite: 'lax', maxAge: 0 })],
  );
}

async function check(
  { store, now }: Door,
  query: RouteQuery,
  headers: Headers,
): Promise<
  { ok: true; shop: string; user: string; mayConnect: boolean } | { ok: false; refusal: keyof typeof DOOR_REFUSALS }
> {
  const refused = (refusal: keyof typeof DOOR_REFUSALS) => ({ ok: false as const, refusal });
  const cookie = keptSecret(headers, DOOR_COOKIE);
  const payloadText = query.payload ?? '';
  const unsigned = readPayload(payloadText);
  if (!unsigned) return refused(cookie ? 'malformed' : 'no_cookie');
  const shop = unsigned.store;
  if (typeof shop !== 'string' || shop === '') return refused('malformed');
  const key = await pluginKeyOf(store, shop);
  if (!key) return refused('not_connected');
  if (unsigned.keyId !== key.keyId) return refused('old_key');
  const payload = signedPayload(DOOR_PURPOSE, payloadText, query.sig ?? '', key.key);
  if (!payload) return refused('bad_signature');
  // Signed by the plugin for this use: every field read now is its word.
  if (payload.purpose !== 'merchant-door' || typeof payload.nonce !== 'string') return refused('bad_signature');
  const { iat, user, nonce } = payload;
  const at = now();
  if (typeof iat !== 'number' || !Number.isFinite(iat) || Math.abs(at.getTime() / 1000 - iat) > DOOR_SIGNATURE_SECONDS)
    return refused('stale');
  if (!cookie || nonce !== doorNonce(cookie, shop)) {
    // A signed nonce that is not of this browser's door to this store burns: a page that sent a signed-in manager
    // to the plugin with an attacker's nonce (whose cookie the attacker holds) has the signature land in the
    // manager's browser, and the nonce is spent there before the attacker could learn the link and use it.
    await spend(store, nonce, shop, at);
    return refused(cookie ? 'other_nonce' : 'no_cookie');
  }
  if (typeof user !== 'number' || !Number.isSafeInteger(user) || user <= 0) return refused('malformed');
  // Used once: of two finishes at once, one spends it.
  if (!(await spend(store, nonce, shop, at))) return refused('used');
  // Whether this user may connect the plugin (an administrator of the site, as the plugin judges it): only they
  // are given connection codes on the page (pluginCode). Absent from a plugin that does not say: no.
  return { ok: true, shop, user: String(user), mayConnect: payload.mayConnect === true };
}
