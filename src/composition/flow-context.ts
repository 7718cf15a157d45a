// What the platforms' flows that are not yet routes of their modules (src/http/<platform>-*.ts) are wired
// from: handed by main.ts to each platform's *-flows.ts, which is where that platform's wiring by hand lives.
import type { RequestHandler } from 'express';
import type { Config } from '../config.ts';
import type { Reconciler } from '../core/reconciler.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import type { Platforms } from './platforms.ts';

export interface FlowContext {
  config: Config;
  store: LedgerStore;
  platforms: Platforms;
  reconciler: Reconciler;
  logger: Logger;
  /** The operator's token (ADMIN_TOKEN, or this run's in sandbox mode). */
  adminToken: string | undefined;
  /** The admin API as a merchant's own page calls it (src/http/shop-admin-api.ts), behind each platform's door. */
  shopRoutes: RequestHandler;
  /** A store of this platform was connected or installed: read its recent orders, after the platform's request was answered. */
  storeAdded(platform: string): (shop: string) => Promise<void>;
}
