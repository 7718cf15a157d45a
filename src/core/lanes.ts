// Two lanes of due work: "live" (a webhook, or a person's action on one order) and "backfill" (a resync, a
// reconciliation, a bulk retry). The worker takes live work first but keeps BACKFILL_MIN_SHARE of its slots
// for backfill, so a 50,000-order resync neither stands in front of a new order nor stops moving. Within a
// lane, shops take turns, so one shop's backlog does not delay another shop's orders.
export const LANES = ['live', 'backfill'] as const;
export type Lane = (typeof LANES)[number];

/**
 * The lane an order's next call goes in, once an event of `cause` is folded
 * into it. An order with no work pending takes the lane of what woke it. One
 * with work pending keeps its lane, except that live work lifts it to live:
 * a customer's order that a resync happened to touch first is still the
 * customer's.
 */
export function laneAfter(current: { lane?: Lane | undefined; dueAt: string | null }, cause: Lane): Lane {
  if (current.dueAt === null || current.lane === undefined) return cause;
  return current.lane === 'live' || cause === 'live' ? 'live' : 'backfill';
}

export interface LaneCounts {
  /** Orders with work pending (due now or later). */
  waiting: number;
  /** Of those, due by now. */
  due: number;
  /** When the longest-waiting order became due, or null when none is due. */
  oldestDueAt: string | null;
}

/** One shop's lanes: what its accounts' figures are summed from. */
export interface ShopLaneCounts {
  platform: string;
  shop: string;
  lanes: Record<Lane, LaneCounts>;
}

export const emptyLaneCounts = (): Record<Lane, LaneCounts> => ({
  live: { waiting: 0, due: 0, oldestDueAt: null },
  backfill: { waiting: 0, due: 0, oldestDueAt: null },
});

/** Adds one shop's lanes into a sum (an account's): counts added, the oldest kept. */
export function addLaneCounts(sum: Record<Lane, LaneCounts>, add: Record<Lane, LaneCounts>): void {
  for (const lane of LANES) {
    const into = sum[lane];
    const from = add[lane];
    into.waiting += from.waiting;
    into.due += from.due;
    if (from.oldestDueAt !== null && (into.oldestDueAt === null || from.oldestDueAt < into.oldestDueAt))
      into.oldestDueAt = from.oldestDueAt;
  }
}

/** A lane as status, the dashboard and /metrics show it. */
export interface LaneStatus extends LaneCounts {
  /** Orders this instance is calling for now. */
  inFlight: number;
  /** Calls this instance made in the last minute. */
  callsLastMinute: number;
  /** When the lane's waiting orders are done at that pace (about one call each), or null when it is not moving. */
  estimatedFinishAt: string | null;
}

export function laneStatus(
  counts: Record<Lane, LaneCounts>,
  worker: Record<Lane, { inFlight: number; callsLastMinute: number }>,
  now: Date,
): Record<Lane, LaneStatus> {
  const one = (lane: Lane): LaneStatus => {
    const { callsLastMinute, inFlight } = worker[lane];
    const waiting = counts[lane].waiting;
    const estimatedFinishAt =
      waiting === 0
        ? null
        : callsLastMinute > 0
          ? new Date(now.getTime() + (waiting / callsLastMinute) * 60_000).toISOString()
          : null;
    return { ...counts[lane], inFlight, callsLastMinute, estimatedFinishAt };
  };
  return { live: one('live'), backfill: one('backfill') };
}

/**
 * Shops (platform:shop) claims pass over for now: in both lanes,
 * those whose account's rate budget is spent; in backfill only, those whose
 * account's live orders wait for places in its budget.
 */
export interface SkippedShops {
  all?: ReadonlySet<string> | undefined;
  backfill?: ReadonlySet<string> | undefined;
}

/** The shops passed over in one lane. */
export function skippedIn(skip: SkippedShops | undefined, lane: Lane): ReadonlySet<string> | undefined {
  if (!skip) return undefined;
  if (lane === 'live' || !skip.backfill?.size) return skip.all;
  return skip.all?.size ? new Set([...skip.all, ...skip.backfill]) : skip.backfill;
}

/** The group an order takes turns in: its platform and shop (an order key is platform:shop:orderId). */
export const shopGroupOf = (key: string): string => key.slice(0, key.lastIndexOf(':'));

/**
 * How many of `free` slots backfill is offered before live: what it lacks of
 * its reserved share of the slots. Live then takes what it can, and backfill
 * whatever live left, so when live is quiet backfill takes every slot, and
 * when live is busy backfill still holds its share. With fewer slots than
 * one share's worth (concurrency × share < 1) no slot can be reserved
 * without giving backfill more than its share, so it gets one order in every
 * ⌈1/share⌉ claimed instead (`liveSinceBackfill` counts the live ones since
 * backfill last got one).
 */
export function backfillReserve({
  free,
  concurrency,
  backfillInFlight,
  minShare,
  liveSinceBackfill = 0,
}: {
  free: number;
  concurrency: number;
  backfillInFlight: number;
  minShare: number;
  liveSinceBackfill?: number;
}): number {
  if (minShare <= 0 || free <= 0) return 0;
  const exact = concurrency * minShare;
  if (exact >= 1) return Math.max(0, Math.min(free, Math.ceil(exact) - backfillInFlight));
  return backfillInFlight === 0 && liveSinceBackfill >= Math.ceil(1 / minShare) - 1 ? 1 : 0;
}

/** Calls made per lane in the last minute, for status, metrics and a resync's estimated finish. */
export class LaneCalls {
  readonly #times: Record<Lane, number[]> = { live: [], backfill: [] };
  readonly #now: () => number;
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  record(lane: Lane): void {
    this.#times[lane].push(this.#now());
  }

  perMinute(lane: Lane): number {
    const since = this.#now() - 60_000;
    const times = this.#times[lane];
    let drop = 0;
    while (drop < times.length && (times[drop] ?? 0) < since) drop++;
    if (drop > 0) times.splice(0, drop);
    return times.length;
  }
}
