// Scheduled reconciliation fills gaps: each platform with API access is asked, per shop, for the orders modified
// since the last good run (less an overlap), which go through the resync path; each run also reads the health of
// the subscriptions that bring deliveries here. A pass holds the store's 'reconcile' lock (two at once would each
// create a missing subscription), and skips a store the app was uninstalled from until it comes back.
// docs/architecture.md, "Reconciliation", says more.
import type { Logger } from '../logger.ts';
import type { Ingest } from './ingest.ts';
import type { OrderSource, SubscriptionHealth } from './order-source.ts';
import { resync } from './resync.ts';
import type { RecordRole, LedgerLifecycle } from './store/ledger-store.ts';
import { waitAtMost } from './wait-at-most.ts';
import { SHOP_KIND, RECONCILIATION_KIND } from './store/roles/core-kinds.ts';
import { HEALTH_KIND } from './order-source.ts';

export interface ReconcilerOptions {
  sources: OrderSource[];
  store: RecordRole & LedgerLifecycle;
  ingest: Ingest;
  logger: Logger;
  intervalMs: number;
  overlapMs: number;
  /** Where the very first window starts, when there is no high-water mark yet. */
  firstLookbackMs: number;
  /** Told of every subscription check, for metrics. */
  onHealth?: (health: SubscriptionHealth) => void;
  /** Before each whole pass: the sources of stores added elsewhere (another bridge, the CLI) are taken in. */
  discover?: () => Promise<void>;
  /** How long a pass for one store waits for another instance's pass to end; past it the schedule covers the store. */
  lockWaitMs?: number;
  now?: () => Date;
}

export const reconciliationId = (platform: string, shop: string) => `${platform}:${shop}`;

export class Reconciler {
  readonly #o: ReconcilerOptions;
  readonly #now: () => Date;
  #timer: NodeJS.Timeout | undefined;
  #first: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  /** This instance's passes, one after another. */
  #queue: Promise<unknown> = Promise.resolve();
  /** Set by stop: no pass starts. */
  #stopping = false;
  /** Set when a stop's deadline passed: the pass still waiting on a platform writes nothing. */
  #abandoned = false;

  constructor(options: ReconcilerOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
  }

  get platforms(): string[] {
    return this.#o.sources.map((source) => source.platform);
  }

  /**
   * The schedule runs whether or not any store is connected yet: the sources
   * (and each source's shops) are read at every pass, so a store connected,
   * installed or reinstalled while the bridge runs is reconciled and its
   * subscriptions kept right on schedule, and one removed drops out of it.
   */
  start(): void {
    if (this.#o.intervalMs <= 0) return;
    this.#timer = setInterval(() => void this.runAll().catch(this.#logFailure), this.#o.intervalMs);
    this.#timer.unref();
    // A first pass soon after start catches what arrived while the bridge was down.
    this.#first = setTimeout(() => void this.runAll().catch(this.#logFailure), 1_000);
    this.#first.unref();
  }

  #logFailure = (error: unknown) => this.#o.logger.error({ err: error }, 'reconciliation failed');

  /**
   * Waits up to timeoutMs for the pass under way. A platform that does not
   * answer must not hold a stop open: a pass still waiting then is left, and
   * writes nothing (its mark unmoved, the next start reads the same window).
   * Resolves whether the pass ended in time.
   */
  async stop(timeoutMs = Infinity): Promise<boolean> {
    this.#stopping = true;
    clearInterval(this.#timer);
    clearTimeout(this.#first);
    const ended = await waitAtMost(this.#queue, timeoutMs);
    if (!ended) this.#abandoned = true;
    return ended;
  }

  /** One pass over every platform and shop; a pass under way or waiting here is joined, one under way on another instance skipped. */
  runAll(): Promise<void> {
    this.#running ??= this.#inTurn(async () => {
      await this.#o.discover?.();
      const result = await this.#o.store.exclusive('reconcile', async () => {
        for (const source of this.#o.sources) {
          for (const shop of await this.#served(source)) await this.#run(source, shop);
        }
      });
      if (!result.ran) this.#o.logger.debug('another instance is reconciling');
    }).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** One platform (and shop, or every shop it reaches), now: after any pass under way, here or on another instance. */
  run(platform: string, shop?: string): Promise<void> {
    return this.#exclusively(`reconcile ${platform}${shop ? ` ${shop}` : ''}`, async () => {
      const source = this.#o.sources.find((candidate) => candidate.platform === platform);
      if (!source) return;
      for (const each of await this.#served(source, shop)) await this.#run(source, each);
    });
  }

  /** After this instance's passes before it. */
  #inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const unlessStopped = () => (this.#stopping ? Promise.resolve(undefined as T) : fn());
    const turn = this.#queue.then(unlessStopped, unlessStopped);
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  /** In turn, under the 'reconcile' lock, waiting a while for another instance's pass to end. */
  #exclusively(what: string, fn: () => Promise<void>): Promise<void> {
    return this.#inTurn(async () => {
      const deadline = Date.now() + (this.#o.lockWaitMs ?? 60_000);
      for (;;) {
        if ((await this.#o.store.exclusive('reconcile', fn)).ran) return;
        // Stopping: the other instance's pass covers the store, or the next start does.
        if (this.#stopping) return;
        if (Date.now() >= deadline) {
          this.#o.logger.warn({ what }, 'another instance is still reconciling; the schedule covers this');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
  }

  /** The source's shops (or the one asked for, if it is one), without those the app was uninstalled from. */
  async #served(source: OrderSource, only?: string): Promise<string[]> {
    const shops = await source.shops();
    const served: string[] = [];
    for (const shop of only === undefined ? shops : shops.filter((each) => each === only)) {
      const state = await this.#o.store.getRecord(SHOP_KIND, `${source.platform}:${shop}`);
      if (!state?.uninstalledAt) served.push(shop);
    }
    return served;
  }

  async #run(source: OrderSource, shop: string): Promise<void> {
    const { store, logger } = this.#o;
    const id = reconciliationId(source.platform, shop);
    const previous = await store.getRecord(RECONCILIATION_KIND, id);
    const startedAt = this.#now();
    const from = previous?.highWaterMark
      ? new Date(Date.parse(previous.highWaterMark) - this.#o.overlapMs)
      : new Date(startedAt.getTime() - this.#o.firstLookbackMs);
    const window = { since: from, until: startedAt };
    const result = await resync(source.fetchOrders(shop, window), this.#o.ingest);
    if (this.#abandoned) return;
    const clean = result.failed === 0;
    await store.putRecord(RECONCILIATION_KIND, id, {
      platform: source.platform,
      shop,
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
    log(
      {
        platform: source.platform,
        shop,
        fetched: result.fetched,
        changed: result.changed,
        failed: result.failed,
        errors: result.errors.slice(0, 3),
      },
      'reconciliation',
    );
    if (source.checkSubscriptions) await this.#check(source, shop);
  }

  /** Reads what the platform says of the subscriptions, keeps it for status and the dashboard, and says what is wrong. */
  async #check(source: OrderSource, shop: string): Promise<SubscriptionHealth | undefined> {
    if (!source.checkSubscriptions) return undefined;
    let health: SubscriptionHealth;
    try {
      health = await source.checkSubscriptions(shop);
    } catch (error) {
      health = {
        platform: source.platform,
        shop,
        checkedAt: this.#now().toISOString(),
        healthy: 0,
        repaired: [],
        problems: [],
        error: (error as Error).message,
      };
    }
    if (this.#abandoned) return undefined;
    await this.#o.store.putRecord(HEALTH_KIND, reconciliationId(source.platform, shop), health);
    this.#o.onHealth?.(health);
    for (const problem of health.problems) {
      this.#o.logger.error(
        { platform: source.platform, shop, topic: problem.topic, kind: problem.kind },
        `${problem.detail}. ${problem.fix}`,
      );
    }
    if (health.repaired.length > 0)
      this.#o.logger.warn({ platform: source.platform, shop, repaired: health.repaired }, 'subscriptions put right');
    return health;
  }

  /** Checks the subscriptions of every shop now (at start, and after an install), as a pass does. */
  checkAllSubscriptions(platform?: string, shop?: string): Promise<void> {
    return this.#exclusively(`check ${platform ?? 'every platform'}'s subscriptions`, async () => {
      for (const source of this.#o.sources.filter((candidate) => !platform || candidate.platform === platform)) {
        for (const each of await this.#served(source, shop)) await this.#check(source, each);
      }
    });
  }
}
