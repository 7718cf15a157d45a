// The loop that intake and the worker share: claim what is due, handle up to `concurrency` items at once,
// wake when the store says something is due, and sleep until the earliest due time (or a poll interval, when
// other instances may have left work behind). Of passes close together, the newest answer sets the timer and
// an older one only brings it earlier (#arm). Each claim's items are leased (leases.ts), and a loop may yield
// to more urgent work on the same event loop (yieldTo).
import type { Logger } from '../logger.ts';
import { LeaseKeeper, type Lease } from './leases.ts';
import type { Claim } from './store/ledger-store.ts';

export interface WorkLoopLeases<T> {
  /** This instance: each claim's token starts with it. */
  owner: string;
  leaseMs: number;
  keyOf: (item: T) => string;
  /** The store's renewClaims for these items. */
  renew: (claims: Claim[]) => Promise<Claim[]>;
}

/**
 * While contended() says more urgent work is waiting for the event loop, the
 * loop starts only as many items as allowance() says (the urgent work earns
 * the allowance as it goes, so the loop never stops), and reports them with
 * spend(). It waits until the allowance makes a whole batch (`concurrency`
 * items): many small batches would cost more than one large one (each is a
 * round of ledger writes).
 */
export interface YieldTo {
  contended(): boolean;
  allowance(): number;
  spend(count: number): void;
}

export interface WorkLoopOptions<T> {
  name: string;
  concurrency: number;
  /** Claims up to `limit` items under the token `owner`. */
  claim: (limit: number, owner: string) => Promise<T[]>;
  handle: (item: T, lease: Lease) => Promise<void>;
  /** After handle() failed: lets go of the item's claim (the loop's `finally`), so that no failure strands it. */
  abandon: (item: T, lease: Lease) => Promise<void>;
  leases: WorkLoopLeases<T>;
  /** When the earliest item not due yet becomes due. */
  nextAt: () => Promise<number | undefined>;
  /** Look again at least this often (a shared store: other instances' leases expire). */
  pollMs?: number | undefined;
  /** More urgent work on the same event loop, which this loop yields to (YieldTo). */
  yieldTo?: YieldTo | undefined;
  /** While yielding without a batch's allowance, look again after this long (or when woken). */
  restMs?: number;
  logger: Logger;
  now?: () => number;
}

/** After a failed read of when work is due, or a failed claim, look again this soon. */
const ARM_RETRY_MS = 1_000;

export class WorkLoop<T> {
  readonly #o: WorkLoopOptions<T>;
  #running = false;
  #inFlight = 0;
  #pumping: Promise<void> | undefined;
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #idleWaiters: Array<() => void> = [];
  /** The last claim found nothing due: with nothing in flight, the loop is idle. */
  #drained = false;
  readonly #leases: LeaseKeeper;
  #claims = 0;
  #restTimer: NodeJS.Timeout | undefined;
  /** The last pump stopped to rest while yielding: the rest timer wakes the loop. */
  #resting = false;
  /** The last pass failed (a claim threw): the next look is no sooner than ARM_RETRY_MS. */
  #pumpFailed = false;
  /** Reads of nextAt() begun, in order; and the one whose answer set the timer, with when it will fire. */
  #reads = 0;
  #timerRead = 0;
  #timerAt: number | undefined;

  constructor(options: WorkLoopOptions<T>) {
    this.#o = options;
    this.#leases = new LeaseKeeper({
      leaseMs: options.leases.leaseMs,
      renew: options.leases.renew,
      logger: options.logger,
      name: options.name,
    });
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  start(): void {
    this.#running = true;
    this.wake();
  }

  /** Stops claiming; resolves when the items under way are handled. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#setTimer(undefined, this.#reads);
    clearTimeout(this.#restTimer);
    await this.#pumping;
    await this.idle();
  }

  /** Something may be due now. */
  wake(): void {
    this.#drained = false;
    if (!this.#running) return this.#notifyIdle();
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = this.#pump()
      .catch((error: unknown) => {
        this.#pumpFailed = true;
        this.#o.logger.error({ err: error, loop: this.#o.name }, 'claiming work failed; trying again shortly');
      })
      .finally(() => {
        this.#pumping = undefined;
        if (this.#again) {
          this.#again = false;
          this.wake();
        } else {
          // A waiter that came after the pass told its waiters, but before it was marked finished, hears it now.
          this.#notifyIdle();
          void this.#arm();
        }
      });
  }

  async #pump(): Promise<void> {
    this.#resting = false;
    this.#pumpFailed = false;
    while (this.#running && this.#inFlight < this.#o.concurrency) {
      this.#again = false;
      const yieldTo = this.#o.yieldTo?.contended() ? this.#o.yieldTo : undefined;
      // Whole batches, once the allowance makes one (the slots free now, beside any slow item still under way).
      if (yieldTo && yieldTo.allowance() < this.#o.concurrency) {
        // Not drained: look again soon, contended or not by then.
        this.#resting = true;
        clearTimeout(this.#restTimer);
        this.#restTimer = setTimeout(() => this.wake(), this.#o.restMs ?? 50);
        this.#restTimer.unref();
        break;
      }
      // A token per claim: a save or renewal under an older claim of the same item (expired, then claimed again) is told apart.
      const owner = `${this.#o.leases.owner}/${this.#o.name}/${++this.#claims}`;
      const claimedAt = this.#leases.now();
      const items = await this.#o.claim(this.#o.concurrency - this.#inFlight, owner);
      if (items.length === 0) {
        if (this.#again) continue;
        this.#drained = true;
        break;
      }
      yieldTo?.spend(items.length);
      for (const item of items) {
        this.#inFlight++;
        const lease = this.#leases.hold(this.#o.leases.keyOf(item), owner, claimedAt);
        void this.#o
          .handle(item, lease)
          .catch(async (error: unknown) => {
            this.#o.logger.error({ err: error, loop: this.#o.name }, 'handling an item failed; it will be tried again');
            await this.#o
              .abandon(item, lease)
              .catch((failure: unknown) =>
                this.#o.logger.error(
                  { err: failure, loop: this.#o.name },
                  'letting go of an item failed; its lease will run out',
                ),
              );
          })
          .finally(() => {
            this.#leases.release(lease);
            this.#inFlight--;
            this.wake();
          });
      }
    }
    this.#notifyIdle();
  }

  async #arm(): Promise<void> {
    // Work due now that the loop cannot take yet (every slot busy, or resting
    // while it yields) is taken when a slot frees or the rest ends, both of
    // which wake the loop: a timer here would only spin, asking nextAt()
    // again and again (on PostgreSQL, a query each time).
    if (!this.#running || this.#resting || this.#inFlight >= this.#o.concurrency) return;
    // Passes close together read side by side, and the answers come in any order. The newest answer knows most
    // (whatever became due after its read wakes the loop by itself): it sets the timer, or clears it when nothing is
    // due. An older answer, or a failed read (which knows nothing), may only bring the wake earlier: one too early
    // costs a look; one too late would leave due work asleep (nothing else may wake the loop, on lowdb).
    const read = ++this.#reads;
    // After a failed claim, work due now would be claimed again at once, and fail again, in a spin (a database
    // that reads but cannot write, say): the next look waits a while, unless something new wakes the loop. Taken
    // by this read, begun after the failure, not by an older one answering first.
    const afterFailure = this.#pumpFailed;
    this.#pumpFailed = false;
    let next: number | undefined;
    let knows = true;
    try {
      next = await this.#o.nextAt();
    } catch (error) {
      this.#o.logger.warn({ err: error, loop: this.#o.name }, 'could not read when work is due next');
      // Looked at again shortly, rather than asleep until something wakes the loop (nothing may, on lowdb).
      next = (this.#o.now ?? Date.now)() + ARM_RETRY_MS;
      knows = false;
    }
    if (!this.#running) return;
    const now = (this.#o.now ?? Date.now)();
    let delay = next === undefined ? Infinity : Math.max(0, next - now);
    if (this.#o.pollMs !== undefined) delay = Math.min(delay, this.#o.pollMs);
    if (afterFailure) delay = Math.max(delay, ARM_RETRY_MS);
    const at = Number.isFinite(delay) ? now + delay : undefined;
    if (knows && read > this.#timerRead) this.#setTimer(at, read);
    else if (at !== undefined && (this.#timerAt === undefined || at < this.#timerAt))
      this.#setTimer(at, this.#timerRead);
  }

  /** The timer, set to wake the loop at `at` (none: cleared) by the answer of read `read`. */
  #setTimer(at: number | undefined, read: number): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = at;
    this.#timerRead = read;
    if (at === undefined) return;
    this.#timer = setTimeout(
      () => {
        this.#timerAt = undefined;
        this.wake();
      },
      Math.min(Math.max(0, at - (this.#o.now ?? Date.now)()), 2 ** 31 - 1),
    );
    this.#timer.unref();
  }

  /** Resolves when nothing is in flight and the last look found nothing due now. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  get isIdle(): boolean {
    return this.#isIdle();
  }

  #isIdle(): boolean {
    return this.#inFlight === 0 && !this.#pumping && (this.#drained || !this.#running);
  }

  #notifyIdle(): void {
    if (this.#inFlight > 0 || !(this.#drained || !this.#running)) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
