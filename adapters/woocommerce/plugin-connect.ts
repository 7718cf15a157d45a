// Connecting a store's WordPress plugin to the bridge (docs/wordpress-plugin.md §1). The merchant, signed in to
// their store's page, asks for a connection code, pastes it in wp-admin, and the plugin exchanges it from its
// server for the store's plugin key. The code carries the bridge's address (so the plugin knows where to go) and
// 32 random bytes; the bridge keeps only its SHA-256, for 15 minutes, and it works once: two exchanges of one
// code at once are decided by one compare-and-set on its record, so one store gets one key. The key is made only
// for the store the code was asked for, and only when the plugin's site is that store.
import { createHash, randomBytes } from 'node:crypto';
import type { PlatformRoute } from '../../src/core/platform-module.ts';
import { z } from 'zod';
import type { RecordRole } from '../../src/core/store/ledger-store.ts';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import type { Logger } from '../../src/logger.ts';
import { keepPluginKey, newPluginKey } from './plugin-keys.ts';
import { StoreAddressError, wooShopOf, wooStoreUrl } from './shop-identity.ts';

export const PLUGIN_CODE_TTL_MS = 15 * 60_000;
export const PLUGIN_CONNECT_PATH = '/plugin/connect';
/** The JSON the plugin sends is a few hundred bytes; nothing much bigger is read. */
const MAX_BODY_BYTES = 4096;
/** "lb1.<base64url of the bridge's address>.<32 random bytes, base64url>". */
const CODE = /^lb1\.[A-Za-z0-9_-]{1,1400}\.[A-Za-z0-9_-]{43}$/;

interface PluginCode {
  platform: 'woocommerce';
  shop: string;
  createdAt: string;
  expiresAt: string;
}

const KIND = recordType<PluginCode>(
  'woo-plugin-code',
  z.looseObject({ platform: z.literal('woocommerce'), shop: z.string(), createdAt: z.string(), expiresAt: z.string() }),
);

const codeRecordId = (code: string) => `woo-plugin-code:${createHash('sha256').update(code).digest('hex')}`;

/**
 * A new connection code for the shop, replacing any it had (one under way per store), and when it stops working.
 * `publicUrl`: the bridge's address, which the plugin reads from the code.
 */
export async function issuePluginCode(
  store: Pick<RecordRole, 'listRecords' | 'deleteRecord' | 'putRecord'>,
  shop: string,
  publicUrl: string,
  now = new Date(),
): Promise<{ code: string; expiresAt: string }> {
  for (const { id, value } of await store.listRecords(KIND))
    if (value.shop === shop || Date.parse(value.expiresAt) <= now.getTime()) await store.deleteRecord(KIND, id);
  const address = Buffer.from(publicUrl.replace(/\/+$/, ''), 'utf8').toString('base64url');
  const code = `lb1.${address}.${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + PLUGIN_CODE_TTL_MS).toISOString();
  await store.putRecord(KIND, codeRecordId(code), {
    platform: 'woocommerce',
    shop,
    createdAt: now.toISOString(),
    expiresAt,
  });
  return { code, expiresAt };
}

const REFUSALS = {
  unknown: 'this code is unknown or was used: ask for a new one on your loyalty page',
  expired: 'this code has expired: ask for a new one on your loyalty page',
  'other-store': 'this code was made for another store: ask for one on this store’s loyalty page',
} as const;

type Verdict = keyof typeof REFUSALS | 'taken';

function verdictOn(current: PluginCode | undefined, shop: string, at: Date): Verdict {
  if (!current) return 'unknown';
  if (Date.parse(current.expiresAt) <= at.getTime()) return 'expired';
  return current.shop === shop ? 'taken' : 'other-store';
}

/** Every refusal is this shape, naming no store: whoever holds a wrong code learns nothing from it. */
const refused = (error: string): Response => Response.json({ error }, { status: 400 });

function readBody(
  body: Buffer,
): { code: string; siteUrl: string; adminUrl?: string; pluginVersion?: string } | undefined {
  let read: unknown;
  try {
    read = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof read !== 'object' || read === null) return undefined;
  const { code, siteUrl, adminUrl, pluginVersion } = read as Record<string, unknown>;
  if (typeof code !== 'string' || typeof siteUrl !== 'string' || siteUrl.length > 2000) return undefined;
  if (adminUrl !== undefined && (typeof adminUrl !== 'string' || adminUrl.length > 2000)) return undefined;
  const version =
    typeof pluginVersion === 'string' && /^[\w.+-]{1,40}$/.test(pluginVersion) ? pluginVersion : undefined;
  return {
    code: code.trim(),
    siteUrl,
    ...(typeof adminUrl === 'string' ? { adminUrl } : {}),
    ...(version ? { pluginVersion: version } : {}),
  };
}

/**
 * Where the site's wp-admin is (admin_url(): not under the site's address where WordPress lives in a directory of its
 * own), with a trailing slash; only on the site's own origin, so the door sends a browser nowhere else.
 */
function adminOf(adminUrl: string | undefined, siteUrl: string): string | undefined | 'elsewhere' {
  if (adminUrl === undefined) return undefined;
  try {
    const admin = new URL(adminUrl);
    // User info is not part of the origin: https://user:pass@site/ would be sent to browsers as it came.
    if (admin.origin !== new URL(siteUrl).origin || admin.username !== '' || admin.password !== '') return 'elsewhere';
    if (admin.search !== '' || admin.hash !== '') return 'elsewhere';
    return admin.href.endsWith('/') ? admin.href : `${admin.href}/`;
  } catch {
    return 'elsewhere';
  }
}

/** The store the plugin's site is, or undefined when its address names none. */
function siteShop(siteUrl: string): { shop: string; storeUrl: string } | undefined {
  try {
    return { shop: wooShopOf(siteUrl), storeUrl: wooStoreUrl(siteUrl) };
  } catch (error) {
    if (error instanceof StoreAddressError) return undefined;
    throw error;
  }
}

export interface PluginConnectParts {
  store: Pick<RecordRole, 'changeRecord' | 'putRecord' | 'addRecord'>;
  logger: Logger;
  /** A test's clock; the system's otherwise. */
  now?: () => Date;
}

/** POST /woocommerce/plugin/connect: the plugin's exchange of a code for its store's key, server to server. */
export function pluginConnectRoute({ store, logger, now = () => new Date() }: PluginConnectParts): PlatformRoute {
  return {
    method: 'POST',
    path: PLUGIN_CONNECT_PATH,
    maxBodyBytes: MAX_BODY_BYTES,
    async handle(request) {
      const sent = readBody(Buffer.from(await request.arrayBuffer()));
      if (!sent) return refused('send JSON with the code and siteUrl');
      if (!CODE.test(sent.code)) return refused('this is not a connection code: copy it again from your loyalty page');
      const site = siteShop(sent.siteUrl);
      if (!site) return refused('siteUrl is not a web address');
      const adminUrl = adminOf(sent.adminUrl, sent.siteUrl);
      if (adminUrl === 'elsewhere') return refused('adminUrl must be on the site’s own address');
      const at = now();
      // One step decides: the code is taken (deleted) only if it is there, unexpired, and for this site's store.
      // Of two exchanges at once, the second finds it gone. `change` may run more than once: it only decides.
      const decided: { verdict: Verdict; code?: PluginCode } = { verdict: 'unknown' };
      const taken = await store.changeRecord(KIND, codeRecordId(sent.code), (current) => {
        decided.verdict = verdictOn(current, site.shop, at);
        decided.code = current;
        // An expired code goes too; one for another store stays for its own.
        return decided.verdict === 'taken' || decided.verdict === 'expired' ? { delete: true } : undefined;
      });
      const { verdict } = decided;
      if (verdict !== 'taken' || !taken.changed) {
        const reason = verdict === 'taken' ? 'unknown' : verdict;
        logger.warn({ reason }, 'a WordPress plugin’s connection code was refused');
        return refused(REFUSALS[reason]);
      }
      const made = newPluginKey();
      try {
        await keepPluginKey(store, {
          platform: 'woocommerce',
          shop: site.shop,
          ...made,
          storeUrl: site.storeUrl,
          ...(adminUrl ? { adminUrl } : {}),
          ...(sent.pluginVersion ? { pluginVersion: sent.pluginVersion } : {}),
          connectedAt: at.toISOString(),
        });
      } catch (error) {
        // The key was not kept: the code is put back, so the merchant's Connect works again with the same code.
        await store.addRecord(KIND, codeRecordId(sent.code), decided.code!).catch(() => undefined);
        logger.warn(
          { err: error, shop: site.shop },
          'a WordPress plugin’s key could not be kept; its code works again',
        );
        return Response.json(
          { error: 'the bridge could not save the connection just now: press Connect again' },
          { status: 503 },
        );
      }
      logger.info(
        { shop: site.shop, keyId: made.keyId },
        'a store’s WordPress plugin connected; its key replaces any earlier one',
      );
      return Response.json({ store: site.shop, keyId: made.keyId, key: made.key }, { status: 200 });
    },
  };
}
