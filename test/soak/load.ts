// The held load of the soak: signed Shopify deliveries at a steady rate into
// the real bridge (its own process), against a sandbox with some faults, for
// minutes; resident memory and the backlog sampled along the way. At the
// end, every acknowledged order must be earned, once, and within drainSeconds
// of the load's end. An order earned later than that is late (it was in the
// ledger all along); one never earned within the grace after it is lost.
// Runs on lowdb or on PostgreSQL (env: DATABASE_URL), and on a slow disk
// (slowFsyncMs: every fsync of the bridge delayed through strace).
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
  /** Seconds from the end of the load until every acknowledged order was earned; null when some never were. */
  drainedAfterSeconds: number | null;
  /** Earned, but more than drainSeconds after the load ended. */
  late: number;
  /** Acknowledged and never earned, even after the grace. */
  lost: number;
  /** The most deliveries waiting to be read, and orders still moving, seen at once. */
  peakBacklog: { inbox: number; activeOrders: number };
  doubled: number;
  faultsInjected: number;
  memoryMb: { start: number; afterWarmup: number; end: number; driftAfterWarmup: number };
}

export interface HeldLoadOptions {
  seconds: number;
  ratePerSecond: number;
  warmupSeconds: number;
  faultRate: number;
  /** The backlog must be gone this long after the load ends (default 60). */
  drainSeconds?: number;
  /** How long to wait beyond that before an order counts as lost (default 600). */
  graceSeconds?: number;
  /** More settings for the bridge: DATABASE_URL for PostgreSQL, say. */
  env?: Record<string, string>;
  /** Delay every fsync and fdatasync of the bridge by this much (a slow disk). */
  slowFsyncMs?: number;
  /** Flags for the bridge's node (--cpu-prof, say, which NODE_OPTIONS may not carry). */
  nodeArgs?: string[];
}

// --seccomp-bpf: strace stops the bridge only at the syscalls it delays, so only the disk is slow, not everything.
export const slowDisk = (ms: number): string[] => [
  'strace',
  '--seccomp-bpf',
  '-f',
  '-qq',
  '-o',
  '/dev/null',
  '-e',
  'trace=fdatasync,fsync',
  '-e',
  `inject=fdatasync,fsync:delay_exit=${ms * 1000}`,
];

/** What /metrics says of the backlog. */
async function backlog(url: string): Promise<{ inbox: number; activeOrders: number } | undefined> {
  try {
    const text = await (await fetch(`${url}/metrics`)).text();
    const gauge = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return { inbox: gauge('loyalty_bridge_inbox_backlog'), activeOrders: gauge('loyalty_bridge_jobs_pending') };
  } catch {
    return undefined;
  }
}

export async function heldLoad(
  {
    seconds,
    ratePerSecond,
    warmupSeconds,
    faultRate,
    drainSeconds = 60,
    graceSeconds = 600,
    env = {},
    slowFsyncMs,
    nodeArgs = [],
  }: HeldLoadOptions,
  log: (line: string) => void,
): Promise<LoadResult> {
  const sandbox = await startTestSandbox({
    rateLimit: 1_000_000,
    faults: { failureRate: faultRate, failureStatus: 503 },
  });
  const bridge = await startServer(
    [...nodeArgs, CLI, 'start'],
    {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'soak-')),
      LOG_LEVEL: 'warn',
      SHOPIFY_API_SECRET: SECRET,
      SHOPIFY_SHOPS: 'bench-store.myshopify.com',
      LOYALTY_BASE_URL: sandbox.url,
      LOYALTY_API_KEY: 'test-sandbox-key',
      LOYALTY_BRAND_ID: 'test-brand',
      LOYALTY_RATE_LIMIT_PER_MINUTE: '1000000',
      RECONCILE_INTERVAL_MINUTES: '0',
      // The heap ceiling docs/operations.md recommends: without one, V8 on a 24 GB machine lets
      // garbage pile up toward a ~4 GB heap before collecting, and RSS then
      // measures the collector's appetite rather than what the bridge holds.
      NODE_OPTIONS: process.env.SOAK_NODE_OPTIONS ?? '--max-old-space-size=256',
      ...env,
    },
    slowFsyncMs ? { prefix: slowDisk(slowFsyncMs) } : {},
  );
  const acknowledged: string[] = [];
  let sent = 0;
  let refused = 0;
  const samples: Array<{ at: number; rss: number }> = [];
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  let loggedMinute = 0;
  const peakBacklog = { inbox: 0, activeOrders: 0 };
  const sampler = setInterval(() => {
    samples.push({ at: (performance.now() - started) / 1000, rss: bridge.rssBytes() ?? 0 });
    void backlog(bridge.url).then((seen) => {
      if (!seen) return;
      peakBacklog.inbox = Math.max(peakBacklog.inbox, seen.inbox);
      peakBacklog.activeOrders = Math.max(peakBacklog.activeOrders, seen.activeOrders);
    });
  }, 5_000);
  samples.push({ at: 0, rss: bridge.rssBytes() ?? 0 });
  try {
    // A steady rate: each tick sends what is due since the start.
    while (performance.now() - started < seconds * 1000) {
      const due = Math.floor(((performance.now() - started) / 1000) * ratePerSecond);
      while (sent < due) {
        sent++;
        const one = signedDelivery(SECRET, 8_100);
        const request = fetch(`${bridge.url}${one.request.path}`, {
          method: 'POST',
          headers: one.request.headers,
          body: one.request.body,
        })
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
        const seen = await backlog(bridge.url);
        log(
          `  ${minute} min: ${sent} sent, ${acknowledged.length} acknowledged, ${sandbox.store.snapshot().earnings.length} earned, inbox ${seen?.inbox ?? '?'}, RSS ${Math.round((bridge.rssBytes() ?? 0) / 2 ** 20)} MB`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(inFlight);
    samples.push({ at: (performance.now() - started) / 1000, rss: bridge.rssBytes() ?? 0 });
    // Drained when every acknowledged order is earned (the faults make some calls wait for a retry).
    const ended = performance.now();
    let missing = acknowledged;
    let drainedAfterSeconds: number | null = null;
    let lateAfterDrain: number | undefined;
    while (performance.now() < ended + (drainSeconds + graceSeconds) * 1000) {
      missing = missing.filter((id) => !sandbox.store.earningFor('1', id));
      if (lateAfterDrain === undefined && performance.now() >= ended + drainSeconds * 1000) {
        lateAfterDrain = missing.length;
        if (missing.length > 0)
          log(
            `  ${missing.length} acknowledged orders not earned ${drainSeconds} s after the load: waiting up to ${graceSeconds} s more to tell late from lost`,
          );
      }
      if (missing.length === 0) {
        drainedAfterSeconds = Number(((performance.now() - ended) / 1000).toFixed(1));
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // Not earned at the drain deadline, but earned before the grace ran out.
    const late = (lateAfterDrain ?? 0) - missing.length;
    const earnings = sandbox.store.snapshot().earnings;
    const perOrder = new Map<string, number>();
    for (const earning of earnings) perOrder.set(earning.orderId ?? '', (perOrder.get(earning.orderId ?? '') ?? 0) + 1);
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
    // Medians over a minute (or what there is) on each side: one sample is mostly the garbage collector's timing.
    const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const span = Math.min(60, (seconds - warmupSeconds) / 2);
    const afterWarmup =
      middle(
        samples
          .filter((sample) => sample.at >= warmupSeconds && sample.at <= warmupSeconds + span)
          .map((sample) => sample.rss),
      ) || samples[0]!.rss;
    const end =
      middle(samples.filter((sample) => sample.at >= seconds - span).map((sample) => sample.rss)) ||
      samples.at(-1)!.rss;
    return {
      seconds,
      ratePerSecond,
      sent,
      acknowledged: acknowledged.length,
      refused,
      drainedAfterSeconds,
      late,
      lost: missing.length,
      peakBacklog,
      doubled: [...perOrder.values()].filter((count) => count > 1).length,
      faultsInjected: sandbox.faults.injected,
      memoryMb: {
        start: mb(samples[0]!.rss),
        afterWarmup: mb(afterWarmup),
        end: mb(end),
        driftAfterWarmup: Number(((end - afterWarmup) / afterWarmup).toFixed(3)),
      },
    };
  } finally {
    clearInterval(sampler);
    await bridge.stop();
    await sandbox.close();
  }
}
