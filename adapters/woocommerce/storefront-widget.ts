// WooCommerce's storefront widget: the script the bridge serves at /woocommerce/storefront/widget.js?store=<shop>,
// which the WordPress plugin prints (deferred) on the store's pages: the shared launcher
// (adapters/shared/storefront-widget.ts) with WooCommerce's transport, which also fills the panels the plugin prints
// (`<div data-loyalty-points-panel>`: the My Account tab, the shortcode, the block). The transport asks the plugin's
// identity route on the store's own origin (its address and a REST nonce in #loyalty-bridge-config's data
// attributes; with the customer's cookies, as WordPress's REST API wants) for a fresh token at each call, kept
// nowhere, and sends it to the bridge as a bearer. Not signed in (401, or no config): the store's name, for a guest.
import type { PlatformRoute } from '../../src/core/platform-module.ts';
import { widgetRoute } from '../shared/storefront-widget.ts';

/** WooCommerce's My Account page, where a customer signs in. */
const SIGN_IN_PATH = '/my-account/';

// Plain browser JavaScript, inside the shared prelude (store, pointsUrl are its).
const TRANSPORT = `  // What the plugin printed: the identity route's address and a REST nonce (never a token: a page may be cached).
  function config() {
    var node = document.getElementById('loyalty-bridge-config');
    return node ? { identity: node.getAttribute('data-identity-url'), nonce: node.getAttribute('data-rest-nonce') } : {};
  }
  // A fresh token for every call, never kept: it lives 5 minutes. undefined: a guest (the route answers 401).
  function customerToken() {
    var given = config();
    if (!given.identity) return Promise.resolve(undefined);
    var headers = { accept: 'application/json' };
    if (given.nonce) headers['X-WP-Nonce'] = given.nonce;
    return fetch(given.identity, { credentials: 'same-origin', cache: 'no-store', headers: headers }).then(
      function (response) {
        if (response.status === 401 || response.status === 403) return undefined;
        if (!response.ok) throw new Error('the store answered ' + response.status);
        return response.json().then(function (answer) {
          return answer && typeof answer.token === 'string' ? answer.token : undefined;
        });
      },
    );
  }`;

/** GET /woocommerce/storefront/widget.js: the script, built once when the route is. */
export function wooWidgetRoute(bridgeUrl: string): PlatformRoute {
  return widgetRoute({
    platformName: 'WooCommerce',
    platform: 'woocommerce',
    bridgeUrl,
    signInPath: SIGN_IN_PATH,
    transport: TRANSPORT,
    inlinePanels: true,
  });
}
