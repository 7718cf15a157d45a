// How the worker fills its free slots from the two lanes (lanes.ts): live
// first, with backfill's share kept. Backfill is offered first what it lacks
// of BACKFILL_MIN_SHARE of the slots; live takes what it can of the rest;
// backfill takes whatever live left. An order's calls all go in the lane it
// was claimed in. Slots are the share of calls: every slot's next call waits
// its turn in its account's rate limiter, and shops whose account's budget is
// spent are passed over, so no slot waits on a budget while another account
// could use it; so is the backfill of an account whose live orders wait for
// places in its budget (account-budgets.ts).
import { backfillReserve, skippedIn, type SkippedShops } from '../lanes.ts';
import type { OrderRecord } from '../order-record.ts';
import type { LedgerStore } from '../store/ledger-store.ts';

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
  readonly #store: Pick<LedgerStore, 'claimDue'>;
  readonly #o: LaneClaimOptions;
  /** Live orders claimed since backfill last got one (for fewer slots than one share). */
  #liveSinceBackfill = 0;

  constructor(store: Pick<LedgerStore, 'claimDue'>, options: LaneClaimOptions) {
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
