// Which active orders the worker should look at, and when: per lane, a heap of due times (tinyqueue) per
// shop, and the orders a worker holds. Shops with due work take turns, one order each per turn, so one
// shop's backlog never stands in front of another's. Heaps are never searched: an entry whose time or lane
// no longer matches its order is stale, and skipped when it comes to the top.
import TinyQueue from 'tinyqueue';
import {
  emptyLaneCounts,
  LANES,
  shopGroupOf,
  skippedIn,
  type Lane,
  type LaneCounts,
  type ShopLaneCounts,
  type SkippedShops,
} from '../../lanes.ts';

interface Waiting {
  at: number;
  key: string;
}

interface Due {
  at: number;
  lane: Lane;
}

const earliest = (a: Waiting, b: Waiting) => a.at - b.at;

/** One lane: a heap per shop, and the shops in the order they take turns. */
class LaneQueue {
  readonly #shops = new Map<string, TinyQueue<Waiting>>();
  /** Shops with entries, in turn order; #next is whose turn it is. */
  #turns: string[] = [];
  #next = 0;

  push(key: string, at: number): void {
    const shop = shopGroupOf(key);
    let heap = this.#shops.get(shop);
    if (!heap) {
      heap = new TinyQueue<Waiting>([], earliest);
      this.#shops.set(shop, heap);
      this.#turns.push(shop);
    }
    heap.push({ at, key });
  }

  /** The shop's earliest current entry, stale ones dropped on the way. */
  #top(shop: string, current: (entry: Waiting) => boolean): Waiting | undefined {
    const heap = this.#shops.get(shop);
    for (let top = heap?.peek(); heap && top; top = heap.peek()) {
      if (current(top)) return top;
      heap.pop();
    }
    return undefined;
  }

  /**
   * Up to `limit` keys due by `now`, one per shop per turn. Each is `take`n
   * the moment it is popped, so that another heap entry of the same order
   * (re-queued at the same time) is stale for the rest of this claim.
   */
  claim(
    limit: number,
    now: number,
    current: (entry: Waiting) => boolean,
    take: (key: string) => void,
    skip?: ReadonlySet<string>,
  ): string[] {
    const claimed: string[] = [];
    let idle = 0;
    while (claimed.length < limit && this.#turns.length > 0 && idle < this.#turns.length) {
      if (this.#next >= this.#turns.length) this.#next = 0;
      const shop = this.#turns[this.#next]!;
      if (skip?.has(shop)) {
        // Its account's budget is spent: passed over, its place in the turns kept.
        this.#next++;
        idle++;
        continue;
      }
      const top = this.#top(shop, current);
      if (!top) {
        // Nothing left for this shop: out of the turns until it has work again.
        this.#shops.delete(shop);
        this.#turns.splice(this.#next, 1);
        continue;
      }
      this.#next++;
      if (top.at > now) {
        idle++;
        continue;
      }
      this.#shops.get(shop)!.pop();
      take(top.key);
      claimed.push(top.key);
      idle = 0;
    }
    return claimed;
  }

  /** The earliest current entry of any shop (but those in `skip`). */
  earliest(current: (entry: Waiting) => boolean, skip?: ReadonlySet<string>): Waiting | undefined {
    let best: Waiting | undefined;
    for (const shop of [...this.#turns]) {
      if (skip?.has(shop)) continue;
      const top = this.#top(shop, current);
      if (top && (!best || top.at < best.at)) best = top;
    }
    return best;
  }
}

export class DueQueue {
  /** Due time and lane of each order that has one and is not held. */
  readonly #due = new Map<string, Due>();
  readonly #lanes: Record<Lane, LaneQueue> = { live: new LaneQueue(), backfill: new LaneQueue() };
  readonly #held = new Set<string>();

  #current(lane: Lane) {
    return (entry: Waiting) => {
      const due = this.#due.get(entry.key);
      return due !== undefined && due.at === entry.at && due.lane === lane;
    };
  }

  /** Sets (or clears, with null) when an order is due, and in which lane. Ignored while a worker holds it. */
  set(key: string, dueAt: string | null, lane: Lane = 'live'): void {
    if (this.#held.has(key)) return;
    if (dueAt === null) {
      this.#due.delete(key);
      return;
    }
    const at = Date.parse(dueAt);
    const was = this.#due.get(key);
    if (was?.at === at && was.lane === lane) return;
    this.#due.set(key, { at, lane });
    this.#lanes[lane].push(key, at);
  }

  delete(key: string): void {
    this.#due.delete(key);
    this.#held.delete(key);
  }

  isHeld(key: string): boolean {
    return this.#held.has(key);
  }

  isQueued(key: string): boolean {
    return this.#due.has(key);
  }

  /**
   * Up to `limit` orders due by `now` from one lane (or live first, then
   * backfill); shops take turns, those in `skip` passed over. They are held
   * until released.
   */
  claim(limit: number, now: number, lane?: Lane, skip?: ReadonlySet<string>): string[] {
    const claimed: string[] = [];
    for (const each of lane ? [lane] : LANES) {
      if (claimed.length >= limit) break;
      const take = (key: string) => {
        this.#due.delete(key);
        this.#held.add(key);
      };
      claimed.push(...this.#lanes[each].claim(limit - claimed.length, now, this.#current(each), take, skip));
    }
    return claimed;
  }

  /** Lets go of a held order; set() its next due time after this. */
  release(key: string): void {
    this.#held.delete(key);
  }

  /** The earliest time a queued order becomes due (of shops not passed over in its lane), or undefined. */
  nextAt(skip?: SkippedShops): number | undefined {
    const times = LANES.map(
      (lane) => this.#lanes[lane].earliest(this.#current(lane), skippedIn(skip, lane))?.at,
    ).filter((at): at is number => at !== undefined);
    return times.length > 0 ? Math.min(...times) : undefined;
  }

  /** Per lane: how many wait, how many are due, and since when the oldest waits. */
  counts(now: number): Record<Lane, LaneCounts> {
    const counts = {
      live: { waiting: 0, due: 0, oldestDueAt: null },
      backfill: { waiting: 0, due: 0, oldestDueAt: null },
    } as Record<Lane, LaneCounts>;
    for (const { at, lane } of this.#due.values()) {
      counts[lane].waiting++;
      if (at <= now) counts[lane].due++;
    }
    for (const lane of LANES) {
      const oldest = this.#lanes[lane].earliest(this.#current(lane));
      counts[lane].oldestDueAt = oldest && oldest.at <= now ? new Date(oldest.at).toISOString() : null;
    }
    return counts;
  }

  /** The same per shop with orders queued: a walk over them all, for status and metrics (read at most once a second). */
  countsByShop(now: number): ShopLaneCounts[] {
    const shops = new Map<string, Record<Lane, LaneCounts>>();
    for (const [key, { at, lane }] of this.#due) {
      const group = shopGroupOf(key);
      let lanes = shops.get(group);
      if (!lanes) shops.set(group, (lanes = emptyLaneCounts()));
      const counts = lanes[lane];
      counts.waiting++;
      if (at > now) continue;
      counts.due++;
      const since = new Date(at).toISOString();
      if (counts.oldestDueAt === null || since < counts.oldestDueAt) counts.oldestDueAt = since;
    }
    return [...shops].map(([group, lanes]) => {
      const split = group.indexOf(':');
      return { platform: group.slice(0, split), shop: group.slice(split + 1), lanes };
    });
  }

  get heldCount(): number {
    return this.#held.size;
  }

  get queuedCount(): number {
    return this.#due.size;
  }
}
