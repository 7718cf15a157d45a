// The smallest platform, one file (module.ts) on the shared builder, run in the whole bridge: a delivery signed over
// its exact bytes is kept, a forged one is refused (401) and nothing of it is kept.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningBridge } from '../../../src/composition/main.ts';
import { startTestBridge } from '../../helpers/bridge.ts';
import { eventually } from '../../helpers/engine.ts';
import { pocketShop, SIGNATURE } from './module.ts';

const SHOP = 'corner-shop';
const SECRET = 'pocketshop-webhook-secret-smallest';

let bridge: RunningBridge;

beforeAll(async () => {
  bridge = await startTestBridge(
    { POCKETSHOP_STORE: SHOP, POCKETSHOP_WEBHOOK_SECRET: SECRET, RECONCILE_INTERVAL_MINUTES: '0' },
    undefined,
    { modules: [pocketShop] },
  );
});
afterAll(() => bridge?.stop());

/** A paid order as PocketShop sends it, signed with `secret` over the bytes sent. */
function post(orderId: number, secret: string) {
  const order = { id: orderId, number: String(orderId), total: '25.00', currency: 'EUR', paid_at: new Date() };
  const body = Buffer.from(JSON.stringify({ id: `d-${orderId}`, topic: 'order.paid', shop: SHOP, order }));
  const headers = {
    'content-type': 'application/json',
    [SIGNATURE]: createHmac('sha256', secret).update(body).digest('hex'),
  };
  return fetch(`${bridge.http.localUrl}/webhooks/pocketshop`, { method: 'POST', body, headers });
}

it('keeps a signed delivery, and refuses a forged one without keeping it', async () => {
  expect((await post(501, SECRET)).status).toBe(200);
  // No shop of it is the operator's: the order waits for its shop to be linked to an account.
  await eventually(async () =>
    expect((await bridge.engine.store.getOrder(`pocketshop:${SHOP}:501`))?.work.waitingFor).toBe('account'),
  );
  expect((await post(502, 'not-the-secret-0123456789')).status).toBe(401);
  expect(await bridge.engine.store.getOrder(`pocketshop:${SHOP}:502`)).toBeUndefined();
});
