// A reward's codes on the platform (reserve at issue, redeem at use: src/core/storefront/reservations.ts).
import type { DiscountCodeRequest, MadeCode, Readiness } from '../platform-shapes.ts';
import type { BenefitKind } from '../reward-benefit.ts';

/**
 * Every call may throw (the platform unreachable, access gone): the caller keeps the reservation and tries again
 * later. An error whose `transient` is true says the store is only down now (asking again may succeed): the
 * sweeper then never takes it for a store that cannot be asked.
 */
export interface StoreCodes {
  /** Makes the code on the platform: one use, for that customer where the platform allows, ending at expiresAt. */
  make(request: DiscountCodeRequest): Promise<MadeCode>;
  /** The platform's id of a code by its text, or undefined when the store has none: the repair of a lost make. */
  find(shop: string, code: string): Promise<string | undefined>;
  /**
   * How often the code paid for an order, read from the platform (not from the orders the bridge happened to
   * see); undefined when the store has no such code any more. Throws an error whose `accessGone` is true when the
   * store no longer lets the bridge in at all (its key revoked): a code past its expiry is then let go.
   */
  uses(shop: string, platformId: string): Promise<number | undefined>;
  /** Removes a code, so that it pays for nothing later; one already gone is removed. */
  remove(shop: string, platformId: string): Promise<void>;
  /**
   * Whether a code is kept to the customer it is for (the platform refuses it to anyone else); false where the
   * platform cannot (its text, long and random, is shown only to them). The merchant's page says which.
   */
  forOneCustomer: boolean;
  /**
   * Whether the platform counts a code's uses some time after the order (a count "updated asynchronously", in one
   * platform's words): a count of 0 read soon after a checkout may hide a use, so a code removed unused before its
   * expiry keeps its points held through the settling window for its order. False: counted with the order.
   */
  usesCountedLate: boolean;
  /**
   * The kinds of reward (reward-benefit.ts) the platform cannot make a code for, each with why in the merchant's
   * words; empty where it makes every kind. The merchant's Rewards says so when that kind is picked, and a reward
   * of it is refused when saved.
   */
  notMade: Partial<Record<BenefitKind, string>>;
  /**
   * What the merchant sets in the store before a code of a kind works there, in their words; empty where nothing. The
   * merchant's Rewards says it when that kind is picked (a code the store takes but does not honour costs points).
   */
  setUpFirst: Partial<Record<BenefitKind, string>>;
  /**
   * Why a code of that kind would not do what it says in the store as it is set now, in the merchant's words with
   * the fix; undefined when it would. Asked when the merchant saves a reward of that kind turned on: the save is
   * refused rather than customers spending points on a code that gives nothing.
   */
  whyKindFails(shop: string, kind: BenefitKind): Promise<string | undefined>;
  /** Whether the install may make codes now (a scope the merchant approves when they turn rewards on). */
  readiness(shop: string): Promise<Readiness>;
}
