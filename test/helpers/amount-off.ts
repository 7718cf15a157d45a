// Rewards of an amount off, as tests set them: the benefit, and the reward the code sweeper's unit tests redeem
// (200 points for 5.00 off, codes that last a week and combine).
import type { RewardBenefit } from '../../src/core/reward-benefit.ts';
import type { Reward } from '../../src/core/storefront/rewards.ts';

export const amountOff = (amount: string): RewardBenefit => ({ kind: 'amount_off', amount });

export const FIVE_OFF: Omit<Reward, 'on'> = {
  ...{ id: 'rw1', points: 200, benefit: amountOff('5.00') },
  ...{ minimumOrder: null, expiresInDays: 7, combines: true },
};

/** The money a code of `benefit` takes off a cart of `subtotal`, as an order names its discount ("6.00"). */
export function moneyTakenOff(benefit: RewardBenefit, subtotal: string): string {
  const cents = Math.round(Number(subtotal) * 100);
  switch (benefit.kind) {
    case 'amount_off':
      return (Math.min(cents, Math.round(Number(benefit.amount) * 100)) / 100).toFixed(2);
    case 'percent_off':
      return (Math.round((cents * benefit.percent) / 100) / 100).toFixed(2);
    case 'free_shipping':
      return '0.00';
  }
}
