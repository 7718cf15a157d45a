// Reading a platform's orders from its API: for resync and reconciliation.
import type { OrderSource } from '../order-source.ts';

export interface Orders {
  source: OrderSource;
  /**
   * Whether the source has a store to read: one configured (known at build), or one connected since (asked when
   * the bridge looks for stores). A platform whose stores are known at build says configured, and none connected.
   */
  storesToRead: { configured: boolean; connected(): Promise<boolean> };
}
