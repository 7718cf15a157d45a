// The bridge in process as a BigCommerce single-click app beside the fake BigCommerce, with what the storefront
// uses of BigCommerce's API (customers, scripts, promotions), for the tests of BigCommerce customers' points
// (e2e/bigcommerce-rewards, browser/bigcommerce-widget, security/bigcommerce-rewards-abuse): the merchant's page
// session, a store installed on a trial account of the bridge's sandbox, orders delivered as BigCommerce signs them,
// and the current-customer token BigCommerce would give a customer's page.
import { expect } from 'vitest';
import { freePort } from '../../bench/lib/bridge-process.ts';
import type { BridgeOptions, RunningBridge } from '../../src/composition/main.ts';
import type { Logger } from '../../src/logger.ts';
import { appAt, bcOrder, bcPageTokens } from './bigcommerce.ts';
import { currentCustomerJwt } from './bigcommerce-customer-jwt.ts';
import { startTestBridge } from './bridge.ts';
import { tempDataDir } from './engine.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from './fake-bigcommerce.ts';
import { serveFakeCustomers } from './fake-bigcommerce-customers.ts';
import { withPromotions } from './fake-bigcommerce-promotions.ts';
import { addFakeScripts } from './fake-bigcommerce-scripts.ts';

export const BC_REWARDS_CLIENT_ID = 'bc-rewards-client-id';
export const BC_REWARDS_CLIENT_SECRET = 'bc-rewards-client-secret-for-tests';
export const ORDERS_ONLY = 'store_v2_orders_read_only';
/** What the storefront needs beyond orders: scripts, customers, and the channels a script goes on. */
export const STOREFRONT_SCOPES = `${ORDERS_ONLY} store_v2_content store_v2_customers_read_only store_channel_settings_read_only`;
/** And what rewards need: promotions. */
export const REWARD_SCOPES = `${STOREFRONT_SCOPES} store_v2_marketing`;

export type Answer = { status: number; text: string; headers: Headers; body: Record<string, any> };

export const readAnswer = async (response: Response): Promise<Answer> => {
  const text = await response.text();
  let body: Record<string, any>;
  try {
    body = text ? (JSON.parse(text) as Record<string, any>) : {};
  } catch {
    // Not JSON (a page, a script): the text is there.
    body = {};
  }
  return { status: response.status, text, headers: response.headers, body };
};

export interface BigCommerceRewardsWorld {
  bc: FakeBigCommerce;
  bridge: RunningBridge;
  /** The bridge's address, as BigCommerce's callbacks and the store's pages reach it. */
  url: string;
  /** The merchant's page of a store asks its API (its own session). */
  merchant(shop: string, method: string, path: string, body?: unknown): Promise<Answer>;
  /** The merchant opens the app again after the operator added scopes: BigCommerce's auth callback with them. */
  approve(shop: string, scope: string): Promise<void>;
  /** The store installs the app and makes a trial account on the bridge's sandbox: its brand id. */
  installWithTrial(shop: string): Promise<string>;
  /** An order of the store in a status, delivered as BigCommerce signs the app's hooks. */
  placeOrder(shop: string, orderId: number, status: number, options?: Parameters<typeof bcOrder>[2]): Promise<void>;
  /** What BigCommerce's current.jwt gives a signed-in customer's page, with claims changed as given. */
  tokenFor(shop: string, customer: { id: number; email: string }, claims?: Record<string, unknown>): string;
  stop(): Promise<void>;
}

export async function startBigCommerceRewardsWorld(
  options: { scope?: string; env?: Record<string, string>; logger?: Logger; bridge?: BridgeOptions } = {},
): Promise<BigCommerceRewardsWorld> {
  const bc = await startFakeBigCommerce({ storeHash: 'unusedhash', accessToken: 'unused-token' });
  withPromotions(bc);
  serveFakeCustomers(bc);
  addFakeScripts(bc);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  bc.registerApp(appAt(url, BC_REWARDS_CLIENT_ID, BC_REWARDS_CLIENT_SECRET, options.scope ?? ORDERS_ONLY));
  const bridge = await startTestBridge(
    {
      PORT: String(port),
      PUBLIC_URL: url,
      DATA_DIR: tempDataDir(),
      RECONCILE_INTERVAL_MINUTES: '0',
      REWARD_SWEEP_SECONDS: '1',
      BIGCOMMERCE_CLIENT_ID: BC_REWARDS_CLIENT_ID,
      BIGCOMMERCE_CLIENT_SECRET: BC_REWARDS_CLIENT_SECRET,
      BIGCOMMERCE_LOGIN_URL: bc.url,
      BIGCOMMERCE_API_URL: bc.url,
      BIGCOMMERCE_OPEN_INSTALLS: 'true',
      ...options.env,
    },
    ...(options.logger ? [options.logger] : []),
    ...(options.bridge ? [options.bridge] : []),
  );
  const merchant = async (shop: string, method: string, path: string, body?: unknown) => {
    const token = (await bcPageTokens(bridge)).mint(shop);
    return readAnswer(
      await fetch(`${url}/admin/api${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  };
  return {
    bc,
    bridge,
    url,
    merchant,
    async approve(shop, scope) {
      bc.registerApp(appAt(url, BC_REWARDS_CLIENT_ID, BC_REWARDS_CLIENT_SECRET, scope));
      expect((await bc.install(shop)).status).toBe(200);
    },
    async installWithTrial(shop) {
      expect((await bc.install(shop)).status).toBe(200);
      const made = await merchant(shop, 'POST', '/account', { sandbox: true });
      expect(made.status, made.text).toBe(201);
      return made.body.account.brandId as string;
    },
    async placeOrder(shop, orderId, status, orderOptions = {}) {
      bc.stores.get(shop)!.orders.set(orderId, bcOrder(orderId, status, orderOptions));
      const statuses = await bc.deliver('store/order/statusUpdated', orderId, {
        store: shop,
        signWith: BC_REWARDS_CLIENT_SECRET,
      });
      expect(statuses).toEqual([200]);
    },
    tokenFor: (shop, customer, claims = {}) =>
      currentCustomerJwt({
        storeHash: shop,
        customerId: customer.id,
        email: customer.email,
        clientId: BC_REWARDS_CLIENT_ID,
        clientSecret: BC_REWARDS_CLIENT_SECRET,
        claims,
      }),
    async stop() {
      await bridge.stop();
      await bc.close();
    },
  };
}
