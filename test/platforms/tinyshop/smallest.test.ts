// The smallest module there is (docs/architecture.md, "Capabilities"): TinyShop with its store and webhook secret
// alone has webhooks and nothing else. Its signed deliveries are kept and its forged ones refused, and the bridge
// asks it for nothing it did not list: no routes, no orders to resync, no storefront, no shop the operator chose.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../../src/composition/main.ts';
import { startTestBridge } from '../../helpers/bridge.ts';
import { eventually } from '../../helpers/engine.ts';
import { signedDelivery, signInPath, tinyOrder } from './fake-tinyshop.ts';
import { tinyShop } from './module.ts';

const STORE = 'corner-shop';
const SECRET = 'tinyshop-webhook-secret-smallest';
const ADMIN_TOKEN = 'tinyshop-operator-token-smallest';

let bridge: RunningBridge;
const url = (path: string) => `${bridge.http.localUrl}${path}`;

beforeAll(async () => {
  bridge = await startTestBridge(
    { TINYSHOP_STORE: STORE, TINYSHOP_WEBHOOK_SECRET: SECRET, ADMIN_TOKEN, RECONCILE_INTERVAL_MINUTES: '0' },
    undefined,
    { modules: [tinyShop] },
  );
});
afterAll(() => bridge?.stop());

describe('a module with webhooks alone', () => {
  it('is built with that one capability', () => {
    const built = bridge.platforms.modules.find(({ module }) => module.name === tinyShop.name);
    expect(Object.keys(built?.parts ?? {}).sort()).toEqual(['webhooks']);
  });

  it('keeps its signed delivery, and refuses a forged one before reading it', async () => {
    const delivery = signedDelivery(SECRET, STORE, 'order.paid', tinyOrder(8101, 'paid'), 'd-8101');
    const answer = await fetch(url('/webhooks/tinyshop'), { method: 'POST', ...delivery });
    expect(answer.status).toBe(200);
    // No shop of it is the operator's: the order waits for its shop to be linked to an account.
    await eventually(async () =>
      expect((await bridge.engine.store.getOrder(`tinyshop:${STORE}:8101`))?.work.waitingFor).toBe('account'),
    );
    const forged = signedDelivery('not-the-secret-0123456789', STORE, 'order.paid', tinyOrder(8102, 'paid'), 'd-x');
    expect((await fetch(url('/webhooks/tinyshop'), { method: 'POST', ...forged })).status).toBe(401);
    expect(await bridge.engine.store.getOrder(`tinyshop:${STORE}:8102`)).toBeUndefined();
  });

  it('has no pages, no storefront and no orders to read', async () => {
    expect((await fetch(url(signInPath(SECRET, STORE)))).status).toBe(404);
    expect((await fetch(url(`/tinyshop/storefront/points?store=${STORE}`))).status).toBe(404);
    const resync = await fetch(url('/admin/api/resync'), {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'tinyshop', since: new Date(Date.now() - 86_400_000).toISOString() }),
    });
    expect(resync.status).toBeGreaterThanOrEqual(400);
  });
});
