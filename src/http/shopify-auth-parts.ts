// What Shopify's ways in (shopify-auth.ts, and the App URL it mounts,
// shopify-app-url.ts) are built from: one declaration both import.
import type { AllowedShops } from '../../adapters/shopify/allowed-shops.ts';
import type { ShopifyAppSignatures } from '../../adapters/shopify/app-signatures.ts';
import type { Logger } from '../logger.ts';
import type { ShopifyParts } from '../composition/platforms.ts';
import type { BridgeShopTokens } from './bridge-shop-token.ts';
import type { ShopifyInstalled } from './shopify-installed.ts';
import type { LinkStore } from './shopify-link-once.ts';

export interface ShopifyAuthParts {
  shopify: ShopifyParts;
  allowed: AllowedShops;
  signatures: ShopifyAppSignatures;
  bridgeTokens: BridgeShopTokens;
  installed: ShopifyInstalled;
  /** SHOPIFY_EMBEDDED: the app lives in the Shopify admin. */
  embedded: boolean;
  /** The client id, which App Bridge is told. */
  apiKey: string;
  /** Where the signed App URLs already used outside the admin are kept (shopify-link-once.ts). */
  usedLinks: LinkStore;
  logger: Logger;
}
