// The storefront widget a platform's pages load from the bridge (/<platform>/storefront/widget.js?store=<shop>),
// where no theme extension of the platform's can carry it. Its logic is Shopify's launcher itself
// (extensions/loyalty-theme/assets/loyalty.js and loyalty.css, read once here and sent as they are), after a prelude
// that does what blocks/points-launcher.liquid does on Shopify: the launcher's markup and its English words
// (locales/en.default.json), the stylesheet, and loyalty.js's transport (window.loyaltyBridgeTransport). How the
// transport proves who the customer is differs by platform: each hands its own snippet, which defines
// `customerToken()` (a promise of the customer's token, fetched afresh from the store's own origin, or undefined
// for a guest) from `data` (what the platform put in it beside the words). The prelude sends it to the bridge as a
// bearer, or the store's name (the script's own ?store=) for a guest, and never the store's cookies. What the page's
// content holds (a post, a product's text) can name no setting of the widget's: its own tag is found past a named
// element shadowing document.currentScript, and only the launchers it made itself are wired.
import { readFileSync } from 'node:fs';
import { scriptAnswer } from '../../src/core/platform-answers.ts';
import type { PlatformRoute } from '../../src/core/platform-module.ts';

const THEME = new URL('../../extensions/loyalty-theme/', import.meta.url);
/** Browsers keep the script a few minutes: a new release reaches the store's pages soon, without a request per page. */
const CACHE_SECONDS = 300;

export interface SharedWidgetOptions {
  /** As a person reads it, for the script's first comment: "BigCommerce". */
  platformName: string;
  /** The bridge's public https address, where the widget asks for points. */
  bridgeUrl: string;
  /** The module's name in the bridge's paths: the points route is <bridgeUrl>/<platform>/storefront/points. */
  platform: string;
  /** Where a guest signs in on the store (a path of the store's own). */
  signInPath: string;
  /** Public values the transport reads as `data.<name>`: never a secret. */
  data?: Readonly<Record<string, string>>;
  /** Plain browser JavaScript defining `function customerToken()`; see the header. */
  transport: string;
  /**
   * Whether elements `[data-loyalty-points-panel]` the store's pages print (an account tab, a shortcode) are filled
   * with the launcher's panel, open in place, beside the launcher.
   */
  inlinePanels?: boolean;
}

/**
 * The words loyalty.js reads, as the launcher block hands them: each of the locale's launcher words under its key
 * in camelCase ("pending_until" is "pendingUntil"), and where a guest signs in.
 */
export function launcherWords(locale: unknown, signInPath: string): Record<string, string> {
  const launcher = (locale as { loyalty?: { launcher?: Record<string, unknown> } }).loyalty?.launcher ?? {};
  const words: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(launcher))
    if (typeof value === 'string')
      words[key.replace(/_(\w)/g, (_whole, letter: string) => letter.toUpperCase())] = value;
  words.signInUrl = signInPath;
  return words;
}

/** The whole served script: the prelude with its data, then loyalty.js's own text, run once the markup is placed. */
export function widgetScript(options: SharedWidgetOptions): string {
  const read = (path: string) => readFileSync(new URL(path, THEME), 'utf8');
  const words = launcherWords(JSON.parse(read('locales/en.default.json')), options.signInPath);
  const data = {
    ...options.data,
    points: `${options.bridgeUrl.replace(/\/+$/, '')}/${options.platform}/storefront/points`,
    words,
    css: read('assets/loyalty.css'),
  };
  // As a literal of the script, with no line separator or "<" left raw: data on any line, in any page.
  const literal = JSON.stringify(data).replace(
    /[\u2028\u2029<]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${prelude(options, literal)}
function runLoyalty() {
${read('assets/loyalty.js')}
}
})();
`;
}

// Plain browser JavaScript (no build step, as loyalty.js): it opens a function that the served script closes after
// loyalty.js's text, so nothing of it is global but the transport loyalty.js reads.
function prelude(options: SharedWidgetOptions, data: string): string {
  const inlinePanels = options.inlinePanels ? 'true' : 'false';
  return `${preludeHead(options, data)}${options.transport}
${transportScript()}${launcherScript()}${startScript(inlinePanels)}`;
}

/** The prelude's opening: no second copy, the data, and the script's own tag and store. */
function preludeHead(options: SharedWidgetOptions, data: string): string {
  return `// The loyalty launcher for a ${options.platformName.replace(/[^\w .-]/g, '')} store, served by loyalty-bridge.
(function () {
  'use strict';
  // === true: an element a page's content names loyaltyBridgeWidget is no earlier copy of this script.
  if (window.loyaltyBridgeWidget === true) return;
  window.loyaltyBridgeWidget = true;
  var data = ${data};
  var pointsUrl = data.points;
  // This script's own tag, read past anything the page's content names "currentScript" (a named element shadows
  // document.currentScript): only a script element, which no post or product text can add.
  var currentScript = Object.getOwnPropertyDescriptor(Document.prototype, 'currentScript');
  var script = currentScript && currentScript.get ? currentScript.get.call(document) : null;
  if (!(script instanceof HTMLScriptElement)) script = null;
  // The store this script was added to, from its own address (?store=<shop>): how a guest's ask names it.
  var store = script && script.src ? new URL(script.src).searchParams.get('store') : null;

`;
}

/** loyalty.js's transport: each ask to the bridge, with the customer's token or the store's name. */
function transportScript(): string {
  return `  // To the bridge: the customer's token as a bearer, else the store's name for a guest; never the store's cookies.
  function customerCall(method, path, query) {
    return customerToken().then(function (token) {
      var params = new URLSearchParams(query);
      if (!token && store) params.set('store', store);
      var search = params.toString();
      var headers = { accept: 'application/json' };
      if (token) headers.authorization = 'Bearer ' + token.trim();
      return fetch(pointsUrl + path + (search ? '?' + search : ''), {
        method: method,
        credentials: 'omit',
        headers: headers,
      });
    });
  }

  window.loyaltyBridgeTransport = {
    ask: function () {
      return customerCall('GET', '', {}).then(function (response) {
        if (!response.ok) throw new Error('the bridge answered ' + response.status);
        return response.json();
      });
    },
    redeem: function (id) {
      return customerCall('POST', '/redeem', { reward: id }).then(function (response) {
        return response.json();
      });
    },
    // Where the platform's snippet defines it: the store sends the customer the link that proves their address.
    proveContact: typeof proveContact === 'function' ? proveContact : undefined,
  };

`;
}

/** The launcher's markup, as blocks/points-launcher.liquid makes it, and the helper that builds its elements. */
function launcherScript(): string {
  return `  function element(tag, className, attributes, children) {
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
  // An inline one (a panel the page printed) has the same parts, its button and close hidden: it is opened at once.
  function launcher(id, inline) {
    var words = element('script', '', { type: 'application/json', 'data-loyalty-words': '' });
    words.textContent = JSON.stringify(data.words);
    var panel = element('div', 'loyalty-panel', {
      id: 'loyalty-panel-' + id,
      role: 'dialog',
      'aria-labelledby': 'loyalty-title-' + id,
      tabindex: '-1',
      hidden: '',
    }, [
      element('div', 'loyalty-panel__head', {}, [
        element('h2', 'loyalty-panel__title', { id: 'loyalty-title-' + id }, [data.words.title]),
        element('button', 'loyalty-panel__close', inline
          ? { type: 'button', 'data-loyalty-close': '', hidden: '' }
          : { type: 'button', 'data-loyalty-close': '' }, [data.words.close]),
      ]),
      element('div', 'loyalty-panel__body', { 'data-loyalty-body': '', 'aria-live': 'polite' }),
    ]);
    var open = element('button', 'loyalty-launcher__open', inline ? {
      type: 'button',
      'data-loyalty-open': '',
      hidden: '',
    } : {
      type: 'button',
      'data-loyalty-open': '',
      'aria-expanded': 'false',
      'aria-controls': 'loyalty-panel-' + id,
    }, [data.words.open]);
    return element('div', inline ? 'loyalty-launcher loyalty-launcher--inline' : 'loyalty-launcher loyalty-launcher--right', {
      'data-loyalty-launcher': '',
    }, [panel, open, words]);
  }
`;
}

/** Places the stylesheet and the launchers (inline ones where `inlinePanels` is 'true'), then runs loyalty.js. */
function startScript(inlinePanels: string): string {
  return `  // loyalty.js finds a panel by role="dialog": an inline one is made so, and once loyalty.js has wired it, it
  // becomes a region of the page, opened by its hidden button.
  var INLINE_CSS = '.loyalty-launcher--inline{position:static}.loyalty-launcher--inline .loyalty-panel{position:static;width:auto;max-height:none;box-shadow:none}';
  function start() {
    var style = element('style', '', { 'data-loyalty-style': '' });
    style.textContent = data.css + (${inlinePanels} ? INLINE_CSS : '');
    (document.head || document.documentElement).append(style);
    var inline = [];
    if (${inlinePanels})
      document.querySelectorAll('[data-loyalty-points-panel]').forEach(function (slot, i) {
        var made = launcher('inline-' + i, true);
        slot.replaceChildren(made);
        inline.push(made);
      });
    var main = launcher('widget', false);
    document.body.append(main);
    // loyalty.js wires every launcher and earn block in the page: only those made here are the widget's. One a post
    // or a product's text carries (any element and data-* attribute may be there) would take its words, the sign-in
    // link's address among them, from that text.
    var made = inline.concat([main]);
    document.querySelectorAll('[data-loyalty-launcher], [data-loyalty-earn]').forEach(function (node) {
      if (made.indexOf(node) >= 0) return;
      node.removeAttribute('data-loyalty-launcher');
      node.removeAttribute('data-loyalty-earn');
    });
    runLoyalty();
    inline.forEach(function (made) {
      made.querySelector('[role="dialog"]').setAttribute('role', 'region');
      made.querySelector('[data-loyalty-open]').click();
    });
  }
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start);
`;
}

/** GET /<platform>/storefront/widget.js: the script, built once when the route is. */
export function widgetRoute(options: SharedWidgetOptions): PlatformRoute {
  const text = widgetScript(options);
  return {
    method: 'GET',
    path: '/storefront/widget.js',
    handle: () => Promise.resolve(scriptAnswer(text, CACHE_SECONDS)),
  };
}
