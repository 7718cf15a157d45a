// A fake Shopify, served over real HTTP, built from Shopify's documentation of what the bridge uses. This file
// starts it and hands tests its handle; its parts cite the documentation for each rule they hold:
//   fake-shopify-oauth.ts     the consent page, its approval and the token endpoint (every grant the bridge uses)
//   fake-shopify-graphql.ts   the Admin GraphQL API (executed by fake-shopify-admin.ts on Shopify's published
//                             schema) and bulk operations' results
//   fake-shopify-deliver.ts   webhook deliveries
//   fake-shopify-shop.ts      the shapes, and the context the parts share
import { createHash } from 'node:crypto';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { listen, type Listening } from '../../src/http/listen.ts';
import { deliver } from './fake-shopify-deliver.ts';
import { countUses, useCode } from './fake-shopify-checkout.ts';
import { serveAdminGraphql, serveBulkResults } from './fake-shopify-graphql.ts';
import { installs, serveOAuth } from './fake-shopify-oauth.ts';
import {
  newFakeShopifyContext,
  type FakeShopify,
  type FakeShopifyOptions,
  type FakeShopifySettings,
} from './fake-shopify-shop.ts';

export { onlyFields } from './fake-shopify-deliver.ts';
export type { FakeShop, FakeShopify, FakeShopifyOptions } from './fake-shopify-shop.ts';

export async function startFakeShopify(options: FakeShopifyOptions): Promise<FakeShopify> {
  const context = newFakeShopifyContext(options);
  const app = express();
  const router = express.Router();
  serveOAuth(router, context);
  serveAdminGraphql(router, context);
  serveBulkResults(router, context);
  app.use('/shop/:shop', router);
  app.use(router);
  const http: Listening = await listen(app, 0, '127.0.0.1');
  context.url = http.localUrl;
  let https: HttpsServer | undefined;
  if (options.tls) {
    https = createHttpsServer(options.tls, app);
    await new Promise<void>((resolve) => https!.listen(0, '127.0.0.1', resolve));
  }
  const { shop, shops, now } = context;
  // The handle is the settings object itself: what a test sets (fake.scopes = ...) is what the routes read.
  return Object.assign(context.settings, {
    url: http.localUrl,
    httpsPort: https ? (https.address() as AddressInfo).port : undefined,
    adminUrl: (name) => `${http.localUrl}/shop/${name}`,
    shop,
    requests: context.requests,
    tokenRequests: context.tokenRequests,
    clock: context.clock,
    appSubscriptions: context.appSubscriptions,
    deliver: (name, topic, body) => deliver(context, name, topic, body),
    ...installs(context),
    useCode: (name, code, customerId, cart) => useCode(shop(name), code, { ...cart, customerId }, now()),
    countUses: () => shops.forEach((each) => countUses(each)),
    discounts: (name) => [...shop(name).codeDiscounts.values()],
    throttleNext: (n) => void (context.throttled = n),
    failNext: (status, n) => void (context.failing = { status, count: n }),
    async close() {
      await http.close();
      http.server.closeAllConnections();
      if (https) await new Promise<void>((resolve) => https!.close(() => resolve()));
    },
  } satisfies Omit<FakeShopify, keyof FakeShopifySettings>);
}

/** A GraphQL Order node, as the Admin API answers it. */
export function shopifyOrderNode(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `gid://shopify/Order/${id}`,
    legacyResourceId: id,
    name: `#${id.slice(-4)}`,
    email: 'ada@example.com',
    phone: null,
    test: false,
    createdAt: '2026-11-10T10:00:00Z',
    updatedAt: '2026-11-10T12:00:00Z',
    cancelledAt: null,
    displayFinancialStatus: 'PAID',
    displayFulfillmentStatus: 'UNFULFILLED',
    sourceName: 'web',
    totalPriceSet: {
      shopMoney: { amount: '42.00', currencyCode: 'EUR' },
      presentmentMoney: { amount: '42.00', currencyCode: 'EUR' },
    },
    subtotalPriceSet: { shopMoney: { amount: '42.00' } },
    totalDiscountsSet: { shopMoney: { amount: '0.0' } },
    discountCodes: [],
    customAttributes: [{ key: 'loyalty_campaign', value: '8' }],
    customer: {
      firstName: 'Ada',
      lastName: 'Lovelace',
      defaultEmailAddress: { emailAddress: 'ada@example.com' },
      defaultPhoneNumber: { phoneNumber: '+44 7911 123456' },
      defaultAddress: { countryCodeV2: 'GB' },
    },
    billingAddress: { firstName: 'Ada', lastName: 'Lovelace', phone: null, countryCodeV2: 'GB' },
    shippingAddress: null,
    customerJourneySummary: { firstVisit: { landingPage: 'https://shop.example/?loyalty_campaign=8' } },
    refunds: [],
    ...overrides,
  };
}

/** A digest of a token, for asserting a token never appears somewhere without printing it. */
export const tokenDigest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 12);

/**
 * @shopify/shopify-api always calls https://<shop>/admin/oauth/access_token:
 * nock catches those calls and passes them on, over HTTP, to the fake.
 *
 * Test files share their worker's modules (vitest.config.ts), so the route
 * goes to the newest fake, whichever file's interceptor catches the call: a
 * file whose cleanup threw, or ran late, must not send the next file's token
 * exchange to its own fake, where the shop is not installed (a 401 that
 * failed CI once, in shopify-merchant-rewards and secrets-at-rest).
 */
let routedTo: FakeShopify | undefined;
const TOKEN_PATH = '/admin/oauth/access_token';

export async function routeTokenEndpointToFake(fake: FakeShopify): Promise<void> {
  const { default: nock } = await import('nock');
  routedTo = fake;
  if (nock.activeMocks().some((mock) => mock.endsWith(TOKEN_PATH))) return;
  nock(/\.myshopify\.com(:443)?$/)
    .persist()
    .post(TOKEN_PATH)
    .reply(async function (this: { req: { headers: Record<string, string> } }, uri: string, body: unknown) {
      const shopName = String(this.req.headers.host ?? '').split(':')[0] ?? '';
      if (!routedTo) return [503, JSON.stringify({ error: 'no fake Shopify is running' })];
      const response = await fetch(`${routedTo.adminUrl(shopName)}${uri}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return [response.status, await response.text(), { 'content-type': 'application/json' }];
    });
}

/** Whether the token endpoint still goes to this fake: a later one's file cleans up after itself. */
export function stopRoutingTo(fake: FakeShopify | undefined): boolean {
  if (fake && routedTo !== fake) return false;
  routedTo = undefined;
  return true;
}

/** A customer record as the Admin API's Customer type holds it (2026-10): contact under defaultEmailAddress and defaultPhoneNumber. */
export function shopifyCustomerNode(
  id: string,
  { email, phone, verifiedEmail = true }: { email?: string | null; phone?: string | null; verifiedEmail?: boolean },
): Record<string, unknown> {
  return {
    id: `gid://shopify/Customer/${id}`,
    verifiedEmail,
    defaultEmailAddress: email ? { emailAddress: email, validFormat: true } : null,
    defaultPhoneNumber: phone ? { phoneNumber: phone } : null,
  };
}
