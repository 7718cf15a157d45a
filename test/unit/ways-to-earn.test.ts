// The ways to earn a customer reads in the store, and the order totals each is for: what the theme's
// "Earn N points" block reads to find N for a price or a cart total (extensions/loyalty-theme/assets/loyalty.js).
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import { waysToEarn } from '../../src/core/storefront/ways-to-earn.ts';

const account = (policy: Partial<typeof DEFAULT_POLICY>, activityPoints: Record<string, number> | undefined) => ({
  policy: { ...DEFAULT_POLICY, ...policy },
  earnActivityId: '1',
  activityPoints,
});

describe('the ways to earn', () => {
  it('is one line for any order, from nothing up', () => {
    expect(waysToEarn(account({}, { '1': 100 }))).toEqual([{ words: 'Place an order', points: 100, from: '0' }]);
  });

  it('starts at the minimum order total, which the words say too', () => {
    expect(waysToEarn(account({ minimumTotal: '25.50' }, { '1': 40 }))).toEqual([
      { words: 'Place an order of 25.50 or more', points: 40, from: '25.50' },
    ]);
  });

  it('is one line per spend band, lowest first, each up to where the next band starts', () => {
    const bands = [
      { from: '200', activityId: '9' },
      { from: '0', activityId: '1' },
      { from: '50', activityId: '7' },
    ];
    expect(waysToEarn(account({ earnBands: bands }, { '1': 10, '7': 60, '9': 300 }))).toEqual([
      { words: 'Spend 0 or more on an order', points: 10, from: '0', below: '50' },
      { words: 'Spend 50 or more on an order', points: 60, from: '50', below: '200' },
      { words: 'Spend 200 or more on an order', points: 300, from: '200' },
    ]);
  });

  it('keeps where a band ends when the next band is left out for its undeclared points', () => {
    const bands = [
      { from: '0', activityId: '1' },
      { from: '100', activityId: '8' },
    ];
    // An order of 150 earns activity 8's points, which the bridge does not know: not activity 1's.
    expect(waysToEarn(account({ earnBands: bands }, { '1': 10 }))).toEqual([
      { words: 'Spend 0 or more on an order', points: 10, from: '0', below: '100' },
    ]);
  });

  it('lifts a band that starts below the minimum order total to it, the words unchanged', () => {
    const bands = [
      { from: '0', activityId: '1' },
      { from: '50', activityId: '7' },
    ];
    expect(waysToEarn(account({ earnBands: bands, minimumTotal: '20' }, { '1': 10, '7': 60 }))[0]).toEqual({
      words: 'Spend 0 or more on an order',
      points: 10,
      from: '20',
      below: '50',
    });
  });

  it('shows nothing for an account that declares no points', () => {
    expect(waysToEarn(account({}, undefined))).toEqual([]);
  });
});
