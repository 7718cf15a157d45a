// Group commit for the acknowledgement path: deliveries that arrive during a commit go together in the
// next, one statement, one transaction, one NOTIFY. A NOTIFY holds a database-wide lock until its commit
// ends (PostgreSQL's async.c), so one per delivery serialized every instance's commits. Every caller is
// answered by `deadlineMs`: a commit not back by then is an error, which the webhook route answers 503; a
// delivery stored after all is a duplicate when the platform sends it again.
import { BridgeError } from '../../../errors.ts';

export class CommitDeadlineError extends BridgeError<'commit_deadline'> {
  constructor(ms: number) {
    super('commit_deadline', `the ledger did not confirm the commit within ${ms} ms`);
  }
}

/** The longest a timer waits (about 24 days): for items that have no deadline of their own (a save, a take). */
export const NO_DEADLINE_MS = 2 ** 31 - 1;

export interface GroupCommitOptions<T, R> {
  /** Commits a batch in one step; one result per item, in order. */
  commit: (items: T[]) => Promise<R[]>;
  /** Items sharing a key never go in the same batch: the later one waits for the first's commit (and then finds it). */
  keysOf: (item: T) => string[];
  /** An item's weight in a batch (its size in bytes, say), held under maxWeight. */
  weightOf: (item: T) => number;
  maxItems?: number;
  maxWeight?: number;
  /** Batches under way at once: the next one forms while these commit. */
  maxInFlight?: number;
  deadlineMs?: number;
}

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
  settled: boolean;
}

export class GroupCommit<T, R> {
  readonly #o: Required<GroupCommitOptions<T, R>>;
  #waiting: Array<Waiting<T, R>> = [];
  #inFlight = 0;

  constructor(options: GroupCommitOptions<T, R>) {
    this.#o = { maxItems: 500, maxWeight: 8 * 1024 * 1024, maxInFlight: 2, deadlineMs: 3_000, ...options };
  }

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const waiting: Waiting<T, R> = {
        item,
        resolve,
        reject,
        settled: false,
        timer: undefined as unknown as NodeJS.Timeout,
      };
      waiting.timer = setTimeout(() => {
        // Still queued: it never will be committed. Under way: whatever the commit does, this caller hears no later.
        this.#waiting = this.#waiting.filter((other) => other !== waiting);
        this.#settle(waiting, () => reject(new CommitDeadlineError(this.#o.deadlineMs)));
      }, this.#o.deadlineMs);
      waiting.timer.unref();
      this.#waiting.push(waiting);
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inFlight < this.#o.maxInFlight && this.#waiting.length > 0) {
      const batch = this.#take();
      this.#inFlight++;
      this.#o
        .commit(batch.map((waiting) => waiting.item))
        .then(
          (results) => batch.forEach((waiting, i) => this.#settle(waiting, () => waiting.resolve(results[i] as R))),
          (error: unknown) => batch.forEach((waiting) => this.#settle(waiting, () => waiting.reject(error))),
        )
        .finally(() => {
          this.#inFlight--;
          this.#pump();
        });
    }
  }

  /** The next batch: in arrival order, within the limits, no two items sharing a key. */
  #take(): Array<Waiting<T, R>> {
    const batch: Array<Waiting<T, R>> = [];
    const keys = new Set<string>();
    let weight = 0;
    const left: Array<Waiting<T, R>> = [];
    for (const waiting of this.#waiting) {
      const itemKeys = this.#o.keysOf(waiting.item);
      const itemWeight = this.#o.weightOf(waiting.item);
      const fits =
        batch.length < this.#o.maxItems &&
        (batch.length === 0 || weight + itemWeight <= this.#o.maxWeight) &&
        !itemKeys.some((key) => keys.has(key));
      // Once one item waits, every later one sharing its keys waits too: copies are answered in arrival order.
      if (!fits) {
        left.push(waiting);
        for (const key of itemKeys) keys.add(key);
        continue;
      }
      batch.push(waiting);
      weight += itemWeight;
      for (const key of itemKeys) keys.add(key);
    }
    this.#waiting = left;
    return batch;
  }

  #settle(waiting: Waiting<T, R>, settle: () => void): void {
    if (waiting.settled) return;
    waiting.settled = true;
    clearTimeout(waiting.timer);
    settle();
  }
}
