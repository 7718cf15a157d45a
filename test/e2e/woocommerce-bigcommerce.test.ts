// Signed WooCommerce and BigCommerce deliveries posted to the running bridge,
// and reconciliation filling a gap WooCommerce left. The stores' own APIs are
// nock; the loyalty sandbox is the real one the bridge serves.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/main.ts';
import { BC_SECRET, BC_STORE, bcHeaders, bcOrder, bcPayload } from '../helpers/bigcommerce.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { WOO_SITE, wooHeaders, wooOrderJson, WOO_ENV } from '../helpers/woocommerce.ts';

let bridge: RunningBridge;
beforeAll(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  bridge = await startTestBridge({
    ...WOO_ENV,
    BIGCOMMERCE_CLIENT_SECRET: BC_SECRET,
    BIGCOMMERCE_STORE_HASH: BC_STORE,
    BIGCOMMERCE_ACCESS_TOKEN: 'bc-token',
    RECONCILE_INTERVAL_MINUTES: '0',
  });
});
afterAll(async () => {
  await bridge.stop();
  nock.enableNetConnect();
});
afterEach(() => nock.cleanAll());

const post = async (platform: string, body: string, headers: Record<string, string>) => {
  const response = await fetch(`${bridge.http.localUrl}/webhooks/${platform}`, { method: 'POST', headers, body });
  return { status: response.status, text: await response.text() };
};
const earning = (orderId: string) => bridge.sandbox?.store.snapshot().earnings.find((candidate) => candidate.orderId === orderId);

describe('WooCommerce', () => {
  it('answers the ping of a new webhook with exactly 200', async () => {
    const response = await post('woocommerce', 'webhook_id=3', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(response.status).toBe(200);
  });

  it('earns on processing, approves on completed, cancels on refunded', async () => {
    const send = (status: string, modified: string) => {
      const body = wooOrderJson({ id: 5101, status, modified });
      return post('woocommerce', body, wooHeaders('order.updated', body));
    };
    expect((await send('processing', '2026-11-19T10:00:00')).status).toBe(200);
    await bridge.engine.drain();
    expect(earning('5101')).toMatchObject({ status: 'pending', email: 'katherine@example.com', mobile: '+33612345678' });
    await send('completed', '2026-11-19T11:00:00');
    await bridge.engine.drain();
    expect(earning('5101')?.status).toBe('approved');
    await send('refunded', '2026-11-19T12:00:00');
    await bridge.engine.drain();
    expect(earning('5101')?.status).toBe('cancelled');
  });

  it('answers 401 to an unsigned order and keeps nothing', async () => {
    const body = wooOrderJson({ id: 5102, status: 'processing' });
    expect((await post('woocommerce', body, { 'content-type': 'application/json' })).status).toBe(401);
    await bridge.engine.drain();
    expect(earning('5102')).toBeUndefined();
  });

  it('earns, at the next reconciliation, an order whose webhook was never delivered', async () => {
    let modifiedAfter: string | undefined;
    // The store's REST API lists the order its webhook never delivered, and tells us the window asked for.
    const storeListsTheMissedOrder = () =>
      nock(WOO_SITE)
        .get('/wp-json/wc/v3/orders')
        .query((query) => {
          modifiedAfter = String(query.modified_after);
          return true;
        })
        .reply(200, `[${wooOrderJson({ id: 5199, status: 'processing', email: 'missed@example.com' })}]`, { 'X-WP-TotalPages': '1' });
    storeListsTheMissedOrder();
    await bridge.reconciler.run('woocommerce');
    await bridge.engine.drain();
    expect(earning('5199')).toMatchObject({ status: 'pending', email: 'missed@example.com' });
    const state = bridge.engine.ledger.reconciliation().woocommerce;
    expect(state?.lastRun).toMatchObject({ fetched: 1, changed: 1, failed: 0 });
    expect(state?.highWaterMark).toBeTruthy();
    expect(modifiedAfter).toBeTruthy();

    // The next run starts from the mark, minus the overlap; the same order again changes nothing.
    storeListsTheMissedOrder();
    await bridge.reconciler.run('woocommerce');
    const overlapMs = 10 * 60_000;
    expect(Date.parse(`${modifiedAfter}Z`)).toBe(Math.floor((Date.parse(state?.highWaterMark ?? '') - overlapMs) / 1000) * 1000);
    expect(bridge.engine.ledger.reconciliation().woocommerce?.lastRun).toMatchObject({ fetched: 1, changed: 0 });
  });

  it('keeps the high-water mark where it was when a run fails', async () => {
    const before = bridge.engine.ledger.reconciliation().woocommerce?.highWaterMark;
    // got tries a 500 three times (retry limit 2) before giving up.
    nock(WOO_SITE).get('/wp-json/wc/v3/orders').query(true).times(3).reply(500, 'oops');
    await bridge.reconciler.run('woocommerce');
    const after = bridge.engine.ledger.reconciliation().woocommerce;
    expect(after?.highWaterMark).toBe(before);
    expect(after?.lastRun?.errors[0]).toMatch(/answered 500/);
  });
});

describe('BigCommerce', () => {
  const orderReply = (id: number, statusId: number, extra: Parameters<typeof bcOrder>[2] = {}) => nock('https://api.bigcommerce.com').get(`/stores/${BC_STORE}/v2/orders/${id}`).reply(200, bcOrder(id, statusId, extra));

  it('reads the order behind a thin delivery: earns, approves, cancels', async () => {
    orderReply(6101, 11);
    let body = bcPayload('store/order/created', 6101);
    expect((await post('bigcommerce', body, bcHeaders(body))).status).toBe(200);
    await bridge.engine.drain();
    expect(earning('6101')).toMatchObject({ status: 'pending', email: 'dorothy@example.com' });

    orderReply(6101, 2);
    body = bcPayload('store/order/statusUpdated', 6101, { status: { previous_status_id: 11, new_status_id: 2 } });
    await post('bigcommerce', body, bcHeaders(body));
    await bridge.engine.drain();
    expect(earning('6101')?.status).toBe('approved');

    orderReply(6101, 4, { refunded: '150.0000' });
    body = bcPayload('store/order/refund/created', 6101, { refund: { refund_id: 9 } });
    await post('bigcommerce', body, bcHeaders(body));
    await bridge.engine.drain();
    expect(earning('6101')?.status).toBe('cancelled');
  });

  it('treats a resent payload as a duplicate, by webhook id and by hash', async () => {
    orderReply(6102, 11);
    const body = bcPayload('store/order/created', 6102, {}, 'samehash6102');
    const first = await post('bigcommerce', body, bcHeaders(body, { id: 'msg_same' }));
    const again = await post('bigcommerce', body, bcHeaders(body, { id: 'msg_same' }));
    const newId = await post('bigcommerce', body, bcHeaders(body, { id: 'msg_other' }));
    expect([first.text, again.text, newId.text].map((text) => (JSON.parse(text) as { result: string }).result)).toEqual(['accepted', 'duplicate', 'duplicate']);
  });

  it('answers 401 to a delivery signed 10 minutes ago (a replay)', async () => {
    const body = bcPayload('store/order/created', 6103);
    expect((await post('bigcommerce', body, bcHeaders(body, { timestamp: Math.floor(Date.now() / 1000) - 600 }))).status).toBe(401);
  });
});
