// What a customer's Redeem is answered (reward-codes.ts), for the routes and widgets that word it.
import type { RewardBenefit } from '../reward-benefit.ts';
export type RedeemAnswer =
  | { kind: 'issued'; code: string; benefit: RewardBenefit; expiresAt: string; available: number }
  /** The balance, less what is held, does not cover the reward. */
  | { kind: 'short'; available: number; points: number }
  /** The balance could not be read now: nothing was reserved. */
  | { kind: 'busy'; retryAfterSeconds: number }
  /** The store may not make codes (the merchant has to approve it): nothing is held. */
  | { kind: 'not-allowed' }
  /** The code could not be made: nothing stays held once the sweeper has looked (at once where it can). */
  | { kind: 'failed' }
  /**
   * The customer is named by a phone no order of the account was seen earning with an e-mail: the service finds a
   * customer by a phone only through an e-mail an earn paired with it (one by hand, one of another system), whose
   * codes the bridge cannot count. Nothing was read or reserved.
   */
  | { kind: 'needs-email' }
  /** The customer holds MAX_OPEN_CODES unused codes in the shop already: nothing was read or reserved. */
  | { kind: 'too-many' };
