// BigCommerce's storefront widget: the script the bridge serves at /bigcommerce/storefront/widget.js?store=<hash>,
// which the Scripts API puts on the store's pages (storefront-script.ts): the shared launcher
// (adapters/shared/storefront-widget.ts) with BigCommerce's transport. It proves who the customer is with
// BigCommerce's current-customer JWT (BigCommerce's docs, start/authentication/current-customer.mdx): asked of the
// store's own origin with its cookies, fresh for each call (it lives 15 minutes; kept nowhere), and sent to the
// bridge as a bearer. A guest (404) asks as the store, named by the script's own address. The client id is public
// (BigCommerce's own snippet puts it in the page); nothing secret is in the script.
import type { PlatformRoute } from '../../src/core/platform-module.ts';
import { launcherWords as sharedLauncherWords, widgetRoute } from '../shared/storefront-widget.ts';

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
const TRANSPORT = `  // A fresh token for every call, never kept: it lives 15 minutes. undefined: a guest (BigCommerce answers 404).
  function customerToken() {
    return fetch('/customer/current.jwt?app_client_id=' + encodeURIComponent(data.clientId), {
      credentials: 'same-origin',
    }).then(function (response) {
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error('the store answered ' + response.status);
      return response.text();
    });
  }`;

/** GET /bigcommerce/storefront/widget.js: the script, built once when the route is. */
export function bigCommerceWidgetRoute({ clientId, bridgeUrl }: WidgetOptions): PlatformRoute {
  return widgetRoute({
    platformName: 'BigCommerce',
    platform: 'bigcommerce',
    bridgeUrl,
    signInPath: SIGN_IN_PATH,
    data: { clientId },
    transport: TRANSPORT,
  });
}
