// The held load of the soak: signed Shopify deliveries at a steady rate into
// the real bridge (its own process), against a sandbox with some faults, for
// minutes; resident memory sampled along the way; at the end, every
// acknowledged order must be earned, once.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, startServer } from '../../bench/lib/bridge-process.ts';
import { signedDelivery } from '../../bench/lib/load.ts';
import { startTestSandbox } from '../helpers/sandbox-server.ts';

const SECRET = 'soak-shopify-secret';

export interface LoadResult {
  seconds: number;
  ratePerSecond: number;
  sent: number;
  acknowledged: number;
  refused: number;
  lost: number;
  doubled: number;
  faultsInjected: number;
  memoryMb: { start: number; afterWarmup: number; end: number; driftAfterWarmup: number };
}

export async function heldLoad({ seconds, ratePerSecond, warmupSeconds, faultRate }: { seconds: number; ratePerSecond: number; warmupSeconds: number; faultRate: number }, log: (line: string) => void): Promise<LoadResult> {
  const sandbox = await startTestSandbox({ rateLimit: 1_000_000, faults: { failureRate: faultRate, failureStatus: 503 } });
  const bridge = await startServer([CLI, 'start'], {
    DATA_DIR: mkdtempSync(join(tmpdir(), 'soak-')),
    LOG_LEVEL: 'warn',
    SHOPIFY_API_SECRET: SECRET,
    LOYALTY_BASE_URL: sandbox.url,
    LOYALTY_API_KEY: 'test-sandbox-key',
    LOYALTY_BRAND_ID: 'test-brand',
    LOYALTY_RATE_LIMIT_PER_MINUTE: '1000000',
    RECONCILE_INTERVAL_MINUTES: '0',
    // The heap ceiling README recommends: without one, V8 on a 24 GB machine lets
    // garbage pile up toward a ~4 GB heap before collecting, and RSS then
    // measures the collector's appetite rather than what the bridge holds.
    NODE_OPTIONS: process.env.SOAK_NODE_OPTIONS ?? '--max-old-space-size=256',
  });
  const acknowledged: string[] = [];
  let sent = 0;
  let refused = 0;
  const samples: Array<{ at: number; rss: number }> = [];
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  let loggedMinute = 0;
  const sampler = setInterval(() => samples.push({ at: (performance.now() - started) / 1000, rss: bridge.rssBytes() ?? 0 }), 5_000);
  samples.push({ at: 0, rss: bridge.rssBytes() ?? 0 });
  try {
    // A steady rate: each tick sends what is due since the start.
    while (performance.now() - started < seconds * 1000) {
      const due = Math.floor(((performance.now() - started) / 1000) * ratePerSecond);
      while (sent < due) {
        sent++;
        const one = signedDelivery(SECRET, 8_100);
        const request = fetch(`${bridge.url}${one.request.path}`, { method: 'POST', headers: one.request.headers, body: one.request.body })
          .then(async (response) => {
            await response.arrayBuffer();
            if (response.status === 200) acknowledged.push(one.orderId);
            else refused++;
          })
          .catch(() => {
            refused++;
          })
          .finally(() => inFlight.delete(request));
        inFlight.add(request);
      }
      const minute = Math.floor((performance.now() - started) / 60_000);
      if (minute > loggedMinute) {
        loggedMinute = minute;
        log(`  ${minute} min: ${sent} sent, ${acknowledged.length} acknowledged, RSS ${Math.round((bridge.rssBytes() ?? 0) / 2 ** 20)} MB`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(inFlight);
    samples.push({ at: (performance.now() - started) / 1000, rss: bridge.rssBytes() ?? 0 });
    // Drained when every acknowledged order is earned (the faults make some calls wait for a retry).
    const deadline = performance.now() + 120_000;
    let missing = acknowledged;
    while (performance.now() < deadline) {
      missing = acknowledged.filter((id) => !sandbox.store.earningFor('1', id));
      if (missing.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const earnings = sandbox.store.snapshot().earnings;
    const perOrder = new Map<string, number>();
    for (const earning of earnings) perOrder.set(earning.orderId ?? '', (perOrder.get(earning.orderId ?? '') ?? 0) + 1);
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
    // Medians over a minute (or what there is) on each side: one sample is mostly the garbage collector's timing.
    const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const span = Math.min(60, (seconds - warmupSeconds) / 2);
    const afterWarmup = middle(samples.filter((sample) => sample.at >= warmupSeconds && sample.at <= warmupSeconds + span).map((sample) => sample.rss)) || samples[0]!.rss;
    const end = middle(samples.filter((sample) => sample.at >= seconds - span).map((sample) => sample.rss)) || samples.at(-1)!.rss;
    return {
      seconds,
      ratePerSecond,
      sent,
      acknowledged: acknowledged.length,
      refused,
      lost: missing.length,
      doubled: [...perOrder.values()].filter((count) => count > 1).length,
      faultsInjected: sandbox.faults.injected,
      memoryMb: { start: mb(samples[0]!.rss), afterWarmup: mb(afterWarmup), end: mb(end), driftAfterWarmup: Number(((end - afterWarmup) / afterWarmup).toFixed(3)) },
    };
  } finally {
    clearInterval(sampler);
    await bridge.stop();
    await sandbox.close();
  }
}
