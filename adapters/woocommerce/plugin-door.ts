// The merchant's page, opened from wp-admin through the store's WordPress plugin (docs/wordpress-plugin.md §2). The
// plugin's menu entry is a plain link to /woocommerce/plugin-door?store=<shop>, the same for everyone: it proves
// nothing. The bridge makes a nonce, keeps its hash for 5 minutes and hands it to this browser alone in a
// first-party cookie, then sends it to the store's wp-admin, where the plugin (for an administrator of the shop)
// signs the nonce under the store's plugin key and sends the browser back to /plugin-door/finish. The page opens
// only where the cookie is, so a finish link made in one browser (or server to server) and handed to another opens
// nothing there: that browser has no cookie, or another nonce. The nonce works once.
import { stringifySetCookie } from 'cookie';
import type { PlatformAnswer, PlatformRequest, PlatformRoute } from '../../src/core/platform-module.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import type { Logger } from '../../src/logger.ts';
import { keptSecret, newSecret, secretHash } from '../shared/browser-secret.ts';
import { wooConnectProblem } from './connect-problem.ts';
import { pluginKeyOf } from './plugin-keys.ts';
import { DOOR_PURPOSE, readPayload, signedPayload } from './plugin-signature.ts';
import { wooConnectionId, type WooConnection } from './stores.ts';

const KIND = 'woo-plugin-door';
export const DOOR_COOKIE = '__Host-loyalty-bridge-door';
export const PLUGIN_DOOR_PATH = '/plugin-door';
export const PLUGIN_DOOR_FINISH_PATH = '/plugin-door/finish';
export const DOOR_TTL_MS = 5 * 60_000;
/** How old a signature may be: the plugin signs and redirects at once. */
export const DOOR_SIGNATURE_SECONDS = 120;
/**
 * Doors of one store under way at once. Anyone may start one, so past this the oldest gives way rather than the
 * newest being refused: a few requests cannot lock the merchant out.
 */
const DOORS_AT_ONCE = 20;
/** Nothing of a door is kept by a cache, or told to the page a link leads to. */
const PRIVATE = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } as const;

interface DoorNonce {
  platform: 'woocommerce';
  shop: string;
  createdAt: string;
  expiresAt: string;
}

const doorRecordId = (nonce: string) => `woo-plugin-door:${secretHash(nonce)}`;

const page = (status: number, title: string, text: string): PlatformAnswer => ({
  status,
  headers: PRIVATE,
  page: { title, paragraphs: [text] },
});

const AGAIN = 'Open your loyalty program again from WooCommerce › Loyalty points in your WordPress.';

export interface PluginDoorParts {
  store: LedgerStore;
  publicUrl: string | undefined;
  logger: Logger;
  /** A test's clock; the system's otherwise. */
  now?: () => Date;
}

/** Why a finish opens nothing, for the operator's log: nothing of the nonce, signature or user in them. */
export const DOOR_REFUSALS = {
  no_cookie: 'the browser holds no door cookie (a finish link opened in another browser)',
  other_nonce: 'the signed nonce is not the one this browser holds (a finish link opened in another browser)',
  malformed: 'the finish link is not one the plugin makes',
  not_connected: 'the store’s plugin is not connected',
  old_key: 'the signature is under a key the store no longer has',
  bad_signature: 'the signature is not the store’s plugin key’s for the merchant door',
  stale: 'the signature is older than two minutes, or from the future',
  used: 'the nonce is unknown, expired or used',
} as const;

export function pluginDoorRoutes({
  store,
  publicUrl,
  logger,
  now = () => new Date(),
}: PluginDoorParts): PlatformRoute[] {
  async function start({ query }: PlatformRequest): Promise<PlatformAnswer> {
    const problem = wooConnectProblem(publicUrl);
    if (problem) return page(503, 'Not available yet', problem);
    const shop = (query.store ?? '').trim();
    const key = shop ? await pluginKeyOf(store, shop) : undefined;
    if (!key) return page(404, 'This store is not connected', 'Connect the Loyalty points plugin in WordPress first.');
    // The operator's connection names where the store's WordPress is; the plugin's own address otherwise.
    const connection = await store.getRecord<WooConnection>('session', wooConnectionId(shop));
    const storeUrl = connection?.url ?? key.storeUrl;
    const at = now();
    await makeRoom(shop, at);
    const nonce = newSecret();
    await store.putRecord<DoorNonce>(KIND, doorRecordId(nonce), {
      platform: 'woocommerce',
      shop,
      createdAt: at.toISOString(),
      expiresAt: new Date(at.getTime() + DOOR_TTL_MS).toISOString(),
    });
    // Where the plugin said its wp-admin is (WordPress in a directory of its own), else where WordPress puts it.
    const to = new URL('admin-post.php', key.adminUrl ?? `${storeUrl}/wp-admin/`);
    to.searchParams.set('action', 'loyalty_bridge_door');
    to.searchParams.set('nonce', nonce);
    return {
      redirect: to.href,
      status: 303,
      headers: PRIVATE,
      setCookies: [
        stringifySetCookie(DOOR_COOKIE, nonce, {
          path: '/',
          secure: true,
          httpOnly: true,
          sameSite: 'lax',
          maxAge: DOOR_TTL_MS / 1000,
        }),
      ],
    };
  }

  /** Leaves room for one more door of this store: expired ones go, then the oldest under way give way. */
  async function makeRoom(shop: string, at: Date): Promise<void> {
    const all = await store.listRecords<Partial<DoorNonce>>(KIND);
    const live: Array<{ id: string; createdAt: string }> = [];
    for (const { id, value } of all)
      if (Date.parse(value.expiresAt ?? '') <= at.getTime()) await store.deleteRecord(KIND, id);
      else if (value.shop === shop) live.push({ id, createdAt: value.createdAt ?? '' });
    live.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    for (const oldest of live.slice(0, Math.max(0, live.length - DOORS_AT_ONCE + 1)))
      await store.deleteRecord(KIND, oldest.id);
  }

  async function finish({ query, headers }: PlatformRequest): Promise<PlatformAnswer> {
    const checked = await check(query, headers);
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
    return {
      merchantPage: { shop: checked.shop, user: checked.user },
      headers: PRIVATE,
      // The nonce is spent: the browser need not keep it.
      setCookies: [
        stringifySetCookie(DOOR_COOKIE, '', { path: '/', secure: true, httpOnly: true, sameSite: 'lax', maxAge: 0 }),
      ],
    };
  }

  async function check(
    query: PlatformRequest['query'],
    headers: PlatformRequest['headers'],
  ): Promise<{ ok: true; shop: string; user: string } | { ok: false; refusal: keyof typeof DOOR_REFUSALS }> {
    const refused = (refusal: keyof typeof DOOR_REFUSALS) => ({ ok: false as const, refusal });
    const cookie = keptSecret(headers, DOOR_COOKIE);
    const payloadText = query.payload ?? '';
    const unsigned = readPayload(payloadText);
    // A finish whose nonce is not this browser's cookie burns that nonce: a page that sent a signed-in manager to
    // the plugin with an attacker's nonce (whose cookie the attacker holds) has the signature land in the manager's
    // browser, and the nonce is spent there before the attacker could learn the link and use it with their cookie.
    const named = typeof unsigned?.nonce === 'string' ? unsigned.nonce : undefined;
    if (named !== undefined && named !== cookie) await store.deleteRecord(KIND, doorRecordId(named));
    if (!cookie) return refused('no_cookie');
    if (!unsigned) return refused('malformed');
    if (unsigned.nonce !== cookie) return refused('other_nonce');
    const shop = unsigned.store;
    if (typeof shop !== 'string' || shop === '') return refused('malformed');
    const key = await pluginKeyOf(store, shop);
    if (!key) return refused('not_connected');
    if (unsigned.keyId !== key.keyId) return refused('old_key');
    const payload = signedPayload(DOOR_PURPOSE, payloadText, query.sig ?? '', key.key);
    if (!payload) return refused('bad_signature');
    // Signed by the plugin for this use: every field read now is its word.
    if (payload.purpose !== 'merchant-door') return refused('bad_signature');
    const { iat, user } = payload;
    if (typeof user !== 'number' || !Number.isSafeInteger(user) || user <= 0) return refused('malformed');
    const nowS = now().getTime() / 1000;
    if (typeof iat !== 'number' || !Number.isFinite(iat) || Math.abs(nowS - iat) > DOOR_SIGNATURE_SECONDS)
      return refused('stale');
    // Used once: of two finishes at once, one takes it.
    let live = false;
    const taken = await store.changeRecord<DoorNonce>(KIND, doorRecordId(cookie), (current) => {
      live = current !== undefined && current.shop === shop && Date.parse(current.expiresAt) > nowS * 1000;
      return current ? { delete: true } : undefined;
    });
    if (!live || !taken.changed) return refused('used');
    return { ok: true, shop, user: String(user) };
  }

  return [
    { method: 'GET', path: PLUGIN_DOOR_PATH, handle: start },
    { method: 'GET', path: PLUGIN_DOOR_FINISH_PATH, handle: finish },
  ];
}
