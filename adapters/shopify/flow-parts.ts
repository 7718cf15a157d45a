// What Shopify's flows (install.ts, app-url.ts, bounce.ts, door.ts) are built from: one declaration all import.
import type { Shopify } from '@shopify/shopify-api';
import type { Logger } from '../../src/logger.ts';
import type { AllowedShops } from './allowed-shops.ts';
import type { ShopifyAppSignatures } from './app-signatures.ts';
import type { ShopifyInstalled } from './installed.ts';
import type { LinkStore } from './link-once.ts';
import type { ShopifyParts } from './parts.ts';

export interface ShopifyFlowParts {
  shopify: ShopifyParts;
  /** The library's app (OAuth, shop names, the embedded app's address). */
  app: Shopify;
  allowed: AllowedShops;
  signatures: ShopifyAppSignatures;
  installed: ShopifyInstalled;
  /** SHOPIFY_EMBEDDED: the app lives in the Shopify admin. */
  embedded: boolean;
  /** The client id, which App Bridge is told. */
  apiKey: string;
  /** Where the signed App URLs already used outside the admin are kept (link-once.ts). */
  usedLinks: LinkStore;
  logger: Logger;
}

/** What the merchant is told when the bridge may not keep a token (no SECRETS_KEY outside sandbox mode). */
export const KEY_MISSING =
  'loyalty-bridge cannot keep access to this shop yet: its operator has to set SECRETS_KEY (the bridge’s log says how)';
