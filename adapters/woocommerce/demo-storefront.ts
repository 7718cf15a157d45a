// WooCommerce's store page in the first run's demo (src/composition/demo-storefront.ts): the widget a store's pages
// load from the bridge (storefront-widget.ts, the script the WordPress plugin prints, its text unchanged) on a script
// tag with the settings the plugin puts there (wordpress/loyalty-bridge/includes/storefront.php), and the plugin's
// part of the site played for the demo's site alone: its identity route (includes/identity-route.php), which signs
// the signed-in customer under the site's plugin key, and WordPress's own REST nonce (admin-ajax's rest-nonce, and
// the check WordPress makes of X-WP-Nonce before a REST route sees a cookie's user). The site's plugin key is made
// from this run's secret: no plugin was connected, and none can sign for the demo's site once the demo stops. The
// bridge checks the token with the module's own check (plugin-identity.ts).
import { createHmac } from 'node:crypto';
import type { DemoOrder, DemoStorefront } from '../../src/core/platform-module.ts';
import { IDENTITY_LIFETIME_SECONDS, wooCustomerAsker } from './plugin-identity.ts';
import { IDENTITY_PURPOSE, pluginSignature } from './plugin-signature.ts';
import { wooWidgetScript } from './storefront-widget.ts';

/** The demo customer's WordPress user id. */
export const DEMO_CUSTOMER_ID = '14';
/** The WordPress site below the page: its front (home_url) and its wp-admin below it. */
const SITE_PATH = '/wp';
const IDENTITY_ROUTE = '/loyalty-bridge/v1/identity';
const DEMO_KEY_ID = 'pk_demo';

/** The demo site's plugin key for this run: 32 bytes, as a connect makes them, from this run's secret. */
export const demoPluginKey = (secret: string) => ({
  keyId: DEMO_KEY_ID,
  key: createHmac('sha256', secret).update('loyalty-bridge woocommerce demo plugin key').digest('base64url'),
});

/** WordPress's REST nonce for whoever is signed in (a guest has one too): ten hex digits, as wp_create_nonce's. */
const restNonce = (secret: string, customerId: string | undefined) =>
  createHmac('sha256', secret)
    .update(`wp_rest ${customerId ?? '0'}`)
    .digest('hex')
    .slice(0, 10);

const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

const json = (status: number, body: unknown) => ({
  status,
  contentType: 'application/json',
  body: JSON.stringify(body),
});

/** What includes/identity-route.php signs for the signed-in customer: "<payload>.<signature>", base64url both. */
export function demoIdentityToken(
  at: { shop: string; customerId: string; email: string; secret: string },
  nowS = Math.floor(Date.now() / 1000),
): string {
  const { keyId, key } = demoPluginKey(at.secret);
  const payload = Buffer.from(
    JSON.stringify({
      purpose: 'storefront-identity',
      store: at.shop,
      keyId,
      customerId: at.customerId,
      email: at.email,
      // The demo's customer proved their address when their account was made.
      emailProven: true,
      iat: nowS,
      exp: nowS + IDENTITY_LIFETIME_SECONDS,
    }),
  ).toString('base64url');
  return `${payload}.${pluginSignature(IDENTITY_PURPOSE, payload, key)}`;
}

export function wooDemoStorefront(parts: {
  shop: string;
  customer: DemoOrder['customer'];
  paidStep: unknown;
}): DemoStorefront {
  const { shop, customer } = parts;
  let script: string | undefined;
  return {
    customer: { id: DEMO_CUSTOMER_ID, of: customer },
    paidStep: parts.paidStep,
    currency: 'EUR',
    sidePath: SITE_PATH,
    originPaths: [],
    asker(request, secret) {
      const keyOf = async (asked: string) => (asked === shop ? demoPluginKey(secret) : undefined);
      return wooCustomerAsker({ keyOf, served: async (asked) => asked === shop })(request);
    },
    widget({ assetBase, side, signInUrl, customerId, secret }) {
      // The tag as the plugin's script_loader_tag writes it: the bridge's widget, deferred, with the site's settings.
      const settings = {
        id: 'loyalty-bridge-widget-js',
        src: `${assetBase}widget.js?store=${encodeURIComponent(shop)}`,
        'data-site': `${side}/`,
        'data-admin': `${side}/wp-admin/`,
        'data-rest-nonce': restNonce(secret, customerId),
        'data-account': signInUrl,
      };
      const tag = Object.entries(settings)
        .map(([name, value]) => ` ${name}="${attribute(value)}"`)
        .join('');
      return { head: '', body: `<script${tag} defer></script>` };
    },
    asset(name) {
      if (name !== 'widget.js') return undefined;
      // Its points route on the page's own origin: the bridge serves the page.
      script ??= wooWidgetScript('');
      return { contentType: 'text/javascript', body: script };
    },
    serve({ method, path, query, headers, customerId, secret }) {
      const asked = new Map(query);
      const nonce = headers['x-wp-nonce'];
      if (method === 'GET' && path === '/' && asked.get('rest_route') === IDENTITY_ROUTE) {
        // WordPress takes a cookie's user only with its nonce: none is a guest's call, a wrong one is refused.
        if (nonce !== undefined && nonce !== restNonce(secret, customerId))
          return json(403, {
            code: 'rest_cookie_invalid_nonce',
            message: 'Cookie check failed',
            data: { status: 403 },
          });
        if (nonce === undefined || customerId === undefined)
          return json(401, {
            code: 'rest_not_logged_in',
            message: 'Sign in to see your points.',
            data: { status: 401 },
          });
        return json(200, { token: demoIdentityToken({ shop, customerId, email: customer.email, secret }) });
      }
      if (method === 'GET' && path === '/wp-admin/admin-ajax.php' && asked.get('action') === 'rest-nonce')
        return customerId === undefined
          ? { status: 400, contentType: 'text/html', body: '0' }
          : { status: 200, contentType: 'text/html', body: restNonce(secret, customerId) };
      return undefined;
    },
    // WordPress keeps a customer's data request itself (Tools, Export Personal Data), and sends the bridge none.
    dataRequest: undefined,
  };
}
