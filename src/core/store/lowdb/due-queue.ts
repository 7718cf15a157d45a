// Which active orders the worker should look at, and when: a heap of due
// times (tinyqueue), and the orders a worker holds. A held order is out of
// the queue until it is released with its next due time; changes to it
// meanwhile are the worker's to notice (the store tells it the order was
// folded again when it saves).
import TinyQueue from 'tinyqueue';

interface Waiting {
  at: number;
  key: string;
}

export class DueQueue {
  /** Due time of each order that has one and is not held. */
  readonly #dueAt = new Map<string, number>();
  /** Earliest first; entries whose time no longer matches #dueAt are stale and skipped. */
  readonly #heap = new TinyQueue<Waiting>([], (a, b) => a.at - b.at);
  readonly #held = new Set<string>();

  /** Sets (or clears, with null) when an order is due. Ignored while a worker holds it. */
  set(key: string, dueAt: string | null): void {
    if (this.#held.has(key)) return;
    if (dueAt === null) {
      this.#dueAt.delete(key);
      return;
    }
    const at = Date.parse(dueAt);
    if (this.#dueAt.get(key) === at) return;
    this.#dueAt.set(key, at);
    this.#heap.push({ at, key });
  }

  delete(key: string): void {
    this.#dueAt.delete(key);
    this.#held.delete(key);
  }

  isHeld(key: string): boolean {
    return this.#held.has(key);
  }

  isQueued(key: string): boolean {
    return this.#dueAt.has(key);
  }

  /** Up to `limit` orders due by `now`, earliest first; they are held until released. */
  claim(limit: number, now: number): string[] {
    const claimed: string[] = [];
    while (claimed.length < limit && (this.#heap.peek()?.at ?? Infinity) <= now) {
      const top = this.#heap.pop()!;
      if (this.#dueAt.get(top.key) !== top.at) continue;
      this.#dueAt.delete(top.key);
      this.#held.add(top.key);
      claimed.push(top.key);
    }
    return claimed;
  }

  /** Lets go of a held order; set() its next due time after this. */
  release(key: string): void {
    this.#held.delete(key);
  }

  /** The earliest time a queued order becomes due, or undefined. */
  nextAt(): number | undefined {
    for (let top = this.#heap.peek(); top; top = this.#heap.peek()) {
      if (this.#dueAt.get(top.key) === top.at) return top.at;
      this.#heap.pop();
    }
    return undefined;
  }

  get heldCount(): number {
    return this.#held.size;
  }

  get queuedCount(): number {
    return this.#dueAt.size;
  }
}
