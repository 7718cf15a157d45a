// 1: acknowledgement throughput and latency, every answer after an fsync,
// beside the two baselines: on the lowdb files, on PostgreSQL, and two
// instances on one PostgreSQL sharing the load as behind one address.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BASELINE, CLI, startServer, type ServerProcess } from '../lib/bridge-process.ts';
import { freshDatabase, probePostgres } from '../lib/databases.ts';
import { ackLoad, spreadLoad, type AckResult } from '../lib/load.ts';
import { median } from '../lib/stats.ts';

export const SECRET = 'bench-shopify-secret';
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

export interface AckSummary {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  runs: number;
}

export const summarise = (results: AckResult[]): AckSummary => ({
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

/** Starts what one run needs, loads it, and stops it, `runs` times. */
export async function measure(start: () => Promise<{ urls: string[]; stop(): Promise<void> }>, options: AckOptions, loadWith = (urls: string[]) => spreadLoad(urls, SECRET, options)): Promise<AckSummary> {
  const results: AckResult[] = [];
  for (let run = 0; run < options.runs; run++) {
    const started = await start();
    try {
      results.push(await loadWith(started.urls));
    } finally {
      await started.stop();
    }
  }
  return summarise(results);
}

const one = async (server: Promise<ServerProcess>) => {
  const started = await server;
  return { urls: [started.url], stop: () => started.stop() };
};

/** The bridge in live mode, against a sandbox in its own process. */
export const bridgeEnv = (dataDir: string, sandboxUrl: string, extra: Record<string, string> = {}): Record<string, string> => ({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'info',
  SHOPIFY_API_SECRET: SECRET,
  SHOPIFY_SHOPS: 'bench-store.myshopify.com',
  ADMIN_TOKEN,
  LOYALTY_BASE_URL: sandboxUrl,
  LOYALTY_API_KEY: 'sandbox-key',
  LOYALTY_BRAND_ID: 'sandbox-brand',
  RECONCILE_INTERVAL_MINUTES: '0',
  ...extra,
});

export const startBridgeProcess = (sandboxUrl: string, extra: Record<string, string> = {}) => startServer([CLI, 'start'], bridgeEnv(mkdtempSync(join(tmpdir(), 'bench-bridge-')), sandboxUrl, extra));

export function startSandbox(rateLimitPerMinute = 500): Promise<ServerProcess> {
  return startServer([CLI, 'sandbox'], { DATA_DIR: tmpdir(), SANDBOX_RATE_LIMIT_PER_MINUTE: String(rateLimitPerMinute), LOG_LEVEL: 'warn' }, { portVariable: 'SANDBOX_PORT' });
}

export interface AckScenario {
  bare: AckSummary;
  hmac: AckSummary;
  /** Each body appended to a file and fdatasynced, group-committed: the physical limit of a durable answer. */
  durable: AckSummary;
  lowdb: AckSummary;
  /** Absent when no PostgreSQL server answers. */
  postgres?: AckSummary;
  postgresTwo?: AckSummary;
  ratioToBare: number;
  /** lowdb's throughput over the durable baseline's. */
  ratioToDurable: number;
}

export async function ackScenario(options: AckOptions): Promise<AckScenario> {
  const tsx = ['--import', 'tsx'];
  const bare = await measure(() => one(startServer([...tsx, BASELINE], { BASELINE: 'bare', SHOPIFY_API_SECRET: SECRET })), options, (urls) => ackLoad(urls[0]!, SECRET, options));
  const hmac = await measure(() => one(startServer([...tsx, BASELINE], { BASELINE: 'hmac', SHOPIFY_API_SECRET: SECRET })), options, (urls) => ackLoad(urls[0]!, SECRET, options));
  const durable = await measure(() => one(startServer([...tsx, BASELINE], { BASELINE: 'durable', SHOPIFY_API_SECRET: SECRET })), options, (urls) => ackLoad(urls[0]!, SECRET, options));
  const sandbox = await startSandbox();
  try {
    const lowdb = await measure(() => one(startBridgeProcess(sandbox.url)), options);
    const result: AckScenario = { bare, hmac, durable, lowdb, ratioToBare: lowdb.requestsPerSecond / bare.requestsPerSecond, ratioToDurable: lowdb.requestsPerSecond / durable.requestsPerSecond };
    if (await probePostgres()) {
      const onDatabase = async (instances: number) => {
        const database = await freshDatabase();
        const servers: ServerProcess[] = [];
        // One at a time: the first migrates the new database.
        for (let i = 0; i < instances; i++) servers.push(await startBridgeProcess(sandbox.url, { DATABASE_URL: database.url }));
        return {
          urls: servers.map((server) => server.url),
          stop: async () => {
            await Promise.all(servers.map((server) => server.stop()));
            await database.drop();
          },
        };
      };
      result.postgres = await measure(() => onDatabase(1), options);
      result.postgresTwo = await measure(() => onDatabase(2), options);
    }
    return result;
  } finally {
    await sandbox.stop();
  }
}
