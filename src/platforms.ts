// Which platforms the configuration enables, built once for the bridge and
// the CLI alike: their webhook adapters, their APIs (shared by every caller,
// so that each store's rate limit is honoured by all of them together), and
// the order sources that resync and reconciliation read.
import type { PlatformAdapter } from '../adapters/adapter.ts';
import { BIGCOMMERCE_SCOPES, createBigCommerceAdapter, type BigCommerceAdapter } from '../adapters/bigcommerce/adapter.ts';
import { BigCommerceApi } from '../adapters/bigcommerce/rest-api.ts';
import { BC_SECRET_HEADER } from '../adapters/bigcommerce/verify.ts';
import { ShopifyAccess } from '../adapters/shopify/access.ts';
import { createShopifyAdapter, type ShopifyAdapter } from '../adapters/shopify/adapter.ts';
import { ShopifyAdminApis } from '../adapters/shopify/admin-api.ts';
import { fetchShopifyOrder, fetchShopifyOrders } from '../adapters/shopify/graphql-orders.ts';
import { syncShopifySubscriptions } from '../adapters/shopify/register.ts';
import { shopifyApp } from '../adapters/shopify/shopify-app.ts';
import { createWooAdapter, type WooAdapter } from '../adapters/woocommerce/adapter.ts';
import { fetchWooOrder, fetchWooOrders, fetchWooWebhooks, shopOfUrl, type WooRestOptions } from '../adapters/woocommerce/rest-api.ts';
import type { Shopify } from '@shopify/shopify-api';
import type { Config } from './config.ts';
import type { OrderSource, SubscriptionHealth, SubscriptionProblem } from './core/order-source.ts';
import type { LedgerStore } from './core/store/ledger-store.ts';

export const PLATFORMS = ['shopify', 'woocommerce', 'bigcommerce'] as const;
export type Platform = (typeof PLATFORMS)[number];

export interface ShopifyParts {
  access: ShopifyAccess;
  apis: ShopifyAdminApis;
  /** The library's app, when OAuth or the client credentials grant is configured. */
  app: Shopify | undefined;
  /** Where subscriptions point; undefined without SHOPIFY_APP_URL. */
  appUrl: string | undefined;
}

export interface Platforms {
  adapters: { shopify?: ShopifyAdapter; woocommerce?: WooAdapter; bigcommerce?: BigCommerceAdapter };
  adapterFor(platform: string): PlatformAdapter<unknown> | undefined;
  shopify: ShopifyParts | undefined;
  bigcommerce: BigCommerceApi | undefined;
  woocommerce: WooRestOptions | undefined;
  /** Order sources for resync and reconciliation: every platform with API access, webhook secret or not. */
  sources: OrderSource[];
}

export interface PlatformOverrides {
  /** Where a shop's Admin API answers (tests): https://<shop> otherwise. */
  shopifyAdminUrl?: (shop: string) => string;
}

export function wooRestOptions(config: Config): WooRestOptions | undefined {
  if (!config.WOOCOMMERCE_URL || !config.WOOCOMMERCE_CONSUMER_KEY || !config.WOOCOMMERCE_CONSUMER_SECRET) return undefined;
  return { url: config.WOOCOMMERCE_URL, consumerKey: config.WOOCOMMERCE_CONSUMER_KEY, consumerSecret: config.WOOCOMMERCE_CONSUMER_SECRET };
}

function shopifyParts(config: Config, store: LedgerStore, overrides: PlatformOverrides): ShopifyParts | undefined {
  const appUrl = shopifyAppUrl(config);
  const app =
    config.SHOPIFY_API_KEY && config.SHOPIFY_API_SECRET
      ? shopifyApp({ apiKey: config.SHOPIFY_API_KEY, apiSecretKey: config.SHOPIFY_API_SECRET, appUrl, scopes: config.SHOPIFY_SCOPES, apiVersion: config.SHOPIFY_API_VERSION })
      : undefined;
  if (!app && !(config.SHOPIFY_SHOP && config.SHOPIFY_ADMIN_TOKEN)) return undefined;
  const access = new ShopifyAccess({ store, app, ownShop: config.SHOPIFY_SHOP, legacyToken: config.SHOPIFY_ADMIN_TOKEN });
  const apis = new ShopifyAdminApis({ access, apiVersion: config.SHOPIFY_API_VERSION, ...(overrides.shopifyAdminUrl ? { baseUrl: overrides.shopifyAdminUrl } : {}) });
  return { access, apis, app, appUrl };
}

/** Where Shopify sends the merchant back and the webhooks: SHOPIFY_APP_URL, else the bridge's PUBLIC_URL. */
export const shopifyAppUrl = (config: Config): string | undefined => config.SHOPIFY_APP_URL ?? config.PUBLIC_URL;

export function buildPlatforms(config: Config, store: LedgerStore, overrides: PlatformOverrides = {}): Platforms {
  const shopify = shopifyParts(config, store, overrides);
  const woo = wooRestOptions(config);
  const bigcommerce =
    config.BIGCOMMERCE_STORE_HASH && config.BIGCOMMERCE_ACCESS_TOKEN
      ? new BigCommerceApi({ storeHash: config.BIGCOMMERCE_STORE_HASH, accessToken: config.BIGCOMMERCE_ACCESS_TOKEN, baseUrl: config.BIGCOMMERCE_API_URL.replace(/\/+$/, '') })
      : undefined;
  const secrets = [config.SHOPIFY_API_SECRET, config.SHOPIFY_API_SECRET_PREVIOUS].filter((secret): secret is string => Boolean(secret));
  const adapters: Platforms['adapters'] = {
    ...(config.SHOPIFY_API_SECRET ? { shopify: createShopifyAdapter({ apiSecrets: secrets, admin: shopify?.apis }) } : {}),
    ...(config.WOOCOMMERCE_WEBHOOK_SECRET ? { woocommerce: createWooAdapter({ secret: config.WOOCOMMERCE_WEBHOOK_SECRET, ...(config.WOOCOMMERCE_URL ? { url: config.WOOCOMMERCE_URL } : {}) }) } : {}),
    ...(config.BIGCOMMERCE_CLIENT_SECRET || config.BIGCOMMERCE_WEBHOOK_SECRET
      ? { bigcommerce: createBigCommerceAdapter({ clientSecret: config.BIGCOMMERCE_CLIENT_SECRET, headerSecret: config.BIGCOMMERCE_WEBHOOK_SECRET, api: bigcommerce }) }
      : {}),
  };

  const sources: OrderSource[] = [];
  if (shopify) {
    sources.push({
      platform: 'shopify',
      shops: () => shopify.access.shops(),
      fetchOrders: (shop, window) => fetchShopifyOrders(shopify.apis.for(shop), window),
      fetchOrder: (shop, orderId) => fetchShopifyOrder(shopify.apis.for(shop), orderId, 'shopify-resync'),
      checkSubscriptions: async (shop) => shopifySubscriptionHealth(shopify, shop),
    });
  }
  if (woo) {
    const shop = shopOfUrl(woo.url);
    sources.push({
      platform: 'woocommerce',
      shops: async () => [shop],
      fetchOrders: (_shop, window) => fetchWooOrders(woo, window),
      fetchOrder: (_shop, orderId) => fetchWooOrder(woo, orderId),
      checkSubscriptions: async () => wooWebhookHealth(woo, shop),
    });
  }
  if (bigcommerce) {
    sources.push({
      platform: 'bigcommerce',
      shops: async () => [bigcommerce.shop],
      fetchOrders: (_shop, window) => bigcommerce.orders(window),
      fetchOrder: (_shop, orderId) => bigcommerce.orderEvent(orderId),
      checkSubscriptions: async () => bigCommerceHookHealth(bigcommerce),
    });
  }
  return {
    adapters,
    adapterFor: (platform) => (adapters as Record<string, PlatformAdapter<unknown> | undefined>)[platform],
    shopify,
    bigcommerce,
    woocommerce: woo,
    sources,
  };
}

const now = () => new Date().toISOString();

/** Shopify: subscriptions are put right, not only reported (Shopify deletes a subscription whose deliveries keep failing). */
async function shopifySubscriptionHealth(shopify: ShopifyParts, shop: string): Promise<SubscriptionHealth> {
  if (!shopify.appUrl) {
    return { platform: 'shopify', shop, checkedAt: now(), healthy: 0, repaired: [], problems: [], error: 'SHOPIFY_APP_URL is not set, so the bridge cannot tell Shopify where to send webhooks' };
  }
  const result = await syncShopifySubscriptions(shopify.apis.for(shop), shopify.appUrl);
  return {
    platform: 'shopify',
    shop,
    checkedAt: now(),
    healthy: result.alreadyThere.length,
    repaired: [...result.created.map((topic) => `${topic}: created`), ...result.moved.map((topic) => `${topic}: moved to ${result.callbackUrl}`), ...result.upgraded.map((topic) => `${topic}: moved to API version ${result.apiVersion}`), ...result.removed.map((topic) => `${topic}: duplicate removed`)],
    problems: [],
  };
}

/** WooCommerce disables a webhook after deliveries fail (five in a row by default) and never turns it back on. */
async function wooWebhookHealth(woo: WooRestOptions, shop: string): Promise<SubscriptionHealth> {
  const webhooks = (await fetchWooWebhooks(woo)).filter((webhook) => webhook.delivery_url?.replace(/\/+$/, '').endsWith('/webhooks/woocommerce'));
  const problems: SubscriptionProblem[] = [];
  for (const webhook of webhooks) {
    if (webhook.status === 'disabled') {
      problems.push({
        kind: 'disabled',
        topic: webhook.topic,
        detail: `WooCommerce disabled its webhook "${webhook.name}" (${webhook.topic}, id ${webhook.id}) after deliveries to ${webhook.delivery_url} failed`,
        fix: 'In WordPress, WooCommerce > Settings > Advanced > Webhooks, open it, set Status to Active and save. Orders meanwhile are brought in by reconciliation',
      });
    } else if (webhook.status === 'paused') {
      problems.push({ kind: 'paused', topic: webhook.topic, detail: `the webhook "${webhook.name}" (${webhook.topic}) is paused`, fix: 'Set its Status to Active in WooCommerce > Settings > Advanced > Webhooks' });
    }
  }
  for (const topic of ['order.created', 'order.updated']) {
    if (!webhooks.some((webhook) => webhook.topic === topic)) {
      problems.push({ kind: 'missing', topic, detail: `no ${topic} webhook points to /webhooks/woocommerce`, fix: `Add one in WooCommerce > Settings > Advanced > Webhooks (README, Connecting WooCommerce)` });
    }
  }
  return { platform: 'woocommerce', shop, checkedAt: now(), healthy: webhooks.filter((webhook) => webhook.status === 'active').length, repaired: [], problems };
}

/** BigCommerce deactivates a hook after its deliveries keep failing (and after 90 days without events). */
async function bigCommerceHookHealth(api: BigCommerceApi): Promise<SubscriptionHealth> {
  const hooks = (await api.hooks()).filter((hook) => hook.destination?.replace(/\/+$/, '').endsWith('/webhooks/bigcommerce'));
  const problems: SubscriptionProblem[] = [];
  for (const hook of hooks.filter((candidate) => !candidate.is_active)) {
    problems.push({
      kind: 'deactivated',
      topic: hook.scope,
      detail: `BigCommerce deactivated the ${hook.scope} hook (id ${hook.id}) to ${hook.destination}`,
      fix: 'Run `loyalty-bridge register --platform bigcommerce` to turn it back on once the bridge answers at that address',
    });
  }
  for (const scope of BIGCOMMERCE_SCOPES) {
    if (!hooks.some((hook) => hook.scope.toLowerCase() === scope.toLowerCase())) {
      problems.push({ kind: 'missing', topic: scope, detail: `no ${scope} hook points to /webhooks/bigcommerce`, fix: 'Run `loyalty-bridge register --platform bigcommerce`' });
    }
  }
  return { platform: 'bigcommerce', shop: api.shop, checkedAt: now(), healthy: hooks.filter((hook) => hook.is_active).length, repaired: [], problems };
}

export interface HookRegistration {
  destination: string;
  created: string[];
  reactivated: string[];
  alreadyThere: string[];
}

/** Creates (or turns back on) the hooks the bridge needs, authenticated by its secret header. */
export async function registerBigCommerceHooks(api: BigCommerceApi, appUrl: string, headerSecret: string): Promise<HookRegistration> {
  const destination = `${appUrl.replace(/\/+$/, '')}/webhooks/bigcommerce`;
  const hooks = await api.hooks();
  const result: HookRegistration = { destination, created: [], reactivated: [], alreadyThere: [] };
  for (const scope of BIGCOMMERCE_SCOPES) {
    const existing = hooks.find((hook) => hook.scope.toLowerCase() === scope.toLowerCase() && hook.destination === destination);
    if (!existing) {
      await api.createHook({ scope, destination, is_active: true, headers: { [BC_SECRET_HEADER]: headerSecret } });
      result.created.push(scope);
    } else if (!existing.is_active || existing.headers?.[BC_SECRET_HEADER] !== headerSecret) {
      await api.updateHook(existing.id, { is_active: true, headers: { [BC_SECRET_HEADER]: headerSecret } });
      result.reactivated.push(scope);
    } else {
      result.alreadyThere.push(scope);
    }
  }
  return result;
}
