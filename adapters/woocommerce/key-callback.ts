// POST /woocommerce/auth/callback, where WooCommerce sends a store's new key once the merchant approves
// (connect.ts). Only a nonce the bridge issued, unused and unexpired, is accepted. The key is kept, the answer
// is exactly 200 (WooCommerce deletes the key on anything else), and only then are the webhooks made:
// WooCommerce waits on this request inside its own, and a small site's one PHP worker could not answer the
// bridge meanwhile. A re-entry's key is only offered, for the browser's return to try.
import { randomBytes } from 'node:crypto';
import type { PlatformRoute } from '../../src/core/platform-module.ts';
import type { RecordRole, LedgerLifecycle } from '../../src/core/store/ledger-store.ts';
import type { Logger } from '../../src/logger.ts';
import { userAddressRefusal, type UserAddressPolicy } from '../../src/net/user-address.ts';
import { parseJsonLossless } from '../shared/json.ts';
import { takeWooCallback } from './connect.ts';
import { keepReturnTicket } from './connect-return.ts';
import { storeAddressProblem } from './store-address.ts';
import { WOO_CONNECTION, wooConnectionId, type WooStores } from './stores.ts';

/** A key's callback is a few hundred bytes: nothing bigger is read. */
const CALLBACK_LIMIT = 16 * 1024;

export interface WooCallbackParts {
  store: RecordRole & Pick<LedgerLifecycle, 'exclusive'>;
  stores: WooStores;
  logger: Logger;
  /** Which store addresses may be connected: asked again now, since the setting may have changed since the connect began. */
  addresses: UserAddressPolicy;
  /** Told after the answer: the store's webhooks made and its recent orders read. */
  onConnected(shop: string): void;
}

/** Keeps a store's keys; a store connected before keeps its webhook secret, so the webhooks it has go on working. */
export async function keepWooKeys(
  parts: Pick<WooCallbackParts, 'store' | 'stores' | 'logger' | 'addresses'>,
  body: unknown,
): Promise<{ ok: true; shop: string; reentry: boolean } | { ok: false; status: 400 | 401; reason: string }> {
  const taken = await takeWooCallback(parts.store, body);
  if (!taken.ok) return taken;
  const { keys, pending } = taken;
  // Not 200, so WooCommerce deletes the key it made.
  const refused = await userAddressRefusal(new URL(pending.storeUrl), parts.addresses);
  if (refused) return { ok: false, status: 400, reason: storeAddressProblem(refused) };
  const shop = pending.forShop;
  const before = await parts.store.getRecord(WOO_CONNECTION, wooConnectionId(shop));
  const ticket = { purpose: pending.purpose, forShop: shop, storeUrl: pending.storeUrl, keyId: keys.keyId };
  if (pending.purpose === 'reentry') {
    // Only for the store as it is connected: one disconnected, or connected again elsewhere since, is not re-entered.
    if (before?.url !== pending.storeUrl)
      return { ok: false, status: 400, reason: 'the store is no longer connected at that address' };
    // A sign-in replaces the store's key: never with one that may do less (an approval asked with scope=read).
    if (keys.keyPermissions !== 'read_write' && keys.keyPermissions !== before.keyPermissions)
      return { ok: false, status: 400, reason: `a sign-in's key must be read_write, as the store's is` };
    await keepReturnTicket(parts.store, keys.nonce, {
      ...ticket,
      browser: pending.browser,
      consumerKey: keys.consumerKey,
      consumerSecret: keys.consumerSecret,
      keyPermissions: keys.keyPermissions,
    });
    return { ok: true, shop, reentry: true };
  }
  // The merchant's return opens their page only from a link made for them: the operator's own lands on the dashboard.
  // Kept before the key: the key's save is the callback's last write, so a failed write before it (which WooCommerce
  // answers by deleting the key it sent) leaves the store on its old key, never on one WooCommerce deleted.
  if (pending.forMerchant) await keepReturnTicket(parts.store, keys.nonce, ticket);
  const now = new Date().toISOString();
  await parts.stores.save({
    platform: 'woocommerce',
    shop,
    url: pending.storeUrl,
    consumerKey: keys.consumerKey,
    consumerSecret: keys.consumerSecret,
    keyId: keys.keyId,
    keyPermissions: keys.keyPermissions,
    webhookSecret: before?.webhookSecret ?? randomBytes(32).toString('base64url'),
    // Connected again by the operator for themselves, it earns on their account again; for the merchant, on theirs.
    ...(pending.forMerchant ? { forMerchant: true } : {}),
    connectedAt: now,
    updatedAt: now,
  });
  parts.logger.info({ shop, keyPermissions: keys.keyPermissions }, 'WooCommerce store connected');
  return { ok: true, shop, reentry: false };
}

export function keyCallbackRoute(parts: WooCallbackParts): PlatformRoute {
  return {
    method: 'POST',
    path: '/auth/callback',
    maxBodyBytes: CALLBACK_LIMIT,
    async handle(request) {
      // WooCommerce posts application/json;charset=...; read as text whatever it says, then parsed strictly.
      const parsed = parseJsonLossless(Buffer.from(await request.arrayBuffer()).toString('utf8'));
      const kept = await keepWooKeys(parts, parsed.ok ? parsed.value : undefined);
      if (!kept.ok) {
        parts.logger.warn({ status: kept.status, reason: kept.reason }, 'a WooCommerce key callback was refused');
        return Response.json({ error: kept.reason }, { status: kept.status });
      }
      // After the answer is sent: WooCommerce is waiting on it before it can answer the bridge.
      if (!kept.reentry) setImmediate(() => parts.onConnected(kept.shop));
      return Response.json({ result: 'connected', shop: kept.shop }, { status: 200 });
    },
  };
}
