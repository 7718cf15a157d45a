// BigCommerce's store page in the first run's demo (src/composition/demo-storefront.ts): the widget a store's pages
// load from the bridge (storefront-widget.ts, the script the Scripts API puts in the footer, deferred, its text
// unchanged), and BigCommerce's part of the store played for the demo's store alone: its Current Customer API,
// /customer/current.jwt?app_client_id=<the app's> on the store's own origin, which the script asks itself (the
// bridge's origin plays the store's there: originPaths), answering 404 for a guest and for a signed-in customer a JWT
// signed HS256 with the app's client secret, with BigCommerce's claims (current-customer.ts); and its sign-in page,
// /login.php, where the widget sends a guest. The client secret is this run's secret: no app was installed, and
// none can sign for the demo's store once the demo stops. The bridge checks the token with the module's own check.
import { createHmac } from 'node:crypto';
import type { DemoOrder, DemoStorefront } from '../../src/core/platform-module.ts';
import { bigCommerceCustomerAsker, CURRENT_CUSTOMER_LIFETIME_SECONDS } from './current-customer.ts';
import { bigCommerceWidgetScript } from './storefront-widget.ts';

/** The demo customer's id, as BigCommerce numbers customers. */
export const DEMO_CUSTOMER_ID = '21';
/** The demo app's client id: public, as BigCommerce's own snippet puts it in the page. */
export const DEMO_CLIENT_ID = 'loyalty-bridge-demo';
const CURRENT_JWT = '/customer/current.jwt';
const SIGN_IN = '/login.php';

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A current-customer token as BigCommerce makes it ("Current Customer API"), signed with `secret`. */
export function demoCurrentCustomerToken(
  at: { storeHash: string; customerId: string; email: string; secret: string },
  nowS = Math.floor(Date.now() / 1000),
): string {
  const payload = {
    customer: { id: Number(at.customerId), email: at.email, group_id: '0' },
    iss: 'bc/apps',
    sub: at.storeHash,
    iat: nowS,
    exp: nowS + CURRENT_CUSTOMER_LIFETIME_SECONDS,
    version: 1,
    aud: DEMO_CLIENT_ID,
    application_id: DEMO_CLIENT_ID,
    store_hash: at.storeHash,
    operation: 'current_customer',
  };
  const signed = `${part({ typ: 'JWT', alg: 'HS256' })}.${part(payload)}`;
  return `${signed}.${createHmac('sha256', at.secret).update(signed).digest('base64url')}`;
}

export function bigCommerceDemoStorefront(parts: {
  storeHash: string;
  customer: DemoOrder['customer'];
  paidStep: unknown;
}): DemoStorefront {
  const { storeHash, customer } = parts;
  let script: string | undefined;
  return {
    customer: { id: DEMO_CUSTOMER_ID, of: customer },
    paidStep: parts.paidStep,
    currency: 'USD',
    sidePath: undefined,
    originPaths: [CURRENT_JWT, SIGN_IN],
    asker(request, secret) {
      const served = async (asked: string) => asked === storeHash;
      return bigCommerceCustomerAsker({ clientId: DEMO_CLIENT_ID, clientSecrets: [secret], served })(request);
    },
    widget({ assetBase }) {
      // As Script Manager renders the script the app created: in the footer, deferred.
      const src = `${assetBase}widget.js?store=${encodeURIComponent(storeHash)}`;
      return { head: '', body: `<script defer src="${src.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"></script>` };
    },
    asset(name) {
      if (name !== 'widget.js') return undefined;
      // Its points route on the page's own origin: the bridge serves the page.
      script ??= bigCommerceWidgetScript({ clientId: DEMO_CLIENT_ID, bridgeUrl: '' });
      return { contentType: 'text/javascript', body: script };
    },
    serve({ method, path, query, customerId, secret, page }) {
      if (method !== 'GET') return undefined;
      if (path === SIGN_IN) return { redirect: `${page}#account` };
      if (path !== CURRENT_JWT) return undefined;
      const clientId = new Map(query).get('app_client_id');
      // BigCommerce answers a guest 404, and signs for the app the store installed alone.
      if (customerId === undefined || clientId !== DEMO_CLIENT_ID)
        return { status: 404, contentType: 'text/plain', body: 'Not Found' };
      const token = demoCurrentCustomerToken({ storeHash, customerId, email: customer.email, secret });
      return { status: 200, contentType: 'application/jwt', body: token };
    },
    // BigCommerce sends an app no customer's data request: its merchants answer those in their own control panel.
    dataRequest: undefined,
  };
}
