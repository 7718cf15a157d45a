// What the demo's storefront answers offer (src/composition/demo-storefront.ts): one reward of each kind, each
// in words, at the points the demo customer's first order earns.
import { expect } from 'vitest';

export function expectDemoRewardsOffered(rewards: unknown): void {
  expect(rewards).toEqual([
    expect.objectContaining({ points: 100, amountOff: '5.00', words: '100 points for 5.00 off' }),
    expect.objectContaining({ points: 100, benefit: { kind: 'percent_off', percent: 10 } }),
    expect.objectContaining({ points: 100, benefit: { kind: 'free_shipping' }, words: '100 points for free shipping' }),
  ]);
}
