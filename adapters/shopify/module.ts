// Shopify as the bridge needs it (src/core/platform-module.ts): its settings, its adapter, its order source,
// which shops it serves, its flows (install, the App URL: flows.ts) and its merchant page's door.
import type { DeliveryInfo } from '../../src/core/platform-adapter.ts';
import type { PlatformModule, PlatformWiring } from '../../src/core/platform-module.ts';
import { ShopifyAccess } from './access.ts';
import { createShopifyAdapter } from './adapter.ts';
import { ShopifyAdminApis } from './admin-api.ts';
import { AllowedShops } from './allowed-shops.ts';
import { ShopifyAppSignatures } from './app-signatures.ts';
import { DeclaredDeliveries } from './declared-deliveries.ts';
import { shopifyDemo } from './demo.ts';
import { shopifyFlows } from './flows.ts';
import { shopifyInstalls } from './installs.ts';
import { shopifyNotes } from './operator-notes.ts';
import { shopifyOrderSource } from './order-source.ts';
import { shopifySubscriptions } from './register.ts';
import { UNCONFIRMED } from './subscriptions.ts';
import { shopifySettingProblems, shopifySettings, type ShopifySettings } from './settings.ts';
import { shopifyApp } from './shopify-app.ts';
import { shopifyStorefront } from './storefront.ts';
import { COMPLIANCE_TOPICS } from './topics.ts';
import type { ShopifyParts } from './parts.ts';

export type { ShopifyParts } from './parts.ts';

export interface ShopifyOwn {
  shopify: ShopifyParts | undefined;
  /** The Shopify shops the bridge serves, whenever Shopify is configured at all. */
  allowed: AllowedShops | undefined;
}

/** Deliveries that only take data away, kept from any shop: a shop dropped from SHOPIFY_SHOPS may still have data here to erase. */
const FROM_ANY_SHOP: ReadonlySet<string> = new Set<string>(['app/uninstalled', ...COMPLIANCE_TOPICS]);

/** For the webhook route: why a shop's delivery is not kept, if it is not. */
export const admitShopifyShop =
  (allowed: AllowedShops | undefined, access: { hasAccess(shop: string): Promise<boolean> } | undefined) =>
  async (shop: string, topic: string, info: Pick<DeliveryInfo, 'unconfirmed'>): Promise<string | undefined> => {
    // Only the platform can confirm it, which needs the shop's token: without one it could only ever be recorded.
    if (info.unconfirmed && !(await access?.hasAccess(shop))) return info.unconfirmed;
    if (FROM_ANY_SHOP.has(topic)) return undefined;
    const allowance = await allowed?.check(shop);
    return allowance && !allowance.allowed ? allowance.reason : undefined;
  };

function shopifyParts(settings: ShopifySettings, wiring: PlatformWiring): ShopifyParts | undefined {
  const { store } = wiring;
  // Where Shopify sends the merchant back and the webhooks: SHOPIFY_APP_URL, else the bridge's PUBLIC_URL.
  const appUrl = settings.SHOPIFY_APP_URL ?? wiring.publicUrl;
  const appWith = (apiSecretKey: string | undefined) =>
    settings.SHOPIFY_API_KEY && apiSecretKey
      ? shopifyApp({
          apiKey: settings.SHOPIFY_API_KEY,
          apiSecretKey,
          appUrl,
          scopes: settings.SHOPIFY_SCOPES,
          apiVersion: settings.SHOPIFY_API_VERSION,
          embedded: settings.SHOPIFY_EMBEDDED,
        })
      : undefined;
  const app = appWith(settings.SHOPIFY_API_SECRET);
  // During a rotation Shopify may still sign with the previous secret.
  const previousApp = app ? appWith(settings.SHOPIFY_API_SECRET_PREVIOUS) : undefined;
  if (!app && !(settings.SHOPIFY_SHOP && settings.SHOPIFY_ADMIN_TOKEN)) return undefined;
  const access = new ShopifyAccess({
    store,
    app,
    previousApp,
    ownShop: settings.SHOPIFY_SHOP,
    legacyToken: settings.SHOPIFY_ADMIN_TOKEN,
  });
  const apis = new ShopifyAdminApis({
    access,
    apiVersion: settings.SHOPIFY_API_VERSION,
    ...(wiring.apiUrl ? { baseUrl: wiring.apiUrl } : {}),
  });
  const signatures = app ? new ShopifyAppSignatures(previousApp ? [app, previousApp] : [app]) : undefined;
  return {
    access,
    apis,
    app,
    previousApp,
    appUrl,
    signatures,
    embedded: settings.SHOPIFY_EMBEDDED,
    declared: new DeclaredDeliveries(store),
  };
}

/** The code name (src/core/platform-module.ts). */
const NAME = 'shopify';

export const shopifyModule = {
  name: NAME,
  names: { platform: 'Shopify', shop: 'shop', admin: 'your Shopify admin, under Apps' },
  settings: shopifySettings,
  checkSettings: shopifySettingProblems,
  build(settings, wiring) {
    const shopify = shopifyParts(settings, wiring);
    const allowed =
      shopify || settings.SHOPIFY_API_SECRET
        ? new AllowedShops({
            store: wiring.store,
            ownShop: settings.SHOPIFY_SHOP,
            listed: settings.SHOPIFY_SHOPS,
            openInstalls: settings.SHOPIFY_OPEN_INSTALLS,
          })
        : undefined;
    if (!allowed) return undefined;
    const secrets = [settings.SHOPIFY_API_SECRET, settings.SHOPIFY_API_SECRET_PREVIOUS].filter(
      (secret): secret is string => Boolean(secret),
    );
    return {
      own: { shopify, allowed },
      ...shopifyFlows({ platform: NAME, shopify, allowed, apiKey: settings.SHOPIFY_API_KEY, secrets }, wiring),
      ...(settings.SHOPIFY_API_SECRET
        ? {
            webhooks: {
              adapter: createShopifyAdapter({
                apiSecrets: secrets,
                admin: shopify?.apis,
                onScopesChanged: (shop, scopes) => {
                  wiring.logger.info(
                    { shop, scopes },
                    'Shopify says the app’s scopes changed; the shop’s subscriptions and scopes are checked again',
                  );
                  wiring.subscriptionsChanged(shop);
                },
              }),
              admitShop: admitShopifyShop(allowed, shopify?.access),
              // A delivery through the app's configuration lets the shop's own copy of that subscription go (subscriptions.ts).
              onStored: async (info: DeliveryInfo, result: 'accepted' | 'duplicate') =>
                shopify?.declared.note(info, result),
            },
          }
        : {}),
      ...(shopify
        ? {
            orders: {
              source: shopifyOrderSource(shopify, allowed, {
                bulkThreshold: settings.SHOPIFY_BULK_THRESHOLD,
                exclusive: (name, fn) => wiring.store.exclusive(name, fn),
              }),
              // Its shops are read from the start: installed and named ones are known at build.
              storesToRead: { configured: true, connected: async () => false },
            },
            installs: shopifyInstalls(shopify, allowed, wiring.logger),
            subscriptions: shopifySubscriptions(shopify),
          }
        : {}),
      notes: shopifyNotes(wiring.store),
      shops: {
        list: async () => [...((await shopify?.access.shops()) ?? []), ...(await allowed.named())],
        // Shopify's shops are named by their myshopify.com address, which the page shows as it is.
        storeName: async () => undefined,
        async chosenByOperator(shop) {
          const allowance = await allowed.check(shop);
          return allowance.allowed && allowance.why !== 'open';
        },
        prepare: async () => {},
      },
      // The storefront: behind the app proxy, which signs with the app's client secret.
      ...(shopify?.app
        ? shopifyStorefront({
            apps: [shopify.app, ...(shopify.previousApp ? [shopify.previousApp] : [])],
            allowed,
            access: shopify.access,
            apis: shopify.apis,
            onRefused: (reason, entrance) =>
              wiring.logger.info(
                { reason },
                entrance === 'app proxy'
                  ? 'a storefront request through the Shopify app proxy was refused'
                  : 'a customer account extension’s request was refused',
              ),
          })
        : {}),
    };
  },
  configured: (settings) => Boolean(settings.SHOPIFY_API_SECRET || settings.SHOPIFY_ADMIN_TOKEN),
  needs: {
    orders:
      'set SHOPIFY_API_KEY, SHOPIFY_API_SECRET and SHOPIFY_SHOP (or an installed shop), or SHOPIFY_SHOP and SHOPIFY_ADMIN_TOKEN',
    subscriptions:
      'set SHOPIFY_API_KEY and SHOPIFY_API_SECRET with SHOPIFY_SHOP (your own store) or install the app by OAuth; or SHOPIFY_SHOP and SHOPIFY_ADMIN_TOKEN',
  },
  demo: shopifyDemo,
  unconfirmedWhy: UNCONFIRMED,
  // Its records are the shared kinds alone; its shops are named one way only; its pages are the admin's own.
  records: {},
  shopName: null,
  look: null,
  sharedRecords: ['session', 'shop', 'allowed-shop', 'declared-delivery', 'callback-payload'],
} satisfies PlatformModule<typeof shopifySettings, ShopifyOwn>;
