// A newcomer opens a demo shop's page as soon as `npm start` prints it and sends a test order from Set up, while
// the demo's first orders are still being folded. The page looks the order up as soon as the send is answered (as
// try-it.js does): that look finds it, where it was a 404 in the browser's console.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startFirstRunBridge } from '../helpers/bridge.ts';

const SESSION = /<meta name="loyalty-bridge-session" content="([^"]+)">/;

describe('a test order sent from a demo shop’s Set up while the demo’s first orders come in', () => {
  let bridge: RunningBridge;
  beforeAll(async () => {
    bridge = await startFirstRunBridge();
  }, 60_000);
  afterAll(async () => {
    await bridge?.stop();
  });

  it.each(['shopify', 'woocommerce', 'bigcommerce'])(
    'is found by the %s page’s look that follows the send',
    async (platform) => {
      const session = SESSION.exec(await (await fetch(bridge.firstRun!.pageLink(platform)!)).text())?.[1];
      const asMerchant = (path: string, init: RequestInit = {}) =>
        fetch(`${bridge.http.localUrl}/admin/api${path}`, { ...init, headers: { authorization: `Bearer ${session}` } });
      const looks: number[] = [];
      for (let sent = 0; sent < 3; sent++) {
        const answer = await asMerchant('/test-orders', { method: 'POST' });
        expect(answer.status).toBe(202);
        const { testOrder } = (await answer.json()) as { testOrder: { key: string; orderName: string } };
        const look = await asMerchant(`/orders/${encodeURIComponent(testOrder.key)}`);
        looks.push(look.status);
        if (look.status === 200)
          expect(((await look.json()) as { order: { orderName: string } }).order.orderName).toBe(testOrder.orderName);
      }
      expect(looks).toEqual([200, 200, 200]);
    },
  );
});
