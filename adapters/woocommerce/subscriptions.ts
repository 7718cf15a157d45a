// Keeping a store's webhooks alive. WooCommerce disables a webhook after more than five failures in a row
// and never retries, so after a short outage orders would come only through reconciliation. At each check
// the bridge turns its own disabled or paused ones back on and creates the missing ones; with a read-only
// key it only reports, with what a person must do.
import type { SubscriptionProblem } from '../../src/core/order-source.ts';
import {
  createWooWebhook,
  fetchWooWebhooks,
  updateWooWebhook,
  WooRestError,
  type WooRestClient,
  type WooWebhook,
} from './admin-api.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';

/** The topics the bridge subscribes to; the first two bring the orders, the others keep the trash honest. */
export const WOO_TOPICS = ['order.created', 'order.updated', 'order.deleted', 'order.restored'] as const;
const ESSENTIAL: readonly string[] = ['order.created', 'order.updated'];

export const WOO_WEBHOOK_PATH = '/webhooks/woocommerce';

export interface WooUpkeep {
  /** The bridge's own delivery URL (PUBLIC_URL/webhooks/woocommerce); unknown: nothing can be created. */
  deliveryUrl: string | undefined;
  /** The secret new webhooks are created with; unknown: nothing can be created. */
  secret: string | undefined;
  /** false: the key is known to be read-only, so nothing is even tried. */
  canWrite: boolean | undefined;
}

export interface WooUpkeepResult {
  healthy: number;
  repaired: string[];
  problems: SubscriptionProblem[];
}

const ours = (webhook: WooWebhook) => trimTrailing(webhook.delivery_url ?? '', '/').endsWith(WOO_WEBHOOK_PATH);
const MANUAL_FIX = 'In WordPress, WooCommerce > Settings > Advanced > Webhooks, open it, set Status to Active and save';

export async function keepWooWebhooks(client: WooRestClient, upkeep: WooUpkeep): Promise<WooUpkeepResult> {
  const webhooks = (await fetchWooWebhooks(client)).filter(ours);
  const result: WooUpkeepResult = { healthy: 0, repaired: [], problems: [] };
  let writable = upkeep.canWrite !== false;

  for (const webhook of webhooks) {
    if (webhook.status === 'active') {
      result.healthy++;
      continue;
    }
    const what =
      webhook.status === 'disabled'
        ? `WooCommerce disabled its webhook "${webhook.name}" (${webhook.topic}, id ${webhook.id}) after deliveries to ${webhook.delivery_url} failed`
        : `the webhook "${webhook.name}" (${webhook.topic}, id ${webhook.id}) is ${webhook.status}`;
    if (writable) {
      try {
        await updateWooWebhook(client, webhook.id, { status: 'active' });
        result.repaired.push(`${webhook.topic}: re-enabled webhook ${webhook.id} (it was ${webhook.status})`);
        result.healthy++;
        continue;
      } catch (error) {
        if (!(error instanceof WooRestError) || error.code !== 'read_only') throw error;
        writable = false;
      }
    }
    result.problems.push({
      kind: webhook.status === 'disabled' ? 'disabled' : 'paused',
      topic: webhook.topic,
      detail: what,
      fix: `${MANUAL_FIX}; or give the bridge a key with Read/Write access (connect the store again) and it will do so itself. Orders meanwhile are brought in by reconciliation`,
    });
  }

  let canCreate = writable && upkeep.deliveryUrl !== undefined && upkeep.secret !== undefined;
  for (const topic of WOO_TOPICS) {
    if (webhooks.some((webhook) => webhook.topic === topic)) continue;
    if (canCreate) {
      try {
        const created = await createWooWebhook(client, {
          name: `loyalty-bridge ${topic}`,
          topic,
          delivery_url: upkeep.deliveryUrl!,
          secret: upkeep.secret!,
          status: 'active',
        });
        result.repaired.push(`${topic}: created webhook ${created.id}`);
        result.healthy++;
        continue;
      } catch (error) {
        if (!(error instanceof WooRestError) || error.code !== 'read_only') throw error;
        canCreate = false; // the key is read-only: the other topics would be refused too
      }
    }
    if (!ESSENTIAL.includes(topic)) continue;
    result.problems.push({
      kind: 'missing',
      topic,
      detail: `no ${topic} webhook points to ${WOO_WEBHOOK_PATH}`,
      fix:
        upkeep.deliveryUrl === undefined
          ? 'Set PUBLIC_URL so the bridge can create it, or add one in WooCommerce > Settings > Advanced > Webhooks (docs/connect-woocommerce.md)'
          : 'Connect the store from the dashboard (Connect a WooCommerce store) so the bridge can create it, or add one in WooCommerce > Settings > Advanced > Webhooks (docs/connect-woocommerce.md)',
    });
  }
  return result;
}
