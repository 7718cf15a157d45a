// In sandbox mode the bridge's own client calls the sandbox the bridge serves.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startBridge, type RunningBridge } from '../../src/main.ts';

let bridge: RunningBridge;
beforeAll(async () => {
  const loaded = loadConfig({ env: { PORT: '0', HOST: '127.0.0.1', SANDBOX_API_KEY: 'mode-key-1', SANDBOX_BRAND_ID: 'mode-brand' } });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  bridge = await startBridge(loaded.config, createLogger({ level: 'silent' }));
});
afterAll(() => bridge.stop());

it('points the client at its own /sandbox with the sandbox credentials', async () => {
  expect(bridge.loyaltyBaseUrl).toBe(`${bridge.http.localUrl}/sandbox`);
  await bridge.client.earn({ activityId: '1', name: 'Ada', email: 'ada@example.com', mobile: '+447700900123', orderId: '42' });
  expect(bridge.sandbox?.store.snapshot().earnings).toMatchObject([{ orderId: '42', points: 100 }]);
});
