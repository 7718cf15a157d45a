// A ledger store as the composition root opens it: the store, the rate limit
// it shares between instances (PostgreSQL), and how to let go of it.
import type { SharedLimiterFactory } from '../../loyalty/rate-limiter.ts';
import type { LedgerStore } from './ledger-store.ts';

export interface OpenedStore {
  store: LedgerStore;
  /** With a shared store, one rate limit for the loyalty API across every instance. */
  sharedLimiter?: SharedLimiterFactory;
  /** Lets go of the lock (lowdb) or the connection pool (PostgreSQL), after the store is closed. */
  release(): Promise<void>;
}
