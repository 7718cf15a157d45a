// loyalty-bridge register --platform shopify [--shop <shop>] | bigcommerce
// Puts the webhook subscriptions (Shopify) or hooks (BigCommerce) right by
// hand; the running bridge does the same by itself at start, after each
// install and on each reconciliation.
import type { Config } from '../config.ts';
import { openStore } from '../composition/open-store.ts';
import type { Logger } from '../logger.ts';
import { registerBigCommerceHooks } from '../../adapters/bigcommerce/subscriptions.ts';
import { syncShopifySubscriptions, UNCONFIRMED } from '../../adapters/shopify/subscriptions.ts';
import { subscriptionSource } from '../../adapters/shopify/order-source.ts';
import { buildPlatforms, type Platform } from '../composition/platforms.ts';
import { fail, out } from './common.ts';

export async function register(
  config: Config,
  logger: Logger,
  platform: Platform,
  shop: string | undefined,
): Promise<number> {
  if (platform === 'woocommerce')
    return fail(
      'register: connect the store instead (`loyalty-bridge connect --platform woocommerce --store <address>`, or the dashboard): the bridge then creates its webhooks and keeps them on; README.md says how',
    );
  const opened = await openStore(config, logger);
  try {
    await opened.store.open();
    const platforms = buildPlatforms(config, opened.store, {}, { logger });
    if (platform === 'shopify') {
      const shopify = platforms.shopify;
      if (!shopify)
        return fail(
          'register --platform shopify: set SHOPIFY_API_KEY and SHOPIFY_API_SECRET with SHOPIFY_SHOP (your own store) or install the app by OAuth; or SHOPIFY_SHOP and SHOPIFY_ADMIN_TOKEN',
        );
      if (!shopify.appUrl)
        return fail(
          'register --platform shopify: set SHOPIFY_APP_URL (or PUBLIC_URL) to the address Shopify can reach this bridge at',
        );
      const shops = shop ? [shop] : await shopify.access.shops();
      if (shops.length === 0)
        return fail(
          'register --platform shopify: no shop to register: set SHOPIFY_SHOP, or install the app on a shop first',
        );
      let failed = false;
      for (const each of shops) {
        const result = await syncShopifySubscriptions(
          shopify.apis.for(each),
          shopify.appUrl,
          await subscriptionSource(shopify, each),
          await shopify.declared.proven(each),
        );
        out(
          `Webhooks for ${each} go to ${result.callbackUrl} (API version ${result.apiVersion}; scopes ${result.scopes.join(', ') || 'none'})`,
        );
        if (result.declared.length > 0)
          out(`  delivered through the app's configuration (shopify.app.toml): ${result.declared.join(', ')}`);
        if (result.unconfirmed.length > 0) out(`  ${UNCONFIRMED}: ${result.unconfirmed.join(', ')}`);
        for (const topic of result.created) out(`  created   ${topic}`);
        for (const topic of result.moved) out(`  moved     ${topic}`);
        for (const topic of result.removed) out(`  removed   ${topic} (a duplicate)`);
        for (const topic of result.alreadyThere) out(`  present   ${topic}`);
        for (const problem of result.problems) out(`  !! ${problem.topic}: ${problem.detail}. ${problem.fix}.`);
        if (result.problems.length > 0) failed = true;
      }
      return failed ? 1 : 0;
    }
    const storeHash = shop ?? platforms.bigcommerce.environmentShop;
    const api = storeHash ? (await platforms.bigcommerce.get(storeHash))?.api : undefined;
    if (!api)
      return fail(
        shop
          ? `register --platform bigcommerce: the bridge has no access token for store ${shop}`
          : 'register --platform bigcommerce: set BIGCOMMERCE_STORE_HASH and BIGCOMMERCE_ACCESS_TOKEN (with the Information & settings scope)',
      );
    if (!config.PUBLIC_URL)
      return fail(
        'register --platform bigcommerce: set PUBLIC_URL to the https address BigCommerce can reach this bridge at (port 443)',
      );
    if (!config.BIGCOMMERCE_WEBHOOK_SECRET)
      return fail(
        'register --platform bigcommerce: set BIGCOMMERCE_WEBHOOK_SECRET (24 characters or more): the hooks carry it in a header, and the bridge checks it',
      );
    const result = await registerBigCommerceHooks(api, config.PUBLIC_URL, config.BIGCOMMERCE_WEBHOOK_SECRET);
    out(`Hooks for store ${api.shop} go to ${result.destination}`);
    for (const scope of result.created) out(`  created      ${scope}`);
    for (const scope of result.reactivated) out(`  reactivated  ${scope}`);
    for (const scope of result.alreadyThere) out(`  present      ${scope}`);
    return 0;
  } finally {
    await opened.store.close();
    await opened.release();
  }
}
