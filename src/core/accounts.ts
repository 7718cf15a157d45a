// Loyalty accounts as the core sees them: each with its own client, its own rules and its own pause when
// the service refuses its credentials. A shop is linked to one account or to none; on none, its orders wait,
// folded, with nothing sent. An order belongs to the account of its first call of any kind, whatever happens
// to its shop's link afterwards. The core declares what it needs; the composition root implements it
// (src/accounts/), and singleAccount() serves a bridge with one account.
import type { ActivityPoints } from './activity-points.ts';
import type { Policy } from './policy.ts';
import type { AuthPause } from './worker/auth-pause.ts';
import type { LoyaltyOperations } from './worker/calls.ts';
import type { LoyaltyClient } from '../loyalty/client.ts';
import type { RateBudget } from '../loyalty/rate-limiter.ts';

/** Points given back to the activity that gives exactly that many (REDEEM_RETURN_ACTIVITIES). */
export type ReturnActivities = Readonly<Record<string, string>>;

/** The account the environment's configuration describes: today's single-merchant bridge. */
export const DEFAULT_ACCOUNT = 'default';

/** What the bridge needs of an account to make its calls. */
export interface AccountRuntime {
  readonly id: string;
  readonly name: string;
  readonly client: LoyaltyOperations & Partial<Pick<LoyaltyClient, 'transactions'>>;
  readonly policy: Policy;
  /** LOYALTY_EARN_ACTIVITY_ID: the activity for order points without spend bands. */
  readonly earnActivityId: string;
  /** REDEEM_RETURN_ACTIVITIES: redeemed points to the activity that gives as many back. */
  readonly redeemReturnActivities: ReturnActivities;
  /** LOYALTY_ACTIVITY_POINTS: the points each activity gives, as declared (activity-points.ts); absent: none declared. */
  readonly activityPoints?: ActivityPoints;
  /** Paused while the service refuses this account's credentials; the others go on. */
  readonly authPause: AuthPause;
  /**
   * A place for one call in this account's rate budget, or when the budget
   * returns (its client's limiter, asked without waiting): an order whose
   * account has no place now is let go until then, so that it holds no
   * worker slot another account could use. Absent: the worker never asks,
   * and a call waits in its limiter. `share`: a caller after live orders (the storefront), held to that part of
   * each slice.
   */
  readonly reserveCall?: (share?: number) => RateBudget;
  /**
   * The budget reserveCall asks, when accounts share one (the same service,
   * key and limit share a limiter): the worker keeps the places, holds and
   * spent budgets of such accounts as one. Absent: the account's own.
   */
  readonly budgetId?: string;
  /** Rules of its saved settings that cannot run (a pattern RE2 cannot compile), each off until it is fixed. */
  readonly pausedRules?: readonly PausedRule[];
  /**
   * The accounts sharing its service and key: one pool of points per customer (AccountPool). As kept for a few
   * seconds; `'fresh'`, read now (a redeem: another account may have just taken this pool's key, and lead it).
   */
  readonly pool: (read?: 'fresh') => Promise<AccountPool>;
}

/**
 * Accounts with the same service address and API key: the service keeps one pool of points per customer for them
 * all, so their reward reservations meet at one holder (docs/accounts.md; storefront/customer-holders.ts).
 */
export interface AccountPool {
  /** Whose holders every member's new reservations go under: the member created first (ties: the smallest id). */
  holder: string;
  /** Every member, this account among them: their own holders may hold codes reserved before (still counted). */
  members: readonly string[];
}

/** The pool of an account that shares its key with no other. */
export const alone = (id: string) => async (): Promise<AccountPool> => ({ holder: id, members: [id] });

/** A rule of an account's settings that is off because its setting cannot run, and why, for whoever can fix it. */
export interface PausedRule {
  /** The setting, by its configuration name. */
  key: string;
  /** What the rule does, in words. */
  rule: string;
  /** Why its pattern cannot run, to follow "the pattern": "uses lookaround, …". */
  why: string;
}

export interface Accounts {
  /** The account a shop is linked to; undefined: none (its orders wait). */
  forShop(platform: string, shop: string): Promise<string | undefined>;
  /** An account's runtime; undefined when no such account exists (any more). */
  runtime(id: string): Promise<AccountRuntime | undefined>;
  /** Every account's runtime that exists now (status, metrics, stopping their pauses). */
  all(): Promise<AccountRuntime[]>;
  /**
   * A shop was erased: it earns on no account from now on. Its link went
   * with it, so that a name connected again later, perhaps by someone else,
   * starts unlinked (absent: nothing links shops, as with one account).
   */
  forgetShop?(platform: string, shop: string): Promise<void>;
  stop(): void;
}

/** One account serving every shop: a bridge configured by its environment alone. */
export function singleAccount(runtime: AccountRuntime): Accounts {
  return {
    forShop: async () => runtime.id,
    runtime: async (id) => (id === runtime.id ? runtime : undefined),
    all: async () => [runtime],
    stop: () => runtime.authPause.stop(),
  };
}
