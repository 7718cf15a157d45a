// The caps on what a shop's page may do (accounts made, resyncs, test orders, points by hand). Each counts
// what the ledger keeps, so it holds across instances and restarts, and the count, the act and its record are
// one step per shop and cap on every instance (the store's exclusive lock), so a burst cannot all pass one
// count. A request that comes while another of the same shop and cap is under way is told to try again.
import type { ShopRef } from '../../accounts/account-records.ts';
import type { LedgerLifecycle } from '../../core/store/ledger-store.ts';
import { Refused } from '../refused.ts';

const HOUR_MS = 3_600_000;

export interface HourlyCap {
  /** What is capped, in the 429's words ("test order"). */
  what: string;
  limit: number;
  /** How many the shop made since that instant, as the ledger keeps them. */
  madeSince(since: string): Promise<number>;
  /** The refusal when the cap is reached: what the limit is and what to do. */
  refusal: string;
}

export interface ShopCaps {
  /** Runs fn as the only request of this shop and cap on every instance; refused 429 when another is under way. */
  oneAtATime<T>(shop: ShopRef, what: string, fn: () => Promise<T>): Promise<T>;
  /** Runs fn, one at a time, only while the shop made fewer than the cap's limit in the last hour; 429 otherwise. */
  hourly<T>(shop: ShopRef, cap: HourlyCap, fn: () => Promise<T>): Promise<T>;
}

export function shopCaps(store: Pick<LedgerLifecycle, 'exclusive'>): ShopCaps {
  async function oneAtATime<T>({ platform, shop }: ShopRef, what: string, fn: () => Promise<T>): Promise<T> {
    const ran = await store.exclusive(`shop-cap:${what}:${platform}:${shop}`, fn);
    if (!ran.ran) throw new Refused(429, [`another ${what} request of this shop is under way; try again in a moment`]);
    return ran.value;
  }
  return {
    oneAtATime,
    hourly: (shop, cap, fn) =>
      oneAtATime(shop, cap.what, async () => {
        const made = await cap.madeSince(new Date(Date.now() - HOUR_MS).toISOString());
        if (made >= cap.limit) throw new Refused(429, [cap.refusal]);
        return fn();
      }),
  };
}
