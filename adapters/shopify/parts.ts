// The Shopify parts the module builds once (module.ts) and its flows and order source take.
import type { Shopify } from '@shopify/shopify-api';
import type { ShopifyAccess } from './access.ts';
import type { ShopifyAdminApis } from './admin-api.ts';
import type { ShopifyAppSignatures } from './app-signatures.ts';
import type { DeclaredDeliveries } from './declared-deliveries.ts';

export interface ShopifyParts {
  access: ShopifyAccess;
  apis: ShopifyAdminApis;
  /** The library's app, when OAuth or the client credentials grant is configured. */
  app: Shopify | undefined;
  /** The library with the previous client secret, during a rotation: Shopify may still sign with it. */
  previousApp: Shopify | undefined;
  /** Where subscriptions point; undefined without SHOPIFY_APP_URL. */
  appUrl: string | undefined;
  /** What Shopify signs for the app (the App URL, session tokens), checked with the current and previous secret; with the app only. */
  signatures: ShopifyAppSignatures | undefined;
  /** SHOPIFY_EMBEDDED. */
  embedded: boolean;
  /** Which topics Shopify is seen delivering to each shop through the app's configuration. */
  declared: DeclaredDeliveries;
}
