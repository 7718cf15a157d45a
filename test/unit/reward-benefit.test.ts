// A reward's benefit as the merchant sets it: the union (reward-benefit.ts), or the amount off alone as the page and
// API clients sent it before benefits had kinds; refused in one line per bad key, naming the kinds there are.
import { describe, expect, it } from 'vitest';
import { parseRewards, rewardWords } from '../../src/core/storefront/rewards.ts';

const base = { points: 500, minimumOrder: '50', expiresInDays: 30 };

describe('a reward’s benefit, as the merchant sets it', () => {
  it('takes an amount off as a benefit, or as the amountOff the page sent before, and keeps the same reward', () => {
    const asBenefit = parseRewards({ rewards: [{ ...base, benefit: { kind: 'amount_off', amount: '5' } }] });
    const asAmount = parseRewards({ rewards: [{ ...base, amountOff: '5' }] });
    expect(asBenefit.ok && asBenefit.rewards[0]?.benefit).toEqual({ kind: 'amount_off', amount: '5.00' });
    expect(asAmount.ok && asAmount.rewards[0]?.benefit).toEqual({ kind: 'amount_off', amount: '5.00' });
    expect(asBenefit.ok && rewardWords(asBenefit.rewards[0]!)).toBe(
      '500 points for 5.00 off on orders of 50.00 or more',
    );
  });

  it('refuses a kind the bridge does not make, two amounts that differ, or none, in a line each', () => {
    const unknown = parseRewards({ rewards: [{ ...base, benefit: { kind: 'free_lunch' } }] });
    expect(unknown).toEqual({
      ok: false,
      errors: [
        'rewards.0.benefit.kind: must be a kind of reward the bridge makes: amount_off, percent_off, free_shipping',
      ],
    });
    // Both, when they say the same, as a list read back from the bridge may: taken; when they differ, refused.
    const same = parseRewards({ rewards: [{ ...base, amountOff: '5', benefit: { kind: 'amount_off', amount: '5' } }] });
    expect(same.ok && same.rewards[0]?.benefit).toEqual({ kind: 'amount_off', amount: '5.00' });
    const both = parseRewards({ rewards: [{ ...base, amountOff: '6', benefit: { kind: 'amount_off', amount: '5' } }] });
    expect(both).toEqual({
      ok: false,
      errors: ['rewards.0.benefit: give what the reward gives: benefit (or amountOff, the same amount)'],
    });
    const neither = parseRewards({ rewards: [{ ...base }] });
    expect(neither.ok).toBe(false);
    const amount = parseRewards({ rewards: [{ ...base, benefit: { kind: 'amount_off', amount: '0' } }] });
    expect(amount).toEqual({ ok: false, errors: ['rewards.0.benefit.amount: must be more than 0'] });
  });
});
