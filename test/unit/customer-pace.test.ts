// A customer's presses of Redeem, paced (issue 64): each counts until it makes a code; past PACE_REFUSALS in
// PACE_SECONDS a press is held, then refused, and only MAX_HELD of one customer's presses are held at once.
import { describe, expect, it } from 'vitest';
import {
  CustomerPace,
  HOLD_MAX_MS,
  MAX_HELD,
  PACE_REFUSALS,
  paceKey,
} from '../../src/core/storefront/customer-pace.ts';

function pace() {
  const holds: number[] = [];
  const release: Array<() => void> = [];
  const paced = new CustomerPace({
    sleep: (ms) => {
      holds.push(ms);
      return new Promise((resolve) => release.push(() => resolve()));
    },
  });
  return { paced, holds, releaseAll: () => release.splice(0).forEach((go) => go()) };
}

describe('a customer’s pace of Redeem', () => {
  const mallory = paceKey('shopify', 'a.myshopify.com', '7009');

  it('lets PACE_REFUSALS presses at once through, however many come, and holds the rest', async () => {
    const { paced, holds, releaseAll } = pace();
    const presses = Array.from({ length: 20 }, () => paced.press(mallory));
    await new Promise((resolve) => setImmediate(resolve));
    releaseAll();
    const answers = await Promise.all(presses);
    expect(answers.filter((answer) => answer.ok)).toHaveLength(PACE_REFUSALS);
    // Two of the others were held (at most HOLD_MAX_MS each); the rest refused at once, holding nothing.
    expect(holds).toHaveLength(MAX_HELD);
    for (const ms of holds) expect(ms).toBeLessThanOrEqual(HOLD_MAX_MS);
    expect(answers.find((answer) => !answer.ok)).toMatchObject({ retryAfterSeconds: expect.any(Number) });
  });

  it('never counts a press that made a code', async () => {
    const { paced } = pace();
    for (let n = 0; n < PACE_REFUSALS * 3; n++) {
      expect(await paced.press(mallory)).toEqual({ ok: true });
      await paced.answered(mallory, true);
    }
  });

  it('paces each customer, shop and platform on its own', async () => {
    const { paced, releaseAll } = pace();
    for (let n = 0; n < PACE_REFUSALS; n++) await paced.press(mallory);
    const held = paced.press(mallory);
    for (const other of [
      paceKey('shopify', 'a.myshopify.com', '7002'),
      paceKey('shopify', 'b.myshopify.com', '7009'),
      paceKey('bigcommerce', 'a.myshopify.com', '7009'),
    ])
      expect(await paced.press(other)).toEqual({ ok: true });
    releaseAll();
    expect((await held).ok).toBe(false);
  });
});
