// Shopify's store page in the first run's demo (src/composition/demo-storefront.ts): the theme app extension's
// launcher (extensions/loyalty-theme, its Liquid rendered by theme-blocks.ts, its own script and stylesheet), and
// Shopify's app proxy in front of the bridge, as "Authenticate app proxies" (shopify.dev) describes it: a call to
// <proxy>/<path> reaches /shopify/storefront/<path> with shop, logged_in_customer_id (empty for a guest),
// path_prefix and timestamp added, and signature, the hex HMAC-SHA256 with the app's client secret of every other
// parameter as key=value (a key's values joined by commas), sorted, joined with nothing between. The bridge checks
// it with the module's own check (app-proxy.ts), with this run's secret.
import { createHmac, randomUUID } from 'node:crypto';
import type { Shopify } from '@shopify/shopify-api';
import type { DemoOrder, DemoStorefront } from '../../src/core/platform-module.ts';
import { routeQuery } from '../../src/core/platform-answers.ts';
import { checkAppProxy } from './app-proxy.ts';
import { shopifyApp } from './shopify-app.ts';
import { readExtension, renderBlock, schemaDefaults } from './theme-blocks.ts';

/** The demo customer's id, as Shopify names customers. */
export const DEMO_CUSTOMER_ID = '7001';
/** Shopify's default subpath prefix for the app's proxy (shopify.app.toml, [app_proxy]). */
const PATH_PREFIX = '/apps/loyalty';
const ASSETS: Readonly<Record<string, string>> = { 'loyalty.js': 'text/javascript', 'loyalty.css': 'text/css' };

/** The proxy's query, signed: the widget's own parameters, then Shopify's four, then the signature. */
export function signedProxyQuery(
  extra: ReadonlyArray<readonly [string, string]>,
  added: { shop: string; customerId: string | undefined; timestamp: number },
  secret: string,
): string {
  const pairs: Array<readonly [string, string]> = [
    ...extra,
    ['shop', added.shop],
    ['logged_in_customer_id', added.customerId ?? ''],
    ['path_prefix', PATH_PREFIX],
    ['timestamp', String(added.timestamp)],
  ];
  const byKey = new Map<string, string[]>();
  for (const [key, value] of pairs) byKey.set(key, [...(byKey.get(key) ?? []), value]);
  const text = [...byKey]
    .map(([key, values]) => `${key}=${values.join(',')}`)
    .sort()
    .join('');
  const query = new URLSearchParams(pairs.map(([key, value]): [string, string] => [key, value]));
  query.append('signature', createHmac('sha256', secret).update(text).digest('hex'));
  return query.toString();
}

/** A delivery's headers, as Shopify signs its webhooks (the HMAC-SHA256 of the body, base64, with the app's secret). */
export function shopifyDeliveryHeaders(
  delivery: { topic: string; body: string; shop: string; at: string },
  secret: string,
): Record<string, string> {
  return {
    'x-shopify-hmac-sha256': createHmac('sha256', secret).update(delivery.body).digest('base64'),
    'x-shopify-topic': delivery.topic,
    'x-shopify-shop-domain': delivery.shop,
    'x-shopify-api-version': '2026-10',
    'x-shopify-webhook-id': randomUUID(),
    'x-shopify-triggered-at': delivery.at,
  };
}

export function shopifyDemoStorefront(parts: {
  shop: string;
  customer: DemoOrder['customer'];
  paidStep: unknown;
}): DemoStorefront {
  const { shop } = parts;
  // The module's check takes the app as @shopify/shopify-api knows it: one for this run's secret.
  const apps = new Map<string, Shopify>();
  const appFor = (secret: string) => {
    const app =
      apps.get(secret) ??
      shopifyApp({ apiKey: 'loyalty-bridge-demo', apiSecretKey: secret, scopes: [], apiVersion: '2026-10' });
    apps.set(secret, app);
    return app;
  };
  return {
    customer: { id: DEMO_CUSTOMER_ID, of: parts.customer },
    paidStep: parts.paidStep,
    currency: 'USD',
    sidePath: PATH_PREFIX,
    originPaths: [],
    async asker(request, secret) {
      const checked = await checkAppProxy([appFor(secret)], routeQuery(request));
      if (!checked.ok || checked.shop !== shop) return { kind: 'refused' };
      return checked.customerId ? { kind: 'customer', shop, customerId: checked.customerId } : { kind: 'guest', shop };
    },
    widget({ assetBase, side, signInUrl }) {
      const source = readExtension('blocks/points-launcher.liquid');
      const settings = { ...schemaDefaults(source), proxy_path: side };
      const body = renderBlock(
        source,
        {
          routes: { account_login_url: signInUrl },
          template: { name: 'index' },
          block: { id: 'demo-launcher', settings, shopify_attributes: '' },
        },
        assetBase,
      );
      return { head: `<link rel="stylesheet" href="${assetBase}loyalty.css">`, body };
    },
    asset(name) {
      const contentType = ASSETS[name];
      return contentType ? { contentType, body: readExtension(`assets/${name}`) } : undefined;
    },
    serve({ path, query, customerId, secret }) {
      // Segments of letters alone, as the widget's paths are: nothing that could climb out of the storefront's routes.
      if (!/^(\/[A-Za-z0-9_-]+)+$/.test(path)) return undefined;
      const timestamp = Math.floor(Date.now() / 1000);
      return { forward: `/storefront${path}?${signedProxyQuery(query, { shop, customerId, timestamp }, secret)}` };
    },
    // customers/data_request, as "Privacy law compliance" (shopify.dev) gives its body: Shopify sends it when a
    // customer asks the store's owner for their data.
    dataRequest({ id, orderIds, secret, at }) {
      const { email, phone } = parts.customer;
      const body = JSON.stringify({
        shop_id: 954889,
        shop_domain: shop,
        orders_requested: orderIds,
        customer: { id: Number(DEMO_CUSTOMER_ID), email, phone },
        data_request: { id },
      });
      return { body, headers: shopifyDeliveryHeaders({ topic: 'customers/data_request', body, shop, at }, secret) };
    },
  };
}
