// How the worker fills its free slots from the two lanes (lanes.ts): live
// first, with backfill's share kept. Backfill is offered first what it lacks
// of BACKFILL_MIN_SHARE of the slots; live takes what it can of the rest;
// backfill takes whatever live left. An order's calls all go in the lane it
// was claimed in. Slots are the share of calls: every slot's next call waits
// its turn in the one rate limiter.
import { backfillReserve } from '../lanes.ts';
import type { OrderRecord } from '../order-record.ts';
import type { LedgerStore } from '../store/ledger-store.ts';

export interface LaneClaim {
  owner: string;
  /** Free slots. */
  limit: number;
  /** All slots. */
  concurrency: number;
  /** Backfill orders under way now. */
  backfillInFlight: number;
  minShare: number;
  leaseMs: number;
}

export async function claimInLanes(store: Pick<LedgerStore, 'claimDue'>, { owner, limit, concurrency, backfillInFlight, minShare, leaseMs }: LaneClaim): Promise<OrderRecord[]> {
  const reserve = backfillReserve({ free: limit, concurrency, backfillInFlight, minShare });
  const reserved = reserve > 0 ? await store.claimDue(owner, reserve, leaseMs, 'backfill') : [];
  const live = await store.claimDue(owner, limit - reserved.length, leaseMs, 'live');
  const left = limit - reserved.length - live.length;
  const rest = left > 0 ? await store.claimDue(owner, left, leaseMs, 'backfill') : [];
  return [...live, ...reserved, ...rest];
}
