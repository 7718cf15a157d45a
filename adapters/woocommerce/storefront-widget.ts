// WooCommerce's storefront widget: the script the bridge serves at /woocommerce/storefront/widget.js?store=<shop>,
// which the WordPress plugin prints (deferred) on the store's pages: the shared launcher
// (adapters/shared/storefront-widget.ts) with WooCommerce's transport, which also fills the panels the plugin prints
// (`<div data-loyalty-points-panel>`: the My Account tab, the shortcode, the block). The transport asks the plugin's
// identity route on the store's own origin (its address and a REST nonce in #loyalty-bridge-config's data
// attributes; with the customer's cookies, as WordPress's REST API wants) for a fresh token at each call, kept
// nowhere, and sends it to the bridge as a bearer. A nonce WordPress refuses (403: a page cache served a guest's
// copy, or one older than the nonce's day) is replaced once by a fresh one from WordPress's admin-ajax rest-nonce.
// Not signed in (401, or no config): the store's name, for a guest.
import type { PlatformRoute } from '../../src/core/platform-module.ts';
import { widgetRoute } from '../shared/storefront-widget.ts';

/** WooCommerce's My Account page, where a customer signs in. */
const SIGN_IN_PATH = '/my-account/';

// Plain browser JavaScript, inside the shared prelude (store, pointsUrl are its).
const TRANSPORT = `  // What the plugin printed: the identity route's address and a REST nonce (never a token: a page may be cached).
  function config() {
    var node = document.getElementById('loyalty-bridge-config');
    return node
      ? {
          identity: node.getAttribute('data-identity-url'),
          nonce: node.getAttribute('data-rest-nonce'),
          nonceUrl: node.getAttribute('data-nonce-url'),
          proofUrl: node.getAttribute('data-proof-url'),
        }
      : {};
  }
  // A nonce fetched since the page was made: a cached page's may be a guest's, or a day old.
  var freshNonce;
  function askStore(url, method, nonce) {
    var headers = { accept: 'application/json' };
    if (nonce) headers['X-WP-Nonce'] = nonce;
    return fetch(url, { method: method, credentials: 'same-origin', cache: 'no-store', headers: headers });
  }
  // The store's REST route, with the page's nonce; on a 403 (not this visitor's nonce) once more with a fresh one.
  function askWithNonce(url, method) {
    var given = config();
    return askStore(url, method, freshNonce || given.nonce).then(function (response) {
      if (response.status !== 403) return response;
      return newNonce(given).then(function (nonce) {
        if (!nonce) return response;
        freshNonce = nonce;
        return askStore(url, method, nonce);
      });
    });
  }
  // WordPress's own admin-ajax action rest-nonce: a fresh REST nonce for whoever is signed in (not for a guest).
  function newNonce(given) {
    if (!given.nonceUrl) return Promise.resolve(undefined);
    return fetch(given.nonceUrl, { credentials: 'same-origin', cache: 'no-store' }).then(function (response) {
      return response.ok ? response.text() : undefined;
    }).then(function (text) {
      return text && /^[0-9a-f]{10}$/.test(text.trim()) ? text.trim() : undefined;
    });
  }
  // A fresh token for every call, never kept: it lives 5 minutes. undefined: a guest (the route answers 401).
  function customerToken() {
    var given = config();
    if (!given.identity) return Promise.resolve(undefined);
    return askWithNonce(given.identity, 'GET').then(function (response) {
      if (response.status === 401 || response.status === 403) return undefined;
      if (!response.ok) throw new Error('the store answered ' + response.status);
      return response.json().then(function (answer) {
        return answer && typeof answer.token === 'string' ? answer.token : undefined;
      });
    });
  }
  // The plugin mails the customer a link that proves their account's e-mail: the words it answers, either way.
  function proveContact() {
    var given = config();
    if (!given.proofUrl) return Promise.reject(new Error('no proof route'));
    return askWithNonce(given.proofUrl, 'POST').then(function (response) {
      return response.json().then(function (answer) {
        if (answer && typeof answer.message === 'string') return answer.message;
        throw new Error('the store answered ' + response.status);
      });
    });
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
