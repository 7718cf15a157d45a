// Which topics Shopify is seen delivering to a shop through the app's own
// configuration (shopify.app.toml's app-specific subscriptions). The Admin
// API does not list those, so only a delivery can show that the version of
// the configuration Shopify runs declares a topic: an operator may upgrade
// the bridge before `shopify app deploy` of its toml (protected customer
// data approval can take days). Until a topic is seen so on a shop, the
// shop-scoped subscription an earlier release made for it is kept (Shopify
// sends each event through both; the second copy is a duplicate by its
// X-Shopify-Event-Id), and the topic is not counted healthy without one.
//
// What counts (adapter.ts, viaAppConfiguration): for a topic whose body the
// configuration trims (include_fields), a signed body holding nothing else,
// duplicate or not; for app/uninstalled and app/scopes_update, whose bodies
// are whole, the subscription's name in X-Shopify-Name, which is not signed,
// so only on a delivery that is not a duplicate: a captured body sent again
// with that header added proves nothing.
//
// Kept per shop and topic, once, as a 'declared-delivery' record every
// bridge on the ledger reads; it names no person.
import type { DeliveryInfo } from '../../src/core/platform-adapter.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { DECLARED_FIELDS, SUBSCRIBED_TOPICS } from './topics.ts';

export interface DeclaredDelivery {
  platform: 'shopify';
  shop: string;
  topic: string;
  /** When the first such delivery was stored. */
  seenAt: string;
}

const recordId = (shop: string, topic: string) => `shopify:${shop}:${topic}`;

export class DeclaredDeliveries {
  readonly #store: LedgerStore;
  /** Already kept, so that a busy shop's deliveries write nothing more. */
  readonly #kept = new Set<string>();

  constructor(store: LedgerStore) {
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
    if (!(await this.#store.getRecord<DeclaredDelivery>('declared-delivery', id))) {
      await this.#store.putRecord<DeclaredDelivery>('declared-delivery', id, {
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
      if (
        this.#kept.has(recordId(shop, topic)) ||
        (await this.#store.getRecord<DeclaredDelivery>('declared-delivery', recordId(shop, topic)))
      )
        proven.add(topic);
    }
    const bySignedBody = [...proven].some((topic) => DECLARED_FIELDS.get(topic) !== undefined);
    return bySignedBody ? new Set(SUBSCRIBED_TOPICS) : proven;
  }
}
