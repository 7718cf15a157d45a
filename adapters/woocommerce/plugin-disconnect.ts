// POST /woocommerce/plugin/disconnect: the plugin's Disconnect in wp-admin tells the bridge, signed under the store's
// key for that purpose alone (docs/wordpress-plugin.md §5), and the bridge forgets the key: a copy of it left
// anywhere (a backup of the site's options) signs nothing that opens anything any more. Only the key that signed
// goes, in one step with the check: a key made by a connect since stays. Without its plugin the store cannot say who
// its customers are, so its storefront is closed as the merchant's switch closes it: off, and its open coupons
// removed while the bridge's REST key still works (those already used at checkout stay held for their orders).
// The body is small and read only after its length is capped; every refusal is the same 400, naming no store.
import type { PlatformRoute, PlatformWiring } from '../../src/core/platform-module.ts';
import type { RecordRole } from '../../src/core/store/ledger-store.ts';
import type { Logger } from '../../src/logger.ts';
import { forgetPluginKey, pluginKeyOf } from './plugin-keys.ts';
import { DISCONNECT_PURPOSE, readPayload, signedPayload } from './plugin-signature.ts';

export const PLUGIN_DISCONNECT_PATH = '/plugin/disconnect';
/** A signed disconnect is good this long after its iat: sent at once by the plugin, replayed later it opens nothing. */
const FRESH_SECONDS = 120;
const MAX_BODY_BYTES = 4096;

// A function: a Response's body is read once.
const refused = (): Response =>
  Response.json({ error: 'this is not a disconnect the store’s plugin signed' }, { status: 400 });

export function pluginDisconnectRoute({
  store,
  logger,
  storefrontClosed,
  now = () => new Date(),
}: {
  store: Pick<RecordRole, 'getRecord' | 'changeRecord'>;
  logger: Logger;
  storefrontClosed: PlatformWiring['storefrontClosed'];
  now?: () => Date;
}): PlatformRoute {
  return {
    method: 'POST',
    path: PLUGIN_DISCONNECT_PATH,
    maxBodyBytes: MAX_BODY_BYTES,
    async handle(request) {
      let sent: unknown;
      try {
        sent = JSON.parse(Buffer.from(await request.arrayBuffer()).toString('utf8'));
      } catch {
        return refused();
      }
      const { payload, sig } = (typeof sent === 'object' && sent !== null ? sent : {}) as Record<string, unknown>;
      if (typeof payload !== 'string' || typeof sig !== 'string') return refused();
      // Read unsigned only to learn which store's key checks it.
      const shop = readPayload(payload)?.store;
      if (typeof shop !== 'string' || shop === '') return refused();
      const key = await pluginKeyOf(store, shop);
      if (!key) return refused();
      const signed = signedPayload(DISCONNECT_PURPOSE, payload, sig, key.key);
      if (!signed || signed.purpose !== 'disconnect' || signed.keyId !== key.keyId) return refused();
      const iat = signed.iat;
      if (typeof iat !== 'number' || Math.abs(now().getTime() / 1000 - iat) > FRESH_SECONDS) return refused();
      if (await forgetPluginKey(store, shop, key.keyId)) {
        logger.info({ shop, keyId: key.keyId }, 'a store’s WordPress plugin disconnected; its key opens nothing now');
        await storefrontClosed(shop, 'the store’s WordPress plugin, disconnected in wp-admin');
      }
      return Response.json({ disconnected: true }, { status: 200 });
    },
  };
}
