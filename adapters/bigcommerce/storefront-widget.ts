// BigCommerce's storefront widget: the script the bridge serves at /bigcommerce/storefront/widget.js?store=<hash>,
// which the Scripts API puts on the store's pages (storefront-script.ts). Its logic is Shopify's launcher itself
// (extensions/loyalty-theme/assets/loyalty.js and loyalty.css, read once here and sent as they are), after a
// prelude that does what blocks/points-launcher.liquid does on Shopify: the launcher's markup and its English words
// (locales/en.default.json), the stylesheet, and loyalty.js's transport (window.loyaltyBridgeTransport). The
// transport proves who the customer is with BigCommerce's current-customer JWT (BigCommerce's docs,
// start/authentication/current-customer.mdx): asked of the store's own origin with its cookies, fresh for each
// call (it lives 15 minutes; kept nowhere), and sent to the bridge as a bearer. A guest (404) asks as the store,
// named by the script's own address. The client id is public (BigCommerce's own snippet puts it in the page);
// nothing secret is in the script.
import { readFileSync } from 'node:fs';
import type { PlatformRoute } from '../../src/core/platform-module.ts';

const THEME = new URL('../../extensions/loyalty-theme/', import.meta.url);
/** BigCommerce's sign-in page on every store (Stencil and its headless checkouts alike). */
const SIGN_IN_PATH = '/login.php';
/** Browsers keep the script a few minutes: a new release reaches the store's pages soon, without a request per page. */
const CACHE_SECONDS = 300;

export interface WidgetOptions {
  /** The app's client id, which current.jwt is asked for with. */
  clientId: string;
  /** The bridge's public https address, where the widget asks for points. */
  bridgeUrl: string;
}

/**
 * The words loyalty.js reads, as the launcher block hands them: each of the locale's launcher words under its key
 * in camelCase ("pending_until" is "pendingUntil"), and where a guest signs in.
 */
export function launcherWords(locale: unknown): Record<string, string> {
  const launcher = (locale as { loyalty?: { launcher?: Record<string, unknown> } }).loyalty?.launcher ?? {};
  const words: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(launcher))
    if (typeof value === 'string')
      words[key.replace(/_(\w)/g, (_whole, letter: string) => letter.toUpperCase())] = value;
  words.signInUrl = SIGN_IN_PATH;
  return words;
}

/** The whole served script: the prelude with its data, then loyalty.js's own text, run once the markup is placed. */
export function widgetScript({ clientId, bridgeUrl }: WidgetOptions): string {
  const read = (path: string) => readFileSync(new URL(path, THEME), 'utf8');
  const words = launcherWords(JSON.parse(read('locales/en.default.json')));
  const data = {
    clientId,
    points: `${bridgeUrl.replace(/\/+$/, '')}/bigcommerce/storefront/points`,
    words,
    css: read('assets/loyalty.css'),
  };
  // As a literal of the script, with no line separator or "<" left raw: data on any line, in any page.
  const literal = JSON.stringify(data).replace(
    /[\u2028\u2029<]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${prelude(literal)}
function runLoyalty() {
${read('assets/loyalty.js')}
}
})();
`;
}

// Plain browser JavaScript (no build step, as loyalty.js): it opens a function that the served script closes after
// loyalty.js's text, so nothing of it is global but the transport loyalty.js reads.
function prelude(data: string): string {
  return `// The loyalty launcher for a BigCommerce store, served by loyalty-bridge.
(function () {
  'use strict';
  if (window.loyaltyBridgeWidget) return;
  window.loyaltyBridgeWidget = true;
  var data = ${data};
  // The store this script was added to, from its own address (?store=<hash>): how a guest's ask names it.
  var script = document.currentScript;
  var store = script && script.src ? new URL(script.src).searchParams.get('store') : null;

  // A fresh token for every call, never kept: it lives 15 minutes. undefined: a guest (BigCommerce answers 404).
  function customerToken() {
    return fetch('/customer/current.jwt?app_client_id=' + encodeURIComponent(data.clientId), {
      credentials: 'same-origin',
    }).then(function (response) {
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error('the store answered ' + response.status);
      return response.text();
    });
  }
  // To the bridge: the customer's token as a bearer, else the store's name for a guest; never the store's cookies.
  function call(method, path, query) {
    return customerToken().then(function (token) {
      var params = new URLSearchParams(query);
      if (!token && store) params.set('store', store);
      var search = params.toString();
      var headers = { accept: 'application/json' };
      if (token) headers.authorization = 'Bearer ' + token.trim();
      return fetch(data.points + path + (search ? '?' + search : ''), {
        method: method,
        credentials: 'omit',
        headers: headers,
      });
    });
  }
  window.loyaltyBridgeTransport = {
    ask: function () {
      return call('GET', '', {}).then(function (response) {
        if (!response.ok) throw new Error('the bridge answered ' + response.status);
        return response.json();
      });
    },
    redeem: function (id) {
      return call('POST', '/redeem', { reward: id }).then(function (response) {
        return response.json();
      });
    },
  };

  function element(tag, className, attributes, children) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    Object.keys(attributes || {}).forEach(function (name) {
      node.setAttribute(name, attributes[name]);
    });
    (children || []).forEach(function (child) {
      node.append(child);
    });
    return node;
  }
  // The markup of blocks/points-launcher.liquid, its settings' defaults, and the words as JSON for loyalty.js.
  function launcher() {
    var words = element('script', '', { type: 'application/json', 'data-loyalty-words': '' });
    words.textContent = JSON.stringify(data.words);
    var panel = element('div', 'loyalty-panel', {
      id: 'loyalty-panel-widget',
      role: 'dialog',
      'aria-labelledby': 'loyalty-title-widget',
      tabindex: '-1',
      hidden: '',
    }, [
      element('div', 'loyalty-panel__head', {}, [
        element('h2', 'loyalty-panel__title', { id: 'loyalty-title-widget' }, [data.words.title]),
        element('button', 'loyalty-panel__close', { type: 'button', 'data-loyalty-close': '' }, [data.words.close]),
      ]),
      element('div', 'loyalty-panel__body', { 'data-loyalty-body': '', 'aria-live': 'polite' }),
    ]);
    var open = element('button', 'loyalty-launcher__open', {
      type: 'button',
      'data-loyalty-open': '',
      'aria-expanded': 'false',
      'aria-controls': 'loyalty-panel-widget',
    }, [data.words.open]);
    return element('div', 'loyalty-launcher loyalty-launcher--right', { 'data-loyalty-launcher': '' }, [panel, open, words]);
  }
  function start() {
    var style = element('style', '', { 'data-loyalty-style': '' });
    style.textContent = data.css;
    (document.head || document.documentElement).append(style);
    document.body.append(launcher());
    runLoyalty();
  }
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start);
`;
}

/** GET /bigcommerce/storefront/widget.js: the script, built once when the route is. */
export function bigCommerceWidgetRoute(options: WidgetOptions): PlatformRoute {
  const text = widgetScript(options);
  return {
    method: 'GET',
    path: '/storefront/widget.js',
    handle: () => Promise.resolve({ status: 200, script: text, maxAgeSeconds: CACHE_SECONDS }),
  };
}
