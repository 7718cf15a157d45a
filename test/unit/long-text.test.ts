// Text that someone else writes (a loyalty service's message, an order's
// attribute, a letter's reason, an address) meets no expression that is
// quadratic in it. Each input below is a run of 200,000 characters the
// quadratic form reads again from every start position: some 2·10¹⁰ steps,
// past any test's patience, while the forms used now take a pass or two.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referrerValue } from '../../src/core/attribution.ts';
import { documentedFailure } from '../../src/loyalty/errors.ts';
import { reasonForShop } from '../../src/services/merchant.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';
import { wholeEmails } from '../../src/core/store/customer-data.ts';
import { wooShopOf } from '../../adapters/woocommerce/shop-identity.ts';

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
    // A platform registered as a module is told by the key's shape; an address is not a key.
    const mine = { platform: 'tinyshop', shop: 'acme' };
    expect(reasonForShop('held by order tinyshop:other-store:42.', mine)).toBe('held by an order.');
    expect(reasonForShop('held by order tinyshop:acme:42.', mine)).toBe('held by order tinyshop:acme:42.');
    expect(reasonForShop('could not reach https://loyalty.example:8443/x', mine)).toBe(
      'could not reach https://loyalty.example:8443/x',
    );
    expect(reasonForShop(`${'ab:'.repeat(RUN)}1`, mine)).toBe('an order');
    expect(reasonForShop(`x ${'ab:'.repeat(RUN)}`, mine)).toHaveLength(3 * RUN + 2);
    // The collision's own words, whose key may hold a space, are looked for no further than a key is long.
    expect(reasonForShop('used by order '.repeat(RUN / 10), mine)).toHaveLength(14 * (RUN / 10));
  });

  it('trims a trailing run in one pass', () => {
    expect(trimTrailing(`https://loyalty.example${'/'.repeat(RUN)}`, '/')).toBe('https://loyalty.example');
    expect(trimTrailing(`${'/'.repeat(RUN)}x`, '/')).toHaveLength(RUN + 1);
    expect(trimTrailing('', '/')).toBe('');
  });
});

describe('the e-mail addresses in a kept body that is not JSON', () => {
  /** The expression wholeEmails replaced: the same addresses, found in quadratic time. */
  const quadratic = (text: string) =>
    (text.match(/[^\s"'<>,;:()[\]{}]+@[^\s"'<>,;:()[\]{}]+/g) ?? []).map((email) => email.trim().toLowerCase());

  it('are what the expression found, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'B', '@', '.', ' ', ',', '\n', '"', '{', ':'), maxLength: 60 }),
        (text) => {
          expect(wholeEmails(text)).toEqual(quadratic(text));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('are found in a 1 MiB body without an @ in its long run, and beside it', () => {
    const body = `${'a'.repeat(2 ** 20)} Ann@Example.com, ${'b'.repeat(1_000)}@`;
    expect(wholeEmails(body)).toEqual(['ann@example.com']);
  });
});

describe('a WooCommerce store’s name', () => {
  it('is the same read once or twice, whatever the slashes, case and /wp-json of its address', () => {
    const part = fc.constantFrom(
      '/',
      '//',
      'wp-json',
      'WP-JSON',
      'Shop',
      'a',
      '%2F',
      '%2e',
      '.',
      '..',
      'wp-json/',
      '/wp-json',
    );
    const host = fc.constantFrom(
      'www.',
      'www.www.',
      'Store.example',
      '.example',
      ':443',
      ':8443',
      '',
      'xn--bcher-kva.example',
    );
    const scheme = fc.constantFrom('https://', 'http://');
    fc.assert(
      fc.property(scheme, fc.array(host, { maxLength: 3 }), fc.array(part, { maxLength: 8 }), (start, hosts, parts) => {
        let name: string;
        try {
          name = wooShopOf(`${start}${hosts.join('')}/${parts.join('')}`);
        } catch {
          return; // An address that names no store: its deliveries name none either.
        }
        expect(wooShopOf(name)).toBe(name);
      }),
      { numRuns: 3_000 },
    );
    expect(wooShopOf('https://victim.example///wp-json')).toBe('victim.example');
    expect(wooShopOf('https://victim.example/shop//wp-json/wc/v3')).toBe('victim.example/shop');
  });

  it('is read from a source of 15,000 slashes in one pass', () => {
    expect(wooShopOf(`https://a.example/${'/'.repeat(15_000)}x`)).toBe('a.example/x');
    expect(wooShopOf(`https://a.example/x${'/'.repeat(15_000)}`)).toBe('a.example/x');
  });
});
