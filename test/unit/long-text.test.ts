// Text that someone else writes (a loyalty service's message, an order's
// attribute, a letter's reason, an address) meets no expression that is
// quadratic in it. Each input below is a run of 200,000 characters the
// quadratic form reads again from every start position: some 2·10¹⁰ steps,
// past any test's patience, while the forms used now take a pass or two.
import { describe, expect, it } from 'vitest';
import { referrerValue } from '../../src/core/attribution.ts';
import { documentedFailure } from '../../src/loyalty/errors.ts';
import { reasonForShop } from '../../src/http/shop-attention.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';

const RUN = 200_000;

describe('text from outside', () => {
  it('a service message ending in a long run of dots is read for what it says', () => {
    expect(documentedFailure(`${'.'.repeat(RUN)}x`, undefined)).toBeUndefined();
    expect(documentedFailure(`lp_email is required${'.'.repeat(RUN)}`, undefined)).toBe('invalid_source');
  });

  it('a referrer attribute of a long run of dots is no e-mail', () => {
    expect(referrerValue('email', `a@a${'.a'.repeat(RUN / 2)} `)).toBeUndefined();
    expect(referrerValue('email', 'Ann@Example.com')).toBe('ann@example.com');
  });

  it('a letter naming an order key with a long tail of punctuation is told as "an order"', () => {
    const reason = `already used by order shopify:other.myshopify.com:1${';'.repeat(RUN)}x`;
    expect(reasonForShop(reason, { platform: 'shopify', shop: 'mine.myshopify.com' })).toBe('already used by an order');
    expect(
      reasonForShop('held by order shopify:other.myshopify.com:1.', {
        platform: 'shopify',
        shop: 'mine.myshopify.com',
      }),
    ).toBe('held by an order.');
  });

  it('trims a trailing run in one pass', () => {
    expect(trimTrailing(`https://loyalty.example${'/'.repeat(RUN)}`, '/')).toBe('https://loyalty.example');
    expect(trimTrailing(`${'/'.repeat(RUN)}x`, '/')).toHaveLength(RUN + 1);
    expect(trimTrailing('', '/')).toBe('');
  });
});
