// Who may take which inbox entry, and when: entries ready now in the order they arrived (or were let go),
// entries waiting for a time earliest first, and entries a claim holds. A claim is told apart by its token:
// a step whose copy its shop's erasure took may still act, and a copy stored since under the same key may be
// another claim's, so only the holding claim lets go of an entry.
import TinyQueue from 'tinyqueue';

export class EntryHolds {
  readonly #now: () => Date;
  /** Whether the inbox still has the entry: a key it dropped is skipped wherever it is still listed. */
  readonly #waiting: (key: string) => boolean;
  /** Entries a claim holds, with its token: out of #ready and #deferred until released or forgotten. */
  readonly #held = new Map<string, string>();
  readonly #ready = new Set<string>();
  readonly #deferred = new TinyQueue<{ at: number; key: string }>([], (a, b) => a.at - b.at);
  /** When each deferred entry may be taken: a heap item that does not match is stale and skipped. */
  readonly #waitingUntil = new Map<string, number>();

  constructor(now: () => Date, waiting: (key: string) => boolean) {
    this.#now = now;
    this.#waiting = waiting;
  }

  /** Puts an entry nobody holds where a claim finds it: ready, or deferred until `at` (ms since the epoch). */
  queue(key: string, at: number): void {
    if (this.#held.has(key)) return;
    if (at > this.#now().getTime()) {
      this.#ready.delete(key);
      this.#waitingUntil.set(key, at);
      this.#deferred.push({ at, key });
    } else {
      this.#waitingUntil.delete(key);
      this.#ready.add(key);
    }
  }

  /** Whether a deferred heap item still stands for its entry (not taken, dropped or deferred again since). */
  #stillDeferred({ at, key }: { at: number; key: string }): boolean {
    return this.#waitingUntil.get(key) === at && this.#waiting(key) && !this.#held.has(key);
  }

  /** Up to `limit` entries due now, held for this claim; earliest first. */
  claim(limit: number, owner: string): string[] {
    const now = this.#now().getTime();
    for (let top = this.#deferred.peek(); top && top.at <= now; top = this.#deferred.peek()) {
      this.#deferred.pop();
      if (!this.#stillDeferred(top)) continue;
      this.#waitingUntil.delete(top.key);
      this.#ready.add(top.key);
    }
    const claimed: string[] = [];
    for (const key of this.#ready) {
      if (claimed.length >= limit) break;
      this.#ready.delete(key);
      if (!this.#waiting(key)) continue;
      this.#held.set(key, owner);
      claimed.push(key);
    }
    return claimed;
  }

  holds(key: string, owner: string): boolean {
    return this.#held.get(key) === owner;
  }

  /** Whether another claim than `owner` holds the entry. */
  heldByAnother(key: string, owner: string): boolean {
    const holder = this.#held.get(key);
    return holder !== undefined && holder !== owner;
  }

  /** A commit of this claim folds an entry nobody holds: no other claim takes it while the commit is on its way. */
  take(key: string, owner: string): void {
    this.#held.set(key, owner);
    this.#ready.delete(key);
    this.#waitingUntil.delete(key);
  }

  /** This claim's hold lets go; returns whether it held the entry (then the caller queues it again). */
  let(key: string, owner: string): boolean {
    if (!this.holds(key, owner)) return false;
    this.#held.delete(key);
    return true;
  }

  /** The entry left the inbox (consumed or erased): whoever held it, a copy stored again must be taken anew. */
  forget(key: string): void {
    this.#held.delete(key);
    this.#ready.delete(key);
    this.#waitingUntil.delete(key);
  }

  /** When the earliest deferred entry may be taken. */
  nextAt(): number | undefined {
    for (let top = this.#deferred.peek(); top; top = this.#deferred.peek()) {
      if (this.#stillDeferred(top)) return top.at;
      this.#deferred.pop();
    }
    return undefined;
  }
}
