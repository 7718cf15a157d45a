// 4: end-to-end latency, from a delivery posted to its earn visible in the
// sandbox, one order at a time with the upstream idle.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startBridge } from '../../src/composition/main.ts';
import { signedDelivery } from '../lib/load.ts';
import { median, percentile } from '../lib/stats.ts';

const SECRET = 'bench-latency-secret';

export async function latencyScenario(
  orders: number,
): Promise<{ orders: number; p50: number; p90: number; max: number }> {
  const loaded = loadConfig({
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-latency-')),
      SHOPIFY_API_SECRET: SECRET,
      SHOPIFY_SHOPS: 'bench-store.myshopify.com',
      RECONCILE_INTERVAL_MINUTES: '0',
    },
  });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const bridge = await startBridge(loaded.config, createLogger({ level: 'silent' }));
  const sandbox = bridge.sandbox;
  if (!sandbox) throw new Error('the latency scenario runs the bridge in sandbox mode');
  const timings: number[] = [];
  try {
    for (let i = 0; i < orders; i++) {
      const { orderId, request: delivery } = signedDelivery(SECRET, 900 + i);
      const started = performance.now();
      const response = await fetch(`${bridge.http.localUrl}${delivery.path}`, {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
      });
      if (response.status !== 200) throw new Error(`delivery answered ${response.status}`);
      while (!sandbox.store.earningFor('1', orderId)) await new Promise((resolve) => setImmediate(resolve));
      timings.push(performance.now() - started);
      // The upstream idle between orders: slower than the rate limit lets calls through.
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  } finally {
    await bridge.stop();
  }
  const round = (value: number) => Number(value.toFixed(1));
  return { orders, p50: round(median(timings)), p90: round(percentile(timings, 90)), max: round(Math.max(...timings)) };
}
