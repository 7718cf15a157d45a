// How the worker fills its free slots from the two lanes (lanes.ts): backfill is offered first what it lacks
// of BACKFILL_MIN_SHARE of the slots, live takes what it can of the rest, and backfill whatever live left.
// Slots are the share of calls, since every slot's next call waits in its account's rate limiter; shops
// whose account's budget is spent are passed over, and so is the backfill of an account whose live orders
// wait for places (account-budgets.ts).
import { backfillReserve, skippedIn, type SkippedShops } from '../lanes.ts';
import type { OrderRecord } from '../order-record.ts';
import type { OrderWorkRole } from '../store/ledger-store.ts';

export interface LaneClaim {
  owner: string;
  /** Free slots. */
  limit: number;
  /** Backfill orders under way now. */
  backfillInFlight: number;
  skip?: SkippedShops;
}

export interface LaneClaimOptions {
  /** All slots. */
  concurrency: number;
  minShare: number;
  leaseMs: number;
}

/** The worker's claims, with what backfill has been given kept across them. */
export class LaneClaims {
  readonly #store: Pick<OrderWorkRole, 'claimDue'>;
  readonly #o: LaneClaimOptions;
  /** Live orders claimed since backfill last got one (for fewer slots than one share). */
  #liveSinceBackfill = 0;

  constructor(store: Pick<OrderWorkRole, 'claimDue'>, options: LaneClaimOptions) {
    this.#store = store;
    this.#o = options;
  }

  async claim({ owner, limit, backfillInFlight, skip = {} }: LaneClaim): Promise<OrderRecord[]> {
    const { concurrency, minShare, leaseMs } = this.#o;
    const reserve = backfillReserve({
      free: limit,
      concurrency,
      backfillInFlight,
      minShare,
      liveSinceBackfill: this.#liveSinceBackfill,
    });
    const claim = (count: number, lane: 'live' | 'backfill') =>
      this.#store.claimDue(owner, count, leaseMs, lane, skippedIn(skip, lane));
    const reserved = reserve > 0 ? await claim(reserve, 'backfill') : [];
    const live = await claim(limit - reserved.length, 'live');
    const left = limit - reserved.length - live.length;
    const rest = left > 0 ? await claim(left, 'backfill') : [];
    if (reserved.length + rest.length > 0) this.#liveSinceBackfill = 0;
    else this.#liveSinceBackfill += live.length;
    return [...live, ...reserved, ...rest];
  }
}
