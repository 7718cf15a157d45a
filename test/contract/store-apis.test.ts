// WooCommerce's REST v3 and BigCommerce's V2 orders API through nock, with
// answers shaped like theirs (X-WP-TotalPages; 204 for an empty page).
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BigCommerceApi } from '../../adapters/bigcommerce/rest-api.ts';
import { fetchWooOrders } from '../../adapters/woocommerce/rest-api.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { bcOrder, BC_STORE } from '../helpers/bigcommerce.ts';
import { WOO_SITE, wooOrderJson } from '../helpers/woocommerce.ts';

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => nock.cleanAll());

const collect = async (source: AsyncIterable<OrderEvent>) => {
  const events: OrderEvent[] = [];
  for await (const event of source) events.push(event);
  return events;
};
const rest = { url: WOO_SITE, consumerKey: 'ck_test', consumerSecret: 'cs_test' };

describe('WooCommerce REST v3', () => {
  it('pages through orders modified in the window, oldest first, with the consumer key as basic auth', async () => {
    const seen: Array<{ query: Record<string, string>; auth: string | undefined }> = [];
    const page = (orders: string[]) =>
      function (this: nock.ReplyFnContext, uri: string) {
        seen.push({ query: Object.fromEntries(new URL(uri, WOO_SITE).searchParams), auth: this.req.headers.authorization as string | undefined });
        return [200, `[${orders.join(',')}]`, { 'X-WP-TotalPages': '2', 'X-WP-Total': '3' }] as nock.ReplyFnResult;
      };
    nock(WOO_SITE)
      .get('/wp-json/wc/v3/orders')
      .query(true)
      .reply(page([wooOrderJson({ id: 1, status: 'processing' }), wooOrderJson({ id: 2, status: 'completed' })]))
      .get('/wp-json/wc/v3/orders')
      .query(true)
      .reply(page([wooOrderJson({ id: 3, status: 'cancelled' })]));
    const events = await collect(fetchWooOrders(rest, { since: new Date('2026-11-18T00:00:00Z'), until: new Date('2026-11-20T00:00:00Z') }));
    expect(events.map((event) => [event.orderId, event.facts.at(-1)])).toEqual([
      ['1', 'paid'],
      ['2', 'fulfilled'],
      ['3', 'cancelled'],
    ]);
    expect(seen[0]?.query).toEqual({
      modified_after: '2026-11-18T00:00:00',
      modified_before: '2026-11-20T00:00:00',
      dates_are_gmt: 'true',
      orderby: 'modified',
      order: 'asc',
      per_page: '100',
      page: '1',
    });
    expect(seen[1]?.query.page).toBe('2');
    expect(seen[0]?.auth).toBe(`Basic ${Buffer.from('ck_test:cs_test').toString('base64')}`);
    expect(events[0]?.shop).toBe('wp.lb-test.example');
  });

  it('says which settings to check when the key is refused', async () => {
    nock(WOO_SITE).get('/wp-json/wc/v3/orders').query(true).reply(401, { code: 'woocommerce_rest_cannot_view', message: 'Sorry, you cannot list resources.' });
    await expect(collect(fetchWooOrders(rest, { since: new Date() }))).rejects.toThrow(/WOOCOMMERCE_CONSUMER_KEY/);
  });

  it('refuses to send the key over plain http', async () => {
    await expect(collect(fetchWooOrders({ ...rest, url: 'http://wp.example' }, { since: new Date() }))).rejects.toThrow(/must be https/);
  });
});

describe('BigCommerce V2 orders', () => {
  const API = 'https://api.bigcommerce.com';
  const base = `/stores/${BC_STORE}/v2`;
  const api = () => new BigCommerceApi({ storeHash: BC_STORE, accessToken: 'bc-token' });

  it('pages through orders by date modified until an empty 204 page', async () => {
    const queries: Array<Record<string, string>> = [];
    const orders = Array.from({ length: 250 }, (_, i) => bcOrder(1000 + i, 11));
    nock(API)
      .get(`${base}/orders`)
      .query((query) => {
        queries.push(query as Record<string, string>);
        return true;
      })
      .reply(200, orders)
      .get(`${base}/orders`)
      .query((query) => {
        queries.push(query as Record<string, string>);
        return true;
      })
      .reply(204);
    const events = await collect(api().orders({ since: new Date('2026-11-01T00:00:00Z') }));
    expect(events).toHaveLength(250);
    expect(queries.map((query) => [query.page, query.sort, query.limit, query.min_date_modified])).toEqual([
      ['1', 'date_modified:asc', '250', '2026-11-01T00:00:00.000Z'],
      ['2', 'date_modified:asc', '250', '2026-11-01T00:00:00.000Z'],
    ]);
  });

  it('reads one order with its coupons, sending the access token', async () => {
    let token: unknown;
    nock(API)
      .get(`${base}/orders/77`)
      .reply(function () {
        token = this.req.headers['x-auth-token'];
        return [200, bcOrder(77, 2, { couponDiscount: '3.0000' })];
      })
      .get(`${base}/orders/77/coupons`)
      .reply(200, [{ id: 1, coupon_id: 4, code: 'LOYALTY-BC', amount: '3.0000', discount: 3 }]);
    const event = await api().orderEvent('77', 'bigcommerce:msg_1');
    expect(token).toBe('bc-token');
    expect(event).toMatchObject({ orderId: '77', facts: ['placed', 'paid', 'fulfilled'], discountCodes: [{ code: 'LOYALTY-BC', amount: '3' }] });
  });

  it('says to check the token when BigCommerce refuses it', async () => {
    nock(API).get(`${base}/orders/78`).reply(401, [{ status: 401, message: 'You are not authorized.' }]);
    await expect(api().orderEvent('78', 'x')).rejects.toThrow(/BIGCOMMERCE_ACCESS_TOKEN/);
  });
});
