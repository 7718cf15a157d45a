// Which accounts share one pool of points at the service: those with the same service address and API key (a
// merchant's second store on an account of its own, docs/accounts.md). The member created first leads: every
// member's new reservations go under its holders, so two stores' redeems of one customer meet at one compare-and-set.
import { createHash } from 'node:crypto';
import type { AccountPool } from '../core/accounts.ts';

export interface PoolCandidate {
  id: string;
  /** A digest of the service's address and the key (never the key itself). */
  key: string;
  /** The environment's account predates every kept one: ''. */
  createdAt: string;
}

export const poolKey = (budgetKey: string): string => createHash('sha256').update(budgetKey).digest('hex');

/** The pool `self` is in among `candidates`: alone where it is not among them (removed meanwhile). */
export function poolOf(self: string, candidates: readonly PoolCandidate[]): AccountPool {
  const own = candidates.find((each) => each.id === self);
  if (!own) return { holder: self, members: [self] };
  const members = candidates
    .filter((each) => each.key === own.key)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { holder: members[0]!.id, members: members.map((each) => each.id) };
}

/**
 * How long the accounts' keys are kept between reads. A new account, missing from what was kept, reads them anew:
 * it is never a pool's first, so the others' view of the pool may lag, but not its own (its reservations go under
 * the first's holder at once).
 */
export const POOLS_FRESH_MS = 5_000;

/** The pools, from the accounts as `read` lists them, read again after POOLS_FRESH_MS. */
export function poolsFrom(read: () => Promise<PoolCandidate[]>, now: () => number = Date.now) {
  let kept: { at: number; candidates: Promise<PoolCandidate[]> } | undefined;
  const fresh = () => {
    const candidates = read();
    kept = { at: now(), candidates };
    // A failed read is not kept: the next asks again.
    candidates.catch(() => (kept?.candidates === candidates ? (kept = undefined) : undefined));
    return candidates;
  };
  // `key`: the account's own as its runtime calls with it (poolKey). One given another key just now reads them anew,
  // or for POOLS_FRESH_MS it would reserve alone on the balance of the pool it joined (review L2).
  return (self: string, key?: string) =>
    async (asked?: 'fresh'): Promise<AccountPool> => {
      const stale = !kept || now() - kept.at >= POOLS_FRESH_MS;
      let candidates = asked === 'fresh' || stale ? await fresh() : await kept!.candidates;
      const known = (each: PoolCandidate) => each.id === self && (key === undefined || each.key === key);
      if (!candidates.some(known)) candidates = await fresh();
      return poolOf(self, candidates);
    };
}
