// Places in a rate limiter's slices, promised before their calls are scheduled (rate-limiter.ts): each caller's
// promise counts against the slice until its call starts, is given back, or lapses; and a lower caller's part of
// each slice (the storefront's), so that live orders keep the rest.

/** A place promised by reserve(): give it to schedule(), or release() it when no call is made. */
export interface Place {
  release(): void;
}

/**
 * A place that frees this soon counts as free: the order given it does its
 * saves before the call meanwhile (two writes to the ledger), and its call
 * waits in the limiter at most this long. Without it each slice would start
 * only once those writes were done, and a few per cent of the limit go unused.
 */
export const RESERVE_LEAD_MS = 100;

/** A limiter's slices: how long each lasts and how many calls it holds (planRateLimit). */
export interface SlicePlan {
  sliceMs: number;
  callsPerSlice: number;
}

/** How many recent slices tell the live calls a slice carries. */
export const LIVE_SLICES = 8;

/**
 * A lower caller's part of each slice (the storefront's, after live orders): its places given, queued and started in
 * any slice stay within its cap, so that however its calls bunch, live orders never wait for the next slice because
 * of it (issue 64). The cap leaves the slice room for twice the live calls a slice has carried on average in the
 * last LIVE_SLICES slices (recent enough to follow live orders as they start), and one more; it is never below
 * floor(callsPerSlice × share), nor below one. A budget with few live
 * orders lends the storefront nearly every slice; a busy one keeps most of each slice for them. Its share of a
 * whole window is counted by its caller (storefront-places.ts).
 */
export class SliceShare {
  readonly #plan: SlicePlan;
  readonly #places = new WeakSet<Place>();
  readonly #reservations: Reservations;
  /** The share's starts in the last LIVE_SLICES slices, oldest first. */
  readonly #starts: number[] = [];
  #queued = 0;

  constructor(plan: SlicePlan) {
    this.#plan = plan;
    this.#reservations = new Reservations(plan.sliceMs);
  }

  /**
   * Undefined while the share has room in the slice as of RESERVE_LEAD_MS from now; else when it may.
   * `startedSince(t)`: the calls the limiter started after t, the share's included.
   */
  fullUntil(now: number, share: number, startedSince: (t: number) => number): number | undefined {
    const { sliceMs, callsPerSlice } = this.#plan;
    const at = now + RESERVE_LEAD_MS;
    const since = now - LIVE_SLICES * sliceMs;
    while (this.#starts.length > 0 && this.#starts[0]! <= since) this.#starts.shift();
    const live = Math.max(0, startedSince(since) - this.#starts.length);
    const keep = Math.ceil((2 * live) / LIVE_SLICES) + 1;
    // At least one place a slice: a customer redeeming waits for their code, and is not turned away by live orders
    // (page views already take no place while a live order waits: AccountBudgets.liveFirst).
    const cap = Math.max(1, Math.floor(callsPerSlice * share), callsPerSlice - keep);
    const inSlice = this.#starts.filter((start) => start > at - sliceMs);
    const ahead = inSlice.length + this.#queued + this.#reservations.count(now);
    if (ahead < cap) return undefined;
    const frees = inSlice[ahead - cap];
    return Math.max((frees !== undefined ? frees + sliceMs : now + sliceMs) - RESERVE_LEAD_MS, now + 1);
  }

  /** The place is the share's: counted in it until it is released or its call starts. */
  mark(place: Place): Place {
    const own = this.#reservations.add(Date.now());
    const marked: Place = {
      release: () => {
        own.release();
        place.release();
      },
    };
    this.#places.add(marked);
    return marked;
  }

  /**
   * A call scheduled with `place`: counted as queued if the place is the share's. Call the result once, with the
   * time the call started, or with none if it never will.
   */
  queue(place: Place | undefined): (startedAt?: number) => void {
    if (!place || !this.#places.has(place)) return () => undefined;
    this.#places.delete(place);
    this.#queued++;
    return (startedAt) => {
      this.#queued--;
      if (startedAt !== undefined) this.#starts.push(startedAt);
    };
  }
}

/**
 * Places promised by reserve() and not yet scheduled or released, oldest
 * first: each lapses after a slice (a caller that neither called nor
 * released it keeps no place for ever).
 */
export class Reservations {
  readonly #made: Array<{ at: number }> = [];
  readonly #lapseMs: number;

  constructor(lapseMs: number) {
    this.#lapseMs = lapseMs;
  }

  add(now: number): Place {
    const entry = { at: now };
    this.#made.push(entry);
    return {
      // Its own entry, once: never another caller's.
      release: () => {
        const index = this.#made.indexOf(entry);
        if (index >= 0) this.#made.splice(index, 1);
      },
    };
  }

  count(now: number): number {
    while (this.#made.length > 0 && (this.#made[0]?.at ?? 0) <= now - this.#lapseMs) this.#made.shift();
    return this.#made.length;
  }
}

/** How many of `starts` (oldest first) came after `t`: counted from the newest, since only recent ones are asked. */
export function startsSince(starts: readonly number[], t: number): number {
  let count = 0;
  for (let i = starts.length - 1; i >= 0 && starts[i]! > t; i--) count++;
  return count;
}
