// Which shops earn on the default account: the shops the operator chose.
// WooCommerce's webhook secret of the store configured by hand is visible in
// that merchant's WordPress admin: with it, anyone could sign deliveries
// under any store name they invent. With WOOCOMMERCE_URL set that secret
// signs for the configured store alone: a delivery naming another store is
// refused before it is kept; the configured store earns as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { WOO_ENV, WOO_SITE, wooHeaders, wooOrderJson } from '../helpers/woocommerce.ts';

const INVENTED = 'https://invented-store.example';
let bridge: RunningBridge;
beforeAll(async () => {
  bridge = await startTestBridge({ ...WOO_ENV, RECONCILE_INTERVAL_MINUTES: '0' });
});
afterAll(() => bridge?.stop());

async function deliver(source: string, id: number) {
  const body = wooOrderJson({ id, status: 'processing' });
  const headers = { ...wooHeaders('order.created', body), 'x-wc-webhook-source': `${source}/` };
  const response = await fetch(`${bridge.http.localUrl}/webhooks/woocommerce`, { method: 'POST', headers, body });
  if (response.status === 401) return 401;
  return ((await response.json()) as { result?: string }).result;
}
const earned = (id: number) =>
  bridge.sandbox?.store.snapshot().earnings.filter((earning) => (earning.orderId ?? '').endsWith(String(id))) ?? [];

describe('a WooCommerce store name invented under the configured store’s secret', () => {
  it('is refused and kept nowhere; the configured store earns on the default account', async () => {
    expect(await deliver(INVENTED, 7701)).toBe(401);
    expect(await deliver(WOO_SITE, 7702)).toBe('accepted');
    await bridge.engine.drain();
    expect(earned(7701)).toEqual([]);
    expect(earned(7702)).toEqual([expect.objectContaining({ status: 'pending' })]);
    const orders = (await bridge.engine.store.listOrders({ page: 1, limit: 10 })).orders;
    expect(orders.map((order) => order.orderId)).toEqual(['7702']);
  });
});
