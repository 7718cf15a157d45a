// Composition root: builds the parts from the configuration, starts them, and stops them in order. Nothing
// else in the code reads the configuration. What each part is wired from lives beside it in this folder; the phases
// of a start in bridge-phases.ts.
import { randomBytes, randomUUID } from 'node:crypto';
import { Activity } from '../activity.ts';
import { isSandboxMode, type Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { UpstreamHealth } from '../loyalty/health.ts';
import { Metrics } from '../metrics.ts';
import { buildCore, openLedger, prepareLedger, serve, wireWork, type BridgeRun } from './bridge-phases.ts';
import type { BridgeOptions, RunningBridge } from './running-bridge.ts';

export type { BridgeOptions, RunningBridge } from './running-bridge.ts';

/** A token for this run; never one beginning with a dash, which `--token <token>` would read as an option. */
function runToken(): string {
  const token = randomBytes(24).toString('base64url');
  return token.startsWith('-') ? runToken() : token;
}

export async function startBridge(
  configured: Config,
  logger: Logger,
  options: BridgeOptions = {},
): Promise<RunningBridge> {
  // The demo's settings are platforms' only: where to listen, the ledger and the sandbox are the operator's.
  const sandboxMode = isSandboxMode(configured);
  const run: BridgeRun = {
    logger,
    options,
    // The sandbox needs no real credentials, so neither does its dashboard: a token for this run only.
    adminToken: configured.ADMIN_TOKEN ?? (sandboxMode ? runToken() : undefined),
    // In sandbox mode the bridge calls the sandbox it serves itself, with the sandbox's credentials; its address is
    // known once the server listens.
    loyalty: { baseUrl: configured.LOYALTY_BASE_URL ?? '' },
    metrics: new Metrics({ shopLabels: configured.METRICS_SHOP_LABELS }),
    health: new UpstreamHealth(),
    activity: new Activity(),
    instance: randomUUID(),
    // Draining first (readiness down, deliveries still taken, for SHUTDOWN_GRACE_SECONDS: a load balancer moves to
    // the other instances), then closed: webhooks get 503 and the platforms send them again later.
    gate: { open: true, draining: false },
  };
  const ledger = await openLedger(configured, sandboxMode, run);
  const core = await buildCore(ledger, run);
  await prepareLedger(ledger, core, run);
  const work = wireWork(ledger, core, run);
  return serve(ledger, core, work, run);
}
