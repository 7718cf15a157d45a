// WooCommerce's REST v3 and BigCommerce's V2/V3 APIs, against fakes of both
// over HTTP: windows, pages, an order modified while the pages are read,
// refused keys, rate limits, hooks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BigCommerceApi } from '../../adapters/bigcommerce/admin-api.ts';
import {
  fetchWooOrders,
  fetchWooWebhooks,
  WooRestClient,
  type WooRestOptions,
} from '../../adapters/woocommerce/admin-api.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { registerBigCommerceHooks } from '../../adapters/bigcommerce/subscriptions.ts';
import { bcOrder, BC_STORE } from '../helpers/bigcommerce.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { wooOrderJson } from '../helpers/woocommerce.ts';

const collect = async (source: AsyncIterable<OrderEvent>) => {
  const events: OrderEvent[] = [];
  for await (const event of source) events.push(event);
  return events;
};

let woo: FakeWooCommerce;
let bc: FakeBigCommerce;
beforeAll(async () => {
  woo = await startFakeWooCommerce({ consumerKey: 'ck_test', consumerSecret: 'cs_test' });
  bc = await startFakeBigCommerce({ storeHash: BC_STORE, accessToken: 'bc-token' });
});
afterAll(async () => {
  await woo.close();
  await bc.close();
});

const rest = (options: Partial<WooRestOptions> = {}) =>
  new WooRestClient({
    url: woo.url,
    consumerKey: 'ck_test',
    consumerSecret: 'cs_test',
    outbound: { userAddress: false },
    ...options,
  });
const wooOrder = (id: number, status: string, modified: string) =>
  JSON.parse(wooOrderJson({ id, status, modified })) as Record<string, unknown>;

describe('WooCommerce REST v3', () => {
  it('reads orders modified in the window, oldest first, page by page, with the consumer key as basic auth', async () => {
    woo.orders.clear();
    for (let i = 0; i < 230; i++)
      woo.orders.set(
        i + 1,
        wooOrder(
          i + 1,
          i % 3 === 0 ? 'completed' : 'processing',
          `2026-11-18T10:${String(Math.floor(i / 4) % 60).padStart(2, '0')}:${String((i % 4) * 10).padStart(2, '0')}`,
        ),
      );
    woo.orders.set(999, wooOrder(999, 'processing', '2026-11-25T00:00:00'));
    const before = woo.requests.length;
    const events = await collect(
      fetchWooOrders(rest(), { since: new Date('2026-11-18T00:00:00Z'), until: new Date('2026-11-20T00:00:00Z') }),
    );
    expect(events.map((event) => event.orderId)).toEqual(Array.from({ length: 230 }, (_, i) => String(i + 1)));
    const first = woo.requests[before];
    expect(first?.query).toMatchObject({
      modified_after: '2026-11-18T00:00:00',
      modified_before: '2026-11-20T00:00:00',
      dates_are_gmt: 'true',
      orderby: 'modified',
      order: 'asc',
      per_page: '100',
    });
    expect(events[0]?.shop).toBe(woo.host);
  });

  it('skips no order when one is modified while the pages are read', async () => {
    woo.orders.clear();
    for (let i = 0; i < 250; i++)
      woo.orders.set(
        i + 1,
        wooOrder(
          i + 1,
          'processing',
          `2026-11-18T11:00:${String(i % 60).padStart(2, '0')}`.replace(
            '11:00',
            `11:${String(Math.floor(i / 60)).padStart(2, '0')}`,
          ),
        ),
      );
    let pages = 0;
    woo.beforePage = () => {
      // After the first page is read, an order on it is completed: it moves to the end of the list.
      if (++pages === 2) woo.orders.set(5, wooOrder(5, 'completed', '2026-11-18T12:30:00'));
    };
    const events = await collect(fetchWooOrders(rest(), { since: new Date('2026-11-18T00:00:00Z') }));
    woo.beforePage = () => undefined;
    const ids = new Set(events.map((event) => event.orderId));
    expect([...Array.from({ length: 250 }, (_, i) => String(i + 1))].filter((id) => !ids.has(id))).toEqual([]);
    // The modified order is read again, in its new state.
    expect(events.filter((event) => event.orderId === '5').map((event) => event.facts.includes('fulfilled'))).toEqual([
      false,
      true,
    ]);
  });

  it('says which settings to check when the key is refused', async () => {
    await expect(collect(fetchWooOrders(rest({ consumerSecret: 'wrong' }), { since: new Date() }))).rejects.toThrow(
      /WOOCOMMERCE_CONSUMER_KEY/,
    );
  });

  it('refuses to send the key over plain http to another machine', async () => {
    await expect(collect(fetchWooOrders(rest({ url: 'http://wp.example' }), { since: new Date() }))).rejects.toThrow(
      /must be https/,
    );
  });

  describe('on a server that drops the Authorization header', () => {
    const listed = (since: number) =>
      woo.requests.slice(since).filter((request) => request.path === '/wp-json/wc/v3/orders');

    it('retries once with the key in the query string, and then sends it that way', async () => {
      woo.orders.clear();
      woo.orders.set(1, wooOrder(1, 'processing', '2026-11-18T10:00:00'));
      woo.dropsAuthorization = true;
      try {
        const learnt: string[] = [];
        const client = rest({ onAuthMode: (mode) => learnt.push(mode) });
        const before = woo.requests.length;
        expect(await collect(fetchWooOrders(client, { since: new Date('2026-11-18T00:00:00Z') }))).toHaveLength(1);
        // The Basic auth header never reached WooCommerce: to it, the first request was anonymous.
        expect(listed(before).map((request) => [request.auth, request.status])).toEqual([
          ['none', 401],
          ['query', 200],
        ]);
        expect(learnt).toEqual(['query']);
        expect(client.authMode).toBe('query');
        const again = woo.requests.length;
        await collect(fetchWooOrders(client, { since: new Date('2026-11-18T00:00:00Z') }));
        expect(listed(again).map((request) => request.auth)).toEqual(['query']);
      } finally {
        woo.dropsAuthorization = false;
      }
    });

    it('says it tried both ways when the key is refused either way', async () => {
      woo.dropsAuthorization = true;
      try {
        await expect(
          collect(fetchWooOrders(rest({ consumerKey: 'ck_unknown' }), { since: new Date() })),
        ).rejects.toThrow(
          /refused the consumer key, sent as Basic auth \(401 woocommerce_rest_cannot_view: .*\) and then in the query string \(401 woocommerce_rest_cannot_view: .*\); check WOOCOMMERCE_CONSUMER_KEY/,
        );
      } finally {
        woo.dropsAuthorization = false;
      }
    });

    it('does not retry a refusal that says the key arrived (a wrong secret)', async () => {
      const before = woo.requests.length;
      await expect(
        collect(fetchWooOrders(rest({ consumerSecret: 'cs_wrong' }), { since: new Date() })),
      ).rejects.toThrow(
        /sent as Basic auth \(401 woocommerce_rest_authentication_error: Consumer secret is invalid\.\);/,
      );
      expect(listed(before).map((request) => request.auth)).toEqual(['basic']);
    });
  });

  it("reads the store's webhooks, with the status WooCommerce gave them", async () => {
    woo.webhooks.splice(0, woo.webhooks.length, {
      id: 4,
      name: 'Orders',
      status: 'disabled',
      topic: 'order.updated',
      delivery_url: 'https://bridge.example.com/webhooks/woocommerce',
      secret: 's',
      failures: 5,
    });
    expect(await fetchWooWebhooks(rest())).toMatchObject([{ id: 4, status: 'disabled', topic: 'order.updated' }]);
  });
});

describe('BigCommerce', () => {
  const api = () => new BigCommerceApi({ storeHash: BC_STORE, accessToken: 'bc-token', baseUrl: bc.url });

  it('reads orders by date modified, page by page, until an empty 204 page', async () => {
    bc.orders.clear();
    for (let i = 0; i < 260; i++)
      bc.orders.set(1000 + i, {
        ...bcOrder(1000 + i, 11),
        date_modified: new Date(Date.UTC(2026, 10, 19, 10, 0, i)).toUTCString(),
      });
    const before = bc.requests.length;
    const events = await collect(api().orders({ since: new Date('2026-11-01T00:00:00Z') }));
    expect(events).toHaveLength(260);
    expect(bc.requests.slice(before).filter((request) => request.path === '/v2/orders').length).toBeGreaterThanOrEqual(
      2,
    );
  });

  it('reads one order with its coupons, and says it does not exist when BigCommerce says so', async () => {
    bc.orders.set(77, {
      ...bcOrder(77, 2, { couponDiscount: '3.0000' }),
      coupons: [{ id: 1, coupon_id: 4, code: 'LOYALTY-BC', amount: '3.0000', discount: 3 }],
    });
    expect(await api().orderEvent('77', 'bigcommerce:msg_1')).toMatchObject({
      orderId: '77',
      facts: ['placed', 'paid', 'fulfilled'],
      discountCodes: [{ code: 'LOYALTY-BC', amount: '3' }],
    });
    expect(await api().orderEvent('78787', 'x')).toBeUndefined();
  });

  it('sees a free-shipping code on a shipped order whatever its shipping cost, and reads no coupons of a digital one', async () => {
    // The code applied, a paid method picked all the same: its single use is spent, so the bridge must see it.
    const code = { code: 'LB-FREESHIPPINGPAID', discount: 0, type: 4 };
    bc.orders.set(81, bcOrder(81, 2, { shippingCost: '12.0000', coupons: [code] }));
    bc.orders.set(82, bcOrder(82, 2, { shippingCost: '0.0000', coupons: [code] }));
    for (const id of ['81', '82'])
      expect((await api().orderEvent(id, `bigcommerce:msg_${id}`))?.discountCodes).toEqual([
        { code: 'LB-FREESHIPPINGPAID', amount: '0' },
      ]);
    bc.orders.set(83, bcOrder(83, 2));
    const before = bc.requests.length;
    expect((await api().orderEvent('83', 'bigcommerce:msg_83'))?.discountCodes).toEqual([]);
    expect(bc.requests.slice(before).some((request) => request.path.endsWith('/coupons'))).toBe(false);
  });

  it('says to check the token when BigCommerce refuses it', async () => {
    await expect(
      new BigCommerceApi({ storeHash: BC_STORE, accessToken: 'wrong', baseUrl: bc.url }).orderEvent('77', 'x'),
    ).rejects.toThrow(/BIGCOMMERCE_ACCESS_TOKEN/);
  });

  it('waits for the rate-limit window to reset when BigCommerce says none are left, instead of being refused', async () => {
    bc.quota = { requests: 3, windowMs: 600 };
    try {
      const client = api();
      const before = bc.requests.length;
      for (let i = 0; i < 7; i++) await client.orderEvent('77', 'x');
      const statuses = bc.requests.slice(before).map((request) => request.status);
      expect(statuses.filter((status) => status === 429)).toEqual([]);
      expect(statuses.filter((status) => status === 200).length).toBe(7 + 7);
    } finally {
      bc.quota = { requests: 150, windowMs: 30_000 };
    }
  });

  it('creates the hooks the bridge needs with its secret header, turns a deactivated one back on, and a second run changes nothing', async () => {
    bc.hooks.splice(0, bc.hooks.length, {
      id: 900,
      scope: 'store/order/created',
      destination: 'https://bridge.example.com/webhooks/bigcommerce',
      is_active: false,
      headers: { 'x-loyalty-bridge-token': 'old' },
      created_at: 0,
      updated_at: 0,
    });
    const first = await registerBigCommerceHooks(
      api(),
      'https://bridge.example.com',
      'a-secret-header-value-for-bc-tests',
    );
    expect(first).toMatchObject({ reactivated: ['store/order/created'], alreadyThere: [] });
    expect(first.created).toHaveLength(4);
    expect(
      bc.hooks.every(
        (hook) => hook.is_active && hook.headers?.['x-loyalty-bridge-token'] === 'a-secret-header-value-for-bc-tests',
      ),
    ).toBe(true);
    const second = await registerBigCommerceHooks(
      api(),
      'https://bridge.example.com/',
      'a-secret-header-value-for-bc-tests',
    );
    expect(second).toMatchObject({ created: [], reactivated: [] });
    expect(second.alreadyThere).toHaveLength(5);
  });
});
