// 1 and 2: acknowledgement throughput and latency, against the two baselines,
// and with history in the ledger.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BASELINE, CLI, startServer, type ServerProcess } from '../lib/bridge-process.ts';
import { ackLoad, type AckResult } from '../lib/load.ts';
import { seedLedger } from '../lib/seed.ts';
import { median } from '../lib/stats.ts';

const SECRET = 'bench-shopify-secret';

export interface AckSummary {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  runs: number;
}

const summarise = (results: AckResult[]): AckSummary => ({
  requestsPerSecond: Math.round(median(results.map((result) => result.requestsPerSecond))),
  p50: median(results.map((result) => result.p50)),
  p99: median(results.map((result) => result.p99)),
  max: median(results.map((result) => result.max)),
  non2xx: results.reduce((sum, result) => sum + result.non2xx + result.errors, 0),
  runs: results.length,
});

export interface AckOptions {
  runs: number;
  seconds: number;
  connections: number;
}

async function measure(start: () => Promise<ServerProcess>, options: AckOptions): Promise<AckSummary> {
  const results: AckResult[] = [];
  for (let run = 0; run < options.runs; run++) {
    const server = await start();
    try {
      results.push(await ackLoad(server.url, SECRET, options));
    } finally {
      await server.stop();
    }
  }
  return summarise(results);
}

/** The bridge in live mode, against a sandbox in its own process. */
export const bridgeEnv = (dataDir: string, sandboxUrl: string): Record<string, string> => ({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'info',
  SHOPIFY_API_SECRET: SECRET,
  LOYALTY_BASE_URL: sandboxUrl,
  LOYALTY_API_KEY: 'sandbox-key',
  LOYALTY_BRAND_ID: 'sandbox-brand',
  RECONCILE_INTERVAL_MINUTES: '0',
});

export function startSandbox(rateLimitPerMinute = 500): Promise<ServerProcess> {
  return startServer([CLI, 'sandbox'], { DATA_DIR: tmpdir(), SANDBOX_RATE_LIMIT_PER_MINUTE: String(rateLimitPerMinute), LOG_LEVEL: 'warn' }, { portVariable: 'SANDBOX_PORT' });
}

export async function ackScenario(options: AckOptions) {
  const tsx = ['--import', 'tsx'];
  const bare = await measure(() => startServer([...tsx, BASELINE], { BASELINE: 'bare', SHOPIFY_API_SECRET: SECRET }), options);
  const hmac = await measure(() => startServer([...tsx, BASELINE], { BASELINE: 'hmac', SHOPIFY_API_SECRET: SECRET }), options);
  const sandbox = await startSandbox();
  try {
    const bridge = await measure(() => startServer([CLI, 'start'], bridgeEnv(mkdtempSync(join(tmpdir(), 'bench-ack-')), sandbox.url)), options);
    return { bare, hmac, bridge, ratioToBare: bridge.requestsPerSecond / bare.requestsPerSecond, ratioToHmac: bridge.requestsPerSecond / hmac.requestsPerSecond };
  } finally {
    await sandbox.stop();
  }
}

export interface GrowthPoint {
  orders: number;
  startupMs: number;
  rssMb: number;
  ack: AckSummary;
}

export async function growthScenario(sizes: number[], options: AckOptions): Promise<GrowthPoint[]> {
  const sandbox = await startSandbox();
  const points: GrowthPoint[] = [];
  try {
    for (const size of sizes) {
      const dataDir = mkdtempSync(join(tmpdir(), `bench-growth-${size}-`));
      await seedLedger(dataDir, size);
      const results: AckResult[] = [];
      let startupMs = 0;
      let rss = 0;
      for (let run = 0; run < options.runs; run++) {
        const server = await startServer([CLI, 'start'], bridgeEnv(dataDir, sandbox.url));
        try {
          startupMs = Math.max(startupMs, server.startupMs);
          results.push(await ackLoad(server.url, SECRET, options));
          rss = Math.max(rss, server.rssBytes() ?? 0);
        } finally {
          await server.stop();
        }
      }
      points.push({ orders: size, startupMs: Math.round(startupMs), rssMb: Math.round(rss / 1024 / 1024), ack: summarise(results) });
    }
  } finally {
    await sandbox.stop();
  }
  return points;
}
