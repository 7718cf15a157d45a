// The bridge's stop, in order: no new deliveries; the work under way finishes, or is left to be made again after
// a restart, which is safe; the ledger is flushed before the server goes (in sandbox mode the calls under way go
// to this very server). One deadline for all of it: a hung platform or service must not hold the stop open.
import type { Config } from '../config.ts';
import type { Engine } from '../core/engine.ts';
import type { Reconciler } from '../core/reconciler.ts';
import { waitAtMost } from '../core/wait-at-most.ts';
import type { Listening } from '../http/listen.ts';
import type { Logger } from '../logger.ts';
import type { DemoStore } from './demo-store.ts';

export interface StopParts {
  config: Config;
  logger: Logger;
  /** Draining first (readiness down, deliveries still taken), then closed: webhooks get 503, sent again later. */
  gate: { open: boolean; draining: boolean };
  demo: DemoStore | undefined;
  reconciler: Reconciler;
  /** Work that may wait on a platform, by what the log calls it. */
  waitingOnPlatforms: Array<{ what: string; done(): Promise<void> }>;
  engine: Engine;
  http: Listening;
  release(): Promise<void>;
}

export async function stopInOrder(parts: StopParts): Promise<void> {
  const { config, logger, gate } = parts;
  parts.demo?.stop();
  gate.draining = true;
  if (config.SHUTDOWN_GRACE_SECONDS > 0) {
    logger.info(
      { seconds: config.SHUTDOWN_GRACE_SECONDS },
      'stopping: not ready any more, still taking deliveries while the load balancer moves away',
    );
    await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_GRACE_SECONDS * 1000));
  }
  gate.open = false;
  // What is left at the deadline is made again after restart, as after a crash.
  const deadline = Date.now() + config.SHUTDOWN_TIMEOUT_MS;
  const left = () => Math.max(0, deadline - Date.now());
  const unfinished: string[] = [];
  if (!(await parts.reconciler.stop(left()))) unfinished.push('a reconciliation');
  for (const { what, done } of parts.waitingOnPlatforms) if (!(await waitAtMost(done(), left()))) unfinished.push(what);
  if (unfinished.length > 0)
    logger.warn({ unfinished }, 'stopping without waiting for work still waiting on a platform; it runs again');
  await parts.engine.stop(left());
  await parts.http.close();
  await parts.release();
  logger.info('stopped');
}
