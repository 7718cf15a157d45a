// 1: acknowledgement throughput and latency, every answer after an fsync,
// beside the baselines: on the lowdb files, on PostgreSQL, and two
// instances on one PostgreSQL sharing the load as behind one address. The
// durable baseline and lowdb run in turns (baseline, bridge, baseline, ...)
// and their ratio is the median of each pair's: this machine's speed drifts
// by a fifth from minute to minute, and a ratio of runs minutes apart
// measured the drift. The bridge folds what it acknowledged at its minimum
// pace while the load saturates it (src/core/ack-pressure.ts); how long it
// then takes to fold the rest is measured too.
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
export async function measure(
  start: () => Promise<{ urls: string[]; stop(): Promise<void> }>,
  options: AckOptions,
  loadWith = (urls: string[]) => spreadLoad(urls, SECRET, options),
): Promise<AckSummary> {
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
export const bridgeEnv = (
  dataDir: string,
  sandboxUrl: string,
  extra: Record<string, string> = {},
): Record<string, string> => ({
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

export const startBridgeProcess = (sandboxUrl: string, extra: Record<string, string> = {}) =>
  startServer([CLI, 'start'], bridgeEnv(mkdtempSync(join(tmpdir(), 'bench-bridge-')), sandboxUrl, extra));

export function startSandbox(rateLimitPerMinute = 500): Promise<ServerProcess> {
  return startServer(
    [CLI, 'sandbox'],
    { DATA_DIR: tmpdir(), SANDBOX_RATE_LIMIT_PER_MINUTE: String(rateLimitPerMinute), LOG_LEVEL: 'warn' },
    { portVariable: 'SANDBOX_PORT' },
  );
}

/**
 * After a lowdb run: the deliveries acknowledged but not folded when the load
 * stopped, how long folding them took (null: not within two minutes), and
 * the run's deliveries over the whole time until all were folded, as a share
 * of the durable baseline's throughput in the same pair.
 */
export interface FoldCatchUp {
  backlogAtEnd: number;
  foldedAfterMs: number | null;
  foldedRatioToDurable: number | null;
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
  /** lowdb's throughput over the durable baseline's: the median of runs made in turns. */
  ratioToDurable: number;
  /** The lowdb run with the median catch-up (one run's figures, not medians taken apart). */
  foldCatchUp: FoldCatchUp;
}

/** The bridge's inbox backlog, from /metrics. */
async function inboxBacklog(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  const match = /^loyalty_bridge_inbox_backlog (\d+)/m.exec(text);
  if (!match) throw new Error('the bridge reported no inbox backlog on /metrics');
  return Number(match[1]);
}

/** Waits until everything acknowledged is folded, up to two minutes. */
async function catchUp(url: string, run: AckResult, seconds: number, durable: AckResult): Promise<FoldCatchUp> {
  const started = performance.now();
  const backlogAtEnd = await inboxBacklog(url);
  for (let backlog = backlogAtEnd; backlog > 0; backlog = await inboxBacklog(url)) {
    if (performance.now() - started > 120_000) return { backlogAtEnd, foldedAfterMs: null, foldedRatioToDurable: null };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const foldedAfterMs = Math.round(performance.now() - started);
  return {
    backlogAtEnd,
    foldedAfterMs,
    foldedRatioToDurable: run.total / (seconds + foldedAfterMs / 1000) / durable.requestsPerSecond,
  };
}

export async function ackScenario(options: AckOptions): Promise<AckScenario> {
  const bare = await measure(
    () => one(startServer([BASELINE], { BASELINE: 'bare', SHOPIFY_API_SECRET: SECRET })),
    options,
    (urls) => ackLoad(urls[0]!, SECRET, options),
  );
  const hmac = await measure(
    () => one(startServer([BASELINE], { BASELINE: 'hmac', SHOPIFY_API_SECRET: SECRET })),
    options,
    (urls) => ackLoad(urls[0]!, SECRET, options),
  );
  const sandbox = await startSandbox();
  try {
    const durableRuns: AckResult[] = [];
    const lowdbRuns: AckResult[] = [];
    const catchUps: FoldCatchUp[] = [];
    for (let run = 0; run < options.runs; run++) {
      const baseline = await startServer([BASELINE], { BASELINE: 'durable', SHOPIFY_API_SECRET: SECRET });
      try {
        durableRuns.push(await ackLoad(baseline.url, SECRET, options));
      } finally {
        await baseline.stop();
      }
      const bridge = await startBridgeProcess(sandbox.url);
      try {
        const loaded = await ackLoad(bridge.url, SECRET, options);
        lowdbRuns.push(loaded);
        catchUps.push(await catchUp(bridge.url, loaded, options.seconds, durableRuns[run]!));
      } finally {
        await bridge.stop();
      }
    }
    const durable = summarise(durableRuns);
    const lowdb = summarise(lowdbRuns);
    const result: AckScenario = {
      bare,
      hmac,
      durable,
      lowdb,
      ratioToBare: lowdb.requestsPerSecond / bare.requestsPerSecond,
      ratioToDurable: median(
        lowdbRuns.map((each, run) => each.requestsPerSecond / durableRuns[run]!.requestsPerSecond),
      ),
      foldCatchUp: [...catchUps].sort((a, b) => (a.foldedAfterMs ?? Infinity) - (b.foldedAfterMs ?? Infinity))[
        Math.floor(catchUps.length / 2)
      ]!,
    };
    if (await probePostgres()) {
      const onDatabase = async (instances: number) => {
        const database = await freshDatabase();
        const servers: ServerProcess[] = [];
        // One at a time: the first migrates the new database.
        for (let i = 0; i < instances; i++)
          servers.push(await startBridgeProcess(sandbox.url, { DATABASE_URL: database.url }));
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
