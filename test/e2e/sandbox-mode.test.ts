// In sandbox mode the bridge's own client calls the sandbox the bridge serves.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startBridge, type RunningBridge } from '../../src/composition/main.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';

let bridge: RunningBridge;
beforeAll(async () => {
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: tempDataDir(),
    SANDBOX_API_KEY: 'mode-key-1',
    SANDBOX_BRAND_ID: 'mode-brand',
  };
  const loaded = loadConfig({ env });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  bridge = await startBridge(loaded.config, createLogger({ level: 'silent' }));
});
afterAll(() => bridge.stop());

it('points the client at its own /sandbox with the sandbox credentials', async () => {
  expect(bridge.loyaltyBaseUrl).toBe(`${bridge.http.localUrl}/sandbox`);
  await bridge.client.earn({
    activityId: '1',
    name: 'Ada',
    email: 'ada@example.com',
    mobile: '+447700900123',
    orderId: '42',
  });
  expect(bridge.sandbox?.store.snapshot().earnings).toMatchObject([{ orderId: '42', points: 100 }]);
});

it('runs an accepted order through its engine into its own sandbox', async () => {
  await bridge.engine.accept('mode-1', [orderEvent({ orderId: '4242', facts: ['paid', 'fulfilled'] })]);
  await bridge.engine.drain();
  expect(bridge.sandbox?.store.snapshot().earnings.find((earning) => earning.orderId === '4242')).toMatchObject({
    status: 'approved',
  });
});
