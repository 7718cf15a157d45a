// The one capability every platform has: its webhooks, verified and described before the answer and translated
// after it (platform-adapter.ts), with which of its shops are served and what it learns from each delivery.
import type { DeliveryInfo, PlatformAdapter } from '../platform-adapter.ts';

export interface Webhooks {
  /** Verifies and translates its webhooks, at /webhooks/<name>. */
  adapter: PlatformAdapter<unknown>;
  /** Why a delivery's shop is not served (acknowledged, nothing kept); undefined: served. */
  admitShop(shop: string, topic: string, info: DeliveryInfo): Promise<string | undefined>;
  /** Told of each delivery stored or found a duplicate, after the answer: what the platform learns from it. */
  onStored(info: DeliveryInfo, result: 'accepted' | 'duplicate'): Promise<void>;
}
