// Scheduled reconciliation: every platform with API access is asked, on an
// interval, for the orders modified since the last successful run (minus an
// overlap, for clocks and slow writes), and those go through the same resync
// path as a manual resync. So it only ever fills gaps: WooCommerce never
// retries a failed delivery, and any platform can drop one.
import type { Logger } from '../logger.ts';
import type { Engine } from './engine.ts';
import type { OrderEvent } from './order-event.ts';
import { resync } from './resync.ts';

export interface ReconcileSource {
  platform: string;
  fetchOrders(window: { since: Date; until?: Date }): AsyncIterable<OrderEvent>;
  /** One order as the platform has it now, for a resync of chosen orders. */
  fetchOrder(orderId: string): Promise<OrderEvent | undefined>;
}

export interface ReconcilerOptions {
  sources: ReconcileSource[];
  engine: Engine;
  logger: Logger;
  intervalMs: number;
  overlapMs: number;
  /** Where the very first window starts, when there is no high-water mark yet. */
  firstLookbackMs: number;
  now?: () => Date;
}

export class Reconciler {
  readonly #o: ReconcilerOptions;
  readonly #now: () => Date;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(options: ReconcilerOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
  }

  get platforms(): string[] {
    return this.#o.sources.map((source) => source.platform);
  }

  start(): void {
    if (this.#o.intervalMs <= 0 || this.#o.sources.length === 0) return;
    this.#timer = setInterval(() => void this.runAll(), this.#o.intervalMs);
    this.#timer.unref();
    // A first pass soon after start catches what arrived while the bridge was down.
    setTimeout(() => void this.runAll(), 1_000).unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  /** One pass over every platform; a pass already under way is joined, not doubled. */
  runAll(): Promise<void> {
    this.#running ??= (async () => {
      for (const source of this.#o.sources) await this.run(source.platform);
    })().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async run(platform: string): Promise<void> {
    const source = this.#o.sources.find((candidate) => candidate.platform === platform);
    if (!source) return;
    const { engine, logger } = this.#o;
    const previous = engine.ledger.reconciliation()[platform];
    const startedAt = this.#now();
    const from = previous?.highWaterMark ? new Date(Date.parse(previous.highWaterMark) - this.#o.overlapMs) : new Date(startedAt.getTime() - this.#o.firstLookbackMs);
    const window = { since: from, until: startedAt };
    const result = await resync(source.fetchOrders(window), engine);
    const clean = result.failed === 0;
    await engine.ledger.saveReconciliation(platform, {
      // Only a clean run moves the mark: a failed one is tried again from the same place.
      highWaterMark: clean ? startedAt.toISOString() : (previous?.highWaterMark ?? null),
      lastRun: {
        startedAt: startedAt.toISOString(),
        finishedAt: this.#now().toISOString(),
        since: window.since.toISOString(),
        until: window.until.toISOString(),
        fetched: result.fetched,
        changed: result.changed,
        unchanged: result.unchanged,
        failed: result.failed,
        errors: result.errors.slice(0, 20),
      },
    });
    const log = clean ? logger.info.bind(logger) : logger.warn.bind(logger);
    log({ platform, fetched: result.fetched, changed: result.changed, failed: result.failed, errors: result.errors.slice(0, 3) }, 'reconciliation');
  }
}
