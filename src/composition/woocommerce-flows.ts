// WooCommerce's flows wired by hand until they are routes of its module: the key callback of its app
// authentication and its store pages under /woocommerce (src/http/woocommerce-connect.ts, woocommerce-pages.ts),
// and the door of those pages, a merchant signing in by approving in their store's WordPress.
import express, { type RequestHandler } from 'express';
import { wooCallbackRoutes } from '../http/woocommerce-connect.ts';
import { wooPageTokens, wooStorePages } from '../http/woocommerce-pages.ts';
import { wooModule } from '../../adapters/woocommerce/module.ts';
import type { FlowContext } from './flow-context.ts';

export async function wooFlows({
  config,
  store,
  platforms,
  logger,
  shopRoutes,
  storeAdded,
}: FlowContext): Promise<{ routes: express.Router; door: RequestHandler | undefined }> {
  const pages = wooStorePages({
    store,
    stores: platforms.woocommerce,
    publicUrl: config.PUBLIC_URL,
    appName: config.WOOCOMMERCE_APP_NAME,
    addresses: platforms.storeAddresses,
    tokens: await wooPageTokens(store, config.PUBLIC_URL),
    shopRoutes,
    logger,
  });
  const callbacks = wooCallbackRoutes({
    store,
    stores: platforms.woocommerce,
    logger,
    addresses: platforms.storeAddresses,
    onConnected: storeAdded(wooModule.name),
  });
  return { routes: express.Router().use(callbacks, pages.routes), door: pages.door };
}
