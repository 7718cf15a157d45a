// The demo store's codes (src/composition/demo-storefront.ts), as its checkout takes them: a code pays once, for the
// customer it was made for, until it expires or the bridge removes it; and the bridge reads each use, as it reads a
// platform's, so that a code that paid is never let go with its points still held.
import { describe, expect, it } from 'vitest';
import { CODE_REFUSED, DemoCodes } from '../../src/composition/demo-storefront.ts';
import type { DiscountCodeRequest } from '../../src/core/platform-module.ts';

const SHOP = 'loyalty-bridge-demo.myshopify.com';
const request = (code: string, more: Partial<DiscountCodeRequest> = {}): DiscountCodeRequest => ({
  shop: SHOP,
  customerId: '7001',
  code,
  title: 'Loyalty reward: 100 points',
  benefit: { kind: 'amount_off' as const, amount: '5.00' },
  minimumOrder: null,
  startsAt: '2026-11-27T00:00:00.000Z',
  expiresAt: '2026-12-27T00:00:00.000Z',
  combinesWithOthers: false,
  ...more,
});
const NOW = new Date('2026-11-28T00:00:00.000Z');

async function made(codes: DemoCodes, code: string, more: Partial<DiscountCodeRequest> = {}): Promise<string> {
  const answer = await codes.parts.make(request(code, more));
  if (answer.kind !== 'made') throw new Error('not made');
  return answer.platformId;
}

describe('the demo store’s codes', () => {
  it('pay once, for their customer, in any case of letters; the bridge reads the use', async () => {
    const codes = new DemoCodes();
    const id = await made(codes, 'LB-AAAABBBBCCCCDDDD');
    expect(await codes.parts.find(SHOP, 'LB-AAAABBBBCCCCDDDD')).toBe(id);
    expect(await codes.parts.uses(SHOP, id)).toBe(0);
    expect(codes.use('lb-aaaabbbbccccdddd', '9999', '40.00', NOW)).toEqual({ refused: CODE_REFUSED });
    expect(codes.use(' lb-aaaabbbbccccdddd ', '7001', '40.00', NOW)).toEqual({
      code: 'LB-AAAABBBBCCCCDDDD',
      amount: '5.00',
      benefit: { kind: 'amount_off', amount: '5.00' },
    });
    expect(await codes.parts.uses(SHOP, id)).toBe(1);
    expect(codes.use('LB-AAAABBBBCCCCDDDD', '7001', '40.00', NOW)).toEqual({ refused: CODE_REFUSED });
    expect(await codes.parts.uses(SHOP, id)).toBe(1);
  });

  it('pay nothing once removed or past their day, nor one the store never made', async () => {
    const codes = new DemoCodes();
    const removed = await made(codes, 'LB-REMOVEDREMOVED22');
    await codes.parts.remove(SHOP, removed);
    expect(await codes.parts.uses(SHOP, removed)).toBeUndefined();
    expect(codes.use('LB-REMOVEDREMOVED22', '7001', '40.00', NOW)).toEqual({ refused: CODE_REFUSED });
    await made(codes, 'LB-EXPIREDEXPIRED22', { expiresAt: '2026-11-27T12:00:00.000Z' });
    expect(codes.use('LB-EXPIREDEXPIRED22', '7001', '40.00', NOW)).toEqual({ refused: CODE_REFUSED });
    expect(codes.use('LB-NEVERMADENEVER2', '7001', '40.00', NOW)).toEqual({ refused: CODE_REFUSED });
    expect(await codes.parts.find(SHOP, 'LB-NEVERMADENEVER2')).toBeUndefined();
  });

  it('take off what each kind of reward gives, never more than the cart', async () => {
    const codes = new DemoCodes();
    const kinds = [
      ['LB-PERCENTPERCENT22', { kind: 'percent_off', percent: 15 }, '6.00'],
      ['LB-SHIPPINGSHIPPING2', { kind: 'free_shipping' }, '0.00'],
      ['LB-LARGELARGELARGE2', { kind: 'amount_off', amount: '99.00' }, '40.00'],
    ] as const;
    for (const [code, benefit] of kinds) await made(codes, code, { benefit });
    for (const [code, benefit, off] of kinds)
      expect(codes.use(code, '7001', '40.00', NOW)).toEqual({ code, amount: off, benefit });
  });
});
