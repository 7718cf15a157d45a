// Which topics Shopify is seen delivering to a shop through the app's configuration (shopify.app.toml).
// The Admin API does not list app-specific subscriptions, so only a delivery shows that the configuration
// Shopify runs declares a topic; until then, the shop-scoped subscription of an earlier release is kept
// (subscriptions.ts). X-Shopify-Name is not signed, so it counts only on a delivery that is not a duplicate.
// Kept per shop and topic as a 'declared-delivery' record, which names no person.
import type { DeliveryInfo } from '../../src/core/platform-adapter.ts';
import { z } from 'zod';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import type { RecordRole } from '../../src/core/store/roles/records.ts';
import { DECLARED_FIELDS, SUBSCRIBED_TOPICS } from './topics.ts';

export interface DeclaredDelivery {
  platform: 'shopify';
  shop: string;
  topic: string;
  /** When the first such delivery was stored. */
  seenAt: string;
}

const recordId = (shop: string, topic: string) => `shopify:${shop}:${topic}`;
const KIND = recordType<DeclaredDelivery>(
  'declared-delivery',
  z.looseObject({ platform: z.literal('shopify'), shop: z.string(), topic: z.string(), seenAt: z.string() }),
  'shopify:',
);

export class DeclaredDeliveries {
  readonly #store: RecordRole;
  /** Already kept, so that a busy shop's deliveries write nothing more. */
  readonly #kept = new Set<string>();

  constructor(store: RecordRole) {
    this.#store = store;
  }

  /** Told of each delivery stored (accepted) or found to be a duplicate. */
  async note(
    info: Pick<DeliveryInfo, 'shop' | 'topic' | 'viaAppConfiguration'>,
    result: 'accepted' | 'duplicate',
  ): Promise<void> {
    const counts =
      info.viaAppConfiguration === 'body' || (info.viaAppConfiguration === 'name' && result === 'accepted');
    if (!counts) return;
    const id = recordId(info.shop, info.topic);
    if (this.#kept.has(id)) return;
    if (!(await this.#store.getRecord(KIND, id))) {
      await this.#store.putRecord(KIND, id, {
        platform: 'shopify',
        shop: info.shop,
        topic: info.topic,
        seenAt: new Date().toISOString(),
      });
    }
    this.#kept.add(id);
  }

  /**
   * The topics the app's configuration is seen to deliver to the shop. Shopify
   * runs one version of the configuration for all its topics: a body trimmed
   * to its fields (signed) shows that the version declaring every topic this
   * bridge declares is deployed, app/uninstalled among them, whose own
   * deliveries can show it only by an unsigned name (and which a captured body
   * could carry under any new id, since it acts once per install).
   */
  async proven(shop: string): Promise<Set<string>> {
    const proven = new Set<string>();
    for (const topic of SUBSCRIBED_TOPICS) {
      if (this.#kept.has(recordId(shop, topic)) || (await this.#store.getRecord(KIND, recordId(shop, topic))))
        proven.add(topic);
    }
    const bySignedBody = [...proven].some((topic) => DECLARED_FIELDS.get(topic) !== undefined);
    return bySignedBody ? new Set(SUBSCRIBED_TOPICS) : proven;
  }
}
