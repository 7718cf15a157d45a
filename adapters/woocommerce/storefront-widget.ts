// WooCommerce's storefront widget: the script the bridge serves at /woocommerce/storefront/widget.js?store=<shop>,
// which the WordPress plugin prints (deferred) on the store's pages: the shared launcher
// (adapters/shared/storefront-widget.ts) with WooCommerce's transport, which also fills the panels the plugin prints
// (`<div data-loyalty-points-panel>`: the My Account tab, the shortcode, the block). The transport asks the plugin's
// identity route on the store's own origin (with the customer's cookies and a REST nonce, as WordPress's REST API
// wants) for a fresh token at each call, kept nowhere, and sends it to the bridge as a bearer. A nonce WordPress
// refuses (403: a page cache served a guest's copy, or one older than the nonce's day) is replaced once by a fresh
// one from WordPress's admin-ajax rest-nonce. Not signed in (401), or no settings: the store's name, for a guest.
//
// Its settings come from its own script tag alone (data-site, data-admin, data-rest-nonce, data-account: the plugin's
// script_loader_tag), never from an element of the page, which a post can carry (issue 65). And whatever they say, it
// calls only the three addresses it builds itself on the page's own origin: the plugin's identity and e-mail proof
// routes (?rest_route=, which every WordPress answers) and admin-ajax's rest-nonce.
import type { PlatformRoute } from '../../src/core/platform-module.ts';
import { widgetRoute, widgetScript } from '../shared/storefront-widget.ts';

/** WooCommerce's My Account page, where a customer signs in. */
const SIGN_IN_PATH = '/my-account/';

// Plain browser JavaScript, inside the shared prelude (store, pointsUrl are its).
const TRANSPORT = `  // The store's own routes, from what the plugin put on this script's tag: where the site's front and its wp-admin
  // are, each a directory of this page's origin, and a REST nonce (never a token: a page may be cached).
  function storeRoutes() {
    var site = ownDirectory(script && script.getAttribute('data-site'), /^\\/(?:[\\w~-][\\w.~-]*\\/)*$/);
    var admin = ownDirectory(script && script.getAttribute('data-admin'), /^\\/(?:[\\w~-][\\w.~-]*\\/)*wp-admin\\/$/);
    var nonce = script && script.getAttribute('data-rest-nonce');
    return {
      identity: site && site + '?rest_route=/loyalty-bridge/v1/identity',
      proof: site && site + '?rest_route=/loyalty-bridge/v1/email-proof',
      nonceUrl: admin && admin + 'admin-ajax.php?action=rest-nonce',
      nonce: nonce && /^[0-9a-f]{10}$/.test(nonce) ? nonce : undefined,
    };
  }
  // A directory of this page's origin, of the shape given, with no query, fragment or user; a ".php/" in its path
  // would be a script reached by its path info, never a directory.
  function ownDirectory(value, shape) {
    if (!value) return undefined;
    var url;
    try {
      url = new URL(value, window.location.href);
    } catch (error) {
      return undefined;
    }
    if (url.origin !== window.location.origin || url.search || url.hash || url.username || url.password) return undefined;
    return shape.test(url.pathname) && !/\\.php\\//i.test(url.pathname) ? url.origin + url.pathname : undefined;
  }
  // Where a guest signs in: My Account where the plugin says it is (a site in a directory has it there, and
  // WooCommerce names the page in the site's language), if that is a page of this origin; /my-account/ otherwise.
  var account = ownPage(script && script.getAttribute('data-account'));
  if (account) data.words.signInUrl = account;
  function ownPage(value) {
    if (!value) return undefined;
    try {
      var url = new URL(value, window.location.href);
      return url.origin === window.location.origin && !url.username && !url.password ? url.href : undefined;
    } catch (error) {
      return undefined;
    }
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
    var routes = storeRoutes();
    return askStore(url, method, freshNonce || routes.nonce).then(function (response) {
      if (response.status !== 403) return response;
      return newNonce(routes).then(function (nonce) {
        if (!nonce) return response;
        freshNonce = nonce;
        return askStore(url, method, nonce);
      });
    });
  }
  // WordPress's own admin-ajax action rest-nonce: a fresh REST nonce for whoever is signed in (not for a guest).
  function newNonce(routes) {
    if (!routes.nonceUrl) return Promise.resolve(undefined);
    return fetch(routes.nonceUrl, { credentials: 'same-origin', cache: 'no-store' }).then(function (response) {
      return response.ok ? response.text() : undefined;
    }).then(function (text) {
      return text && /^[0-9a-f]{10}$/.test(text.trim()) ? text.trim() : undefined;
    });
  }
  // A fresh token for every call, never kept: it lives 5 minutes. undefined: a guest (the route answers 401).
  function customerToken() {
    var identity = storeRoutes().identity;
    if (!identity) return Promise.resolve(undefined);
    return askWithNonce(identity, 'GET').then(function (response) {
      if (response.status === 401 || response.status === 403) return undefined;
      if (!response.ok) throw new Error('the store answered ' + response.status);
      return response.json().then(function (answer) {
        return answer && typeof answer.token === 'string' ? answer.token : undefined;
      });
    });
  }
  // The plugin mails the customer a link that proves their account's e-mail: the words it answers, either way.
  function proveContact() {
    var proof = storeRoutes().proof;
    if (!proof) return Promise.reject(new Error('no proof route'));
    return askWithNonce(proof, 'POST').then(function (response) {
      return response.json().then(function (answer) {
        if (answer && typeof answer.message === 'string') return answer.message;
        throw new Error('the store answered ' + response.status);
      });
    });
  }`;

const widgetOptions = (bridgeUrl: string) => ({
  platformName: 'WooCommerce',
  platform: 'woocommerce',
  bridgeUrl,
  signInPath: SIGN_IN_PATH,
  transport: TRANSPORT,
  inlinePanels: true,
});

/** GET /woocommerce/storefront/widget.js: the script, built once when the route is. */
export function wooWidgetRoute(bridgeUrl: string): PlatformRoute {
  return widgetRoute(widgetOptions(bridgeUrl));
}

/** The same script's text, as a store's pages load it from the bridge at `bridgeUrl` (the demo store page's). */
export function wooWidgetScript(bridgeUrl: string): string {
  return widgetScript(widgetOptions(bridgeUrl));
}
