// 1 and 2: acknowledgement throughput and latency, against the two baselines,
// and with history in the ledger.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
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
  /** Resident memory once started, with the history loaded. */
  rssMb: number;
  /** And after the load run, which added its own orders (tens of thousands) to the ledger. */
  rssAfterLoadMb: number;
  ack: AckSummary;
}

export async function growthScenario(sizes: number[], options: AckOptions): Promise<GrowthPoint[]> {
  const sandbox = await startSandbox();
  const points: GrowthPoint[] = [];
  try {
    for (const size of sizes) {
      const seeded = mkdtempSync(join(tmpdir(), `bench-growth-${size}-`));
      await seedLedger(seeded, size);
      const results: AckResult[] = [];
      const startups: number[] = [];
      const rss: number[] = [];
      const rssAfter: number[] = [];
      for (let run = 0; run < options.runs; run++) {
        // Each run starts from the same history, not from what the previous run added.
        const dataDir = mkdtempSync(join(tmpdir(), `bench-growth-run-`));
        cpSync(seeded, dataDir, { recursive: true });
        const server = await startServer([CLI, 'start'], bridgeEnv(dataDir, sandbox.url));
        try {
          startups.push(server.startupMs);
          await new Promise((resolve) => setTimeout(resolve, 500));
          rss.push(server.rssBytes() ?? 0);
          results.push(await ackLoad(server.url, SECRET, options));
          rssAfter.push(server.rssBytes() ?? 0);
        } finally {
          await server.stop();
          rmSync(dataDir, { recursive: true, force: true });
        }
      }
      const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
      points.push({ orders: size, startupMs: Math.round(median(startups)), rssMb: mb(median(rss)), rssAfterLoadMb: mb(median(rssAfter)), ack: summarise(results) });
      rmSync(seeded, { recursive: true, force: true });
    }
  } finally {
    await sandbox.stop();
  }
  return points;
}
