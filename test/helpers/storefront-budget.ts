// The storefront's budget as its unit tests build it: the shared limiter of shared-rate-limiter.ts over windows kept
// in memory as rate-windows.ts keeps them, and a StorefrontReader on one account with no ledger orders and no live
// order waiting on this instance.
import type { Pool } from 'pg';
import type { AccountRuntime } from '../../src/core/accounts.ts';
import { StorefrontReader, type StorefrontReaderParts } from '../../src/core/storefront/storefront-reader.ts';
import { createLogger } from '../../src/logger.ts';
import { createSharedRateLimiter, type WindowCount, type WindowTake } from '../../src/loyalty/shared-rate-limiter.ts';

/**
 * Every take adds one to its key's window, taken or not (the batched upsert's way); the live mark is read through
 * the pool (`state.live`: whether a live order waits on some instance). `redeemTakes`: the redemptions' row's takes.
 */
export function memorySharedLimiter(limit: number, key: string, state = { live: false }) {
  const windows = new Map<string, WindowCount>();
  const takes = new Map<string, number>();
  const take = async ({ key: row, durationMs }: WindowTake): Promise<WindowCount> => {
    takes.set(row, (takes.get(row) ?? 0) + 1);
    const now = Date.now();
    const current = windows.get(row);
    const next =
      current && current.expiresAt > now
        ? { consumed: current.consumed + 1, expiresAt: current.expiresAt }
        : { consumed: 1, expiresAt: now + durationMs };
    windows.set(row, next);
    return next;
  };
  const pool = {
    query: async () =>
      state.live ? { rowCount: 1, rows: [{ points: 1, expire: Date.now() + 2_000 }] } : { rowCount: 0, rows: [] },
  } as unknown as Pool;
  const limiter = createSharedRateLimiter({ pool, take, limit, key, windowMs: 60_000 });
  const redeemTakes = () =>
    [...takes].filter(([row]) => row.includes('storefront-redeem:')).reduce((sum, [, n]) => sum + n, 0);
  return { limiter, redeemTakes };
}

/** A reader on `account` (id 'acct'): the ledger knows no order of anyone, and this instance's live orders never wait. */
export function accountReader(
  account: AccountRuntime,
  parts: Pick<StorefrontReaderParts, 'share'> & Partial<StorefrontReaderParts>,
): StorefrontReader {
  return new StorefrontReader({
    accounts: { forShop: async () => 'acct', runtime: async () => account },
    store: { customerOrders: async () => [] },
    liveFirst: () => false,
    logger: createLogger({ level: 'silent' }),
    ...parts,
  });
}
