// POST /woocommerce/auth/callback, where WooCommerce sends a store's new key once the merchant approves
// (adapters/woocommerce/connect.ts). Only a nonce the bridge issued, unused and unexpired, is accepted. The key
// is kept, the answer is exactly 200 (WooCommerce deletes the key on anything else), and only then are the
// webhooks made: WooCommerce waits on this request inside its own, and a small site's one PHP worker could not
// answer the bridge meanwhile. A re-entry's key is only offered, for the browser's return to try.
import { wooModule } from '../../adapters/woocommerce/module.ts';
import { randomBytes } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { takeWooCallback } from '../../adapters/woocommerce/connect.ts';
import { keepReturnTicket } from '../../adapters/woocommerce/connect-return.ts';
import { storeAddressProblem } from '../../adapters/woocommerce/store-address.ts';
import { wooConnectionId, type WooConnection, type WooStores } from '../../adapters/woocommerce/stores.ts';
import { parseJsonLossless } from '../../adapters/shared/json.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import { userAddressRefusal, type UserAddressPolicy } from '../net/user-address.ts';

/** Why a connect cannot start, or undefined when it can: WooCommerce sends keys only to an https callback_url. */
export function wooConnectProblem(publicUrl: string | undefined): string | undefined {
  if (!publicUrl)
    return 'Set PUBLIC_URL to the bridge’s public https address: WooCommerce sends the store’s keys there';
  if (!publicUrl.startsWith('https://'))
    return `PUBLIC_URL must be https: WooCommerce sends the store’s keys only to an https callback (it is ${publicUrl})`;
  return undefined;
}

export interface WooCallbackParts {
  store: LedgerStore;
  stores: WooStores;
  logger: Logger;
  /** Which store addresses may be connected: asked again now, since the setting may have changed since the connect began. */
  addresses: UserAddressPolicy;
  /** After the answer: the store's webhooks made and its recent orders read. */
  onConnected(shop: string): Promise<void>;
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
  const before = await parts.store.getRecord<WooConnection>('session', wooConnectionId(shop));
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
    platform: wooModule.name,
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
  parts.logger.info(
    { platform: wooModule.name, shop, keyPermissions: keys.keyPermissions },
    'WooCommerce store connected',
  );
  return { ok: true, shop, reentry: false };
}

export function wooCallbackRoutes(parts: WooCallbackParts): express.Router {
  const router = express.Router();
  // WooCommerce posts application/json;charset=...; read as text whatever it says, then parsed strictly.
  router.post(
    '/auth/callback',
    express.text({ type: () => true, limit: '16kb' }),
    async (req: Request, res: Response) => {
      const parsed = typeof req.body === 'string' ? parseJsonLossless(req.body) : { ok: false as const };
      const kept = await keepWooKeys(parts, parsed.ok ? parsed.value : undefined);
      if (!kept.ok) {
        parts.logger.warn(
          { platform: wooModule.name, status: kept.status, reason: kept.reason },
          'a WooCommerce key callback was refused',
        );
        return void res.status(kept.status).json({ error: kept.reason });
      }
      res.status(200).json({ result: 'connected', shop: kept.shop });
      if (kept.reentry) return;
      void parts
        .onConnected(kept.shop)
        .catch((error: unknown) =>
          parts.logger.warn(
            { err: error, shop: kept.shop },
            'could not set the connected store up yet; the next reconciliation tries again',
          ),
        );
    },
  );
  return router;
}
