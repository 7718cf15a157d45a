// A referred order through each platform, against the running bridge and the
// sandbox it serves, in each of the two shapes the service's replies come in:
// the conversion is added with its referrer, event, amount and the referee's
// mobile, approved on fulfilment and rejected on refund, once each, however
// many times the platform delivers. Each platform carries the referral its own
// way: Shopify in the landing page, WooCommerce in the order's meta data (the
// cart attribute), BigCommerce as a referrer's coupon.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderRecord } from '../../src/core/order-record.ts';
import { REPLY_STYLES } from '../../src/loyalty/protocol.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import type { Conversion } from '../../src/sandbox/store.ts';
import { BC_SECRET, BC_STORE, bcOrder } from '../helpers/bigcommerce.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson, type OrderOptions } from '../helpers/shopify.ts';
import { WOO_SECRET, wooOrderJson, type WooOrderOptions } from '../helpers/woocommerce.ts';

const BC_SCOPES = [
  'store/order/created',
  'store/order/updated',
  'store/order/statusUpdated',
  'store/order/refund/created',
];

describe.each(REPLY_STYLES)('a referred order, with the service answering in the %s shape', (style) => {
  let woo: FakeWooCommerce;
  let bc: FakeBigCommerce;
  let bridge: RunningBridge;

  beforeAll(async () => {
    woo = await startFakeWooCommerce({ consumerKey: 'ck_test', consumerSecret: 'cs_test' });
    bc = await startFakeBigCommerce({ storeHash: BC_STORE, accessToken: 'bc-token' });
    bridge = await startTestBridge({
      SANDBOX_REPLY_STYLE: style,
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      WOOCOMMERCE_WEBHOOK_SECRET: WOO_SECRET,
      WOOCOMMERCE_URL: woo.url,
      WOOCOMMERCE_CONSUMER_KEY: 'ck_test',
      WOOCOMMERCE_CONSUMER_SECRET: 'cs_test',
      BIGCOMMERCE_CLIENT_SECRET: BC_SECRET,
      BIGCOMMERCE_STORE_HASH: BC_STORE,
      BIGCOMMERCE_ACCESS_TOKEN: 'bc-token',
      BIGCOMMERCE_API_URL: bc.url,
      RECONCILE_INTERVAL_MINUTES: '0',
      // A coupon REF-<code> is the referrer's code; its order belongs to campaign 21.
      REFERRAL_REFERRER_DISCOUNT_PATTERN: '^REF-(.+)$',
      REFERRAL_CAMPAIGN_ID: '21',
    });
    for (const [id, topic] of [
      [1, 'order.created'],
      [2, 'order.updated'],
    ] as const) {
      woo.webhooks.push({
        id,
        name: topic,
        status: 'active',
        topic,
        delivery_url: `${bridge.http.localUrl}/webhooks/woocommerce`,
        secret: WOO_SECRET,
        failures: 0,
      });
    }
    for (const [i, scope] of BC_SCOPES.entries()) {
      bc.hooks.push({
        id: 100 + i,
        scope,
        destination: `${bridge.http.localUrl}/webhooks/bigcommerce`,
        is_active: true,
        headers: null,
        created_at: 0,
        updated_at: 0,
      });
    }
  });
  afterAll(async () => {
    await bridge.stop();
    await woo.close();
    await bc.close();
  });

  const conversionsOf = (orderId: string): Conversion[] =>
    bridge.sandbox?.store.snapshot().conversions.filter((conversion) => conversion.orderId === orderId) ?? [];
  const recordOf = async (platform: string, orderId: string): Promise<OrderRecord | undefined> => {
    const { orders } = await bridge.engine.store.listOrders({ platform, q: orderId, page: 1, limit: 5 });
    const key = orders.find((order) => order.orderId === orderId)?.key;
    return key ? bridge.engine.store.getOrder(key) : undefined;
  };
  const conversionCalls = (record: OrderRecord | undefined) =>
    record?.calls
      .filter((call) => call.operation.toLowerCase().includes('conversion'))
      .map((call) => `${call.operation}:${call.outcome}`);

  /** Each step as the platform would deliver it, twice: a retry the platform makes is a duplicate, not a second call. */
  const steps: Record<
    'shopify' | 'woocommerce' | 'bigcommerce',
    {
      orderId: string;
      paid(): Promise<void>;
      fulfilled(): Promise<void>;
      refunded(): Promise<void>;
      referrer: string;
      amount: string;
      mobile: string;
    }
  > = {
    shopify: (() => {
      const id = '7340000000101';
      const order = (extra: Partial<OrderOptions>): OrderOptions => ({
        id,
        totalPrice: '89.50',
        customerPhone: '+1 212 555 0142',
        landingSite: '/products/compiler?utm_source=friend&loyalty_campaign=21&loyalty_referrer=ANNA-7',
        ...extra,
      });
      const deliver = async (topic: string, options: OrderOptions) => {
        const body = shopifyOrderJson(options);
        for (let copy = 0; copy < 2; copy++) {
          const response = await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
            method: 'POST',
            headers: shopifyHeaders({ topic, body, shop: SHOP }),
            body,
          });
          expect(response.status).toBe(200);
        }
      };
      return {
        orderId: id,
        referrer: 'ANNA-7',
        amount: '89.5',
        mobile: '+12125550142',
        paid: () => deliver('orders/paid', order({ updatedAt: '2026-11-20T10:00:00Z' })),
        fulfilled: () =>
          deliver('orders/fulfilled', order({ fulfillmentStatus: 'fulfilled', updatedAt: '2026-11-20T11:00:00Z' })),
        refunded: () =>
          deliver(
            'orders/updated',
            order({ financialStatus: 'refunded', fulfillmentStatus: 'fulfilled', updatedAt: '2026-11-20T12:00:00Z' }),
          ),
      };
    })(),
    woocommerce: (() => {
      const id = 7102;
      const meta = [
        { key: 'loyalty_campaign', value: '21' },
        { key: 'loyalty_referrer', value: 'BOB-3' },
      ];
      const deliver = async (topic: string, options: Omit<WooOrderOptions, 'id' | 'meta' | 'total'>) => {
        woo.orders.set(
          id,
          JSON.parse(wooOrderJson({ id, meta, total: '64.00', ...options })) as Record<string, unknown>,
        );
        for (let copy = 0; copy < 2; copy++) expect(await woo.deliver(topic, id)).toEqual([200]);
      };
      return {
        orderId: String(id),
        referrer: 'BOB-3',
        amount: '64',
        mobile: '+33612345678',
        paid: () => deliver('order.created', { status: 'processing', modified: '2026-11-19T10:00:00' }),
        fulfilled: () => deliver('order.updated', { status: 'completed', modified: '2026-11-19T11:00:00' }),
        refunded: () => deliver('order.updated', { status: 'refunded', modified: '2026-11-19T12:00:00' }),
      };
    })(),
    bigcommerce: (() => {
      const id = 7103;
      const coupons = [{ code: 'REF-CAROL9', discount: 10 }];
      const deliver = async (scope: string, statusId: number, refunded?: string) => {
        bc.orders.set(
          id,
          bcOrder(id, statusId, {
            total: '140.0000',
            couponDiscount: '10.0000',
            coupons,
            ...(refunded ? { refunded } : {}),
          }),
        );
        for (let copy = 0; copy < 2; copy++)
          expect(await bc.deliver(scope, id, { signWith: BC_SECRET })).toEqual([200]);
      };
      return {
        orderId: String(id),
        referrer: 'CAROL9',
        amount: '140',
        mobile: '+17575550199',
        paid: () => deliver('store/order/created', 11),
        fulfilled: () => deliver('store/order/statusUpdated', 2),
        refunded: () => deliver('store/order/refund/created', 4, '140.0000'),
      };
    })(),
  };

  it.each(Object.keys(steps) as Array<keyof typeof steps>)(
    'from %s: added with its referrer, approved on fulfilment, rejected on refund, once each',
    async (platform) => {
      const order = steps[platform];
      await order.paid();
      await bridge.engine.drain();
      expect(conversionsOf(order.orderId)).toEqual([
        expect.objectContaining({
          campaignId: 21,
          event: 'sale',
          referrer: { field: 'referrer_code', value: order.referrer },
          refereeMobile: order.mobile,
          purchaseAmount: order.amount,
          customValue: expect.stringMatching(new RegExp(`^${platform}:.+:${order.orderId}$`)),
          status: 'pending',
        }),
      ]);

      await order.fulfilled();
      await bridge.engine.drain();
      expect(conversionsOf(order.orderId)).toMatchObject([{ status: 'approved' }]);

      await order.refunded();
      await bridge.engine.drain();
      expect(conversionsOf(order.orderId)).toMatchObject([{ status: 'rejected', remark: 'order refunded in full' }]);
      expect(conversionCalls(await recordOf(platform, order.orderId))).toEqual([
        'conversion:success',
        'approveConversion:success',
        'rejectConversion:success',
      ]);
    },
  );
});
