// BigCommerce's storefront widget: the script the bridge serves at /bigcommerce/storefront/widget.js?store=<hash>,
// which the Scripts API puts on the store's pages (storefront-script.ts): the shared launcher
// (adapters/shared/storefront-widget.ts) with BigCommerce's transport. It proves who the customer is with
// BigCommerce's current-customer JWT (BigCommerce's docs, start/authentication/current-customer.mdx): asked of the
// store's own origin with its cookies, fresh for each call (it lives 15 minutes; kept nowhere), and sent to the
// bridge as a bearer. A guest (404), or a page where the store's origin gives no token (a headless storefront),
// asks as the store, named by the script's own address. The client id is public
// (BigCommerce's own snippet puts it in the page); nothing secret is in the script.
import type { PlatformRoute } from '../../src/core/platform-module.ts';
import { launcherWords as sharedLauncherWords, widgetRoute, widgetScript } from '../shared/storefront-widget.ts';

/** BigCommerce's sign-in page on every store (Stencil and its headless checkouts alike). */
const SIGN_IN_PATH = '/login.php';

export interface WidgetOptions {
  /** The app's client id, which current.jwt is asked for with. */
  clientId: string;
  /** The bridge's public https address, where the widget asks for points. */
  bridgeUrl: string;
}

/** The words loyalty.js reads, with BigCommerce's sign-in page. */
export const launcherWords = (locale: unknown) => sharedLauncherWords(locale, SIGN_IN_PATH);

// Plain browser JavaScript, inside the shared prelude (data, store, pointsUrl are its).
const TRANSPORT = `  // A fresh token for every call, never kept: it lives 15 minutes. undefined: ask as a guest. BigCommerce's own
  // storefront (Stencil) answers 404 for a guest. A headless storefront is a site of its own, which BigCommerce's
  // Scripts API does not serve: where a merchant put the script there by hand, this path is that site's (a 404, its
  // own page, a redirect to its sign-in), never a token, so its shoppers ask as guests rather than see an error.
  function customerToken() {
    return fetch('/customer/current.jwt?app_client_id=' + encodeURIComponent(data.clientId), {
      credentials: 'same-origin',
    }).then(function (response) {
      if (response.status >= 500) throw new Error('the store answered ' + response.status);
      if (!response.ok) return undefined;
      return response.text().then(function (text) {
        var token = text.trim();
        return /^[\\w-]+\\.[\\w-]+\\.[\\w-]+$/.test(token) ? token : undefined;
      });
    });
  }`;

const widgetOptions = ({ clientId, bridgeUrl }: WidgetOptions) => ({
  platformName: 'BigCommerce',
  platform: 'bigcommerce',
  bridgeUrl,
  signInPath: SIGN_IN_PATH,
  data: { clientId },
  transport: TRANSPORT,
});

/** GET /bigcommerce/storefront/widget.js: the script, built once when the route is. */
export function bigCommerceWidgetRoute(options: WidgetOptions): PlatformRoute {
  return widgetRoute(widgetOptions(options));
}

/** The same script's text, as a store's pages load it from the bridge at `bridgeUrl` (the demo store page's). */
export function bigCommerceWidgetScript(options: WidgetOptions): string {
  return widgetScript(widgetOptions(options));
}
