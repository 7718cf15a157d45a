// Rewards of an amount off, as tests set them: the benefit, and the reward the code sweeper's unit tests redeem
// (200 points for 5.00 off, codes that last a week and combine).
import type { RewardBenefit } from '../../src/core/reward-benefit.ts';
import type { Reward } from '../../src/core/storefront/rewards.ts';

export const amountOff = (amount: string): RewardBenefit => ({ kind: 'amount_off', amount });

export const FIVE_OFF: Omit<Reward, 'on'> = {
  ...{ id: 'rw1', points: 200, benefit: amountOff('5.00') },
  ...{ minimumOrder: null, expiresInDays: 7, combines: true },
};
