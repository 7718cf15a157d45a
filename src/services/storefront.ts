// The storefront as one service: what a customer's page on the store asks of their points, for every platform with
// a `storefront` part. Its routes (src/http/storefront-routes.ts) only say who asks, as the platform signed it
// (Storefront.customer); the rest is here: a shop whose storefront is off, a guest, a customer with no proven
// contact, the pace of their presses of Redeem (core/storefront/customer-pace.ts) and the open codes they may hold
// (MAX_OPEN_CODES, core/storefront/reserve-code.ts). docs/storefront.md.
import type { StorefrontAsker } from '../core/platform-shapes.ts';
import { paceKey, type CustomerPace } from '../core/storefront/customer-pace.ts';
import {
  pointsAnswer,
  redeemAnswer,
  type CustomerAnswerParts,
  type StorefrontAnswer,
} from './storefront/customer-answers.ts';
import { REDEEM_WORDS } from './storefront/words.ts';

export type { StorefrontAnswer } from './storefront/customer-answers.ts';
export { CUSTOMER_WORDS, REDEEM_WORDS } from './storefront/words.ts';

export interface StorefrontServiceParts extends CustomerAnswerParts {
  /** One pace for every platform's storefront: a customer's presses counted wherever they come in. */
  pace: Pick<CustomerPace, 'press' | 'answered'>;
}

/** Each answer is what the store's widgets read, as it is: the route answers it unchanged. */
export interface StorefrontService {
  /** Whether a platform's customers may redeem rewards: only where it makes reward codes (its `codes` part). */
  redeems(platform: string): boolean;
  /** A customer's points (balance, history, open codes, rewards offered), or a guest's view of the shop. */
  points(platform: string, asker: StorefrontAsker): Promise<StorefrontAnswer>;
  /** A customer's press of Redeem for the reward they named: a code, or why not (nothing taken then). */
  redeem(platform: string, asker: StorefrontAsker, rewardId: string | undefined): Promise<StorefrontAnswer>;
}

/** Not the platform's: nothing read, nothing recorded. */
const NOT_SIGNED: StorefrontAnswer = { status: 401, json: { error: 'this request is not signed by the store' } };

export function storefrontService(parts: StorefrontServiceParts): StorefrontService {
  const { pace } = parts;
  return {
    redeems: (platform) => parts.partsOf(platform)?.codes !== undefined,
    async points(platform, asker) {
      if (asker.kind === 'refused') return NOT_SIGNED;
      return pointsAnswer(parts, platform, asker);
    },
    async redeem(platform, asker, rewardId) {
      if (asker.kind === 'refused') return NOT_SIGNED;
      // A guest's press reads nothing: they are asked to sign in.
      if (asker.kind === 'guest')
        return { status: 401, json: { customer: 'guest', signIn: true, redeemed: false, error: REDEEM_WORDS.signIn } };
      // A signed-in customer pressing Redeem past their refusals' pace: refused after a hold, before anything is read.
      const key = paceKey(platform, asker.shop, asker.customerId);
      const paced = await pace.press(key);
      if (!paced.ok)
        return {
          status: 429,
          headers: { 'retry-after': String(paced.retryAfterSeconds) },
          json: { redeemed: false, error: REDEEM_WORDS.tooFast, retryAfterSeconds: paced.retryAfterSeconds },
        };
      const answered = await redeemAnswer(parts, platform, asker, rewardId);
      // Each press counts as refused until it makes a code.
      await pace.answered(key, answered.status === 200);
      return answered;
    },
  };
}
