// Discount-code patterns run on RE2 (re2js), whatever wrote them: the
// environment, or an account's settings, which a stranger's shop may write.
// On JavaScript's own engine, each pattern below takes longer than any test
// would wait on a 255-character code (^(a|a)*$ doubles its time with each
// character), so these complete only because the engine does not backtrack.
// The time per match is a figure of the bench (bench/hostile-pattern.ts).
import { describe, expect, it } from 'vitest';
import { findReferrer, pointsToRedeem } from '../../src/core/attribution.ts';
import { compileCodePattern } from '../../src/core/code-pattern.ts';
import { DEFAULT_POLICY, type Policy } from '../../src/core/policy.ts';
import { policyFromConfig } from '../../src/accounts/policy-from-config.ts';
import { loadConfig } from '../../src/config.ts';
import { programSettingsOf } from '../../src/accounts/program-settings.ts';
import type { OrderSnapshot } from '../../src/core/order-record.ts';

const HOSTILE = ['^(a|a)*$', '.*.*.*.*.*.*=', '^(a+)+$', '(x*)*y', '^(([a-z])+.)+[A-Z]([a-z])+$'];
const CODE = 'a'.repeat(254) + '!';

function policyWith(pattern: string): Policy {
  const loaded = loadConfig({
    env: { REDEEM_CODE_PATTERN: pattern, REFERRAL_REFERRER_DISCOUNT_PATTERN: pattern, REFERRAL_REFERRER_KIND: 'email' },
  });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  return policyFromConfig(programSettingsOf(loaded.config));
}

const withCode = (code: string) =>
  ({ discountCodes: [{ code, amount: '5.00' }], attributes: {}, landingSite: null }) as unknown as OrderSnapshot;

describe('a discount-code pattern', () => {
  it.each(HOSTILE)('%s completes on a 255-character code, in both rules', (pattern) => {
    const policy = policyWith(pattern);
    expect(pointsToRedeem(withCode(CODE), policy)).toBe(0);
    expect(findReferrer(withCode(CODE), policy)).toBeUndefined();
  });

  it('matches as the settings always did: anywhere in the code, whatever the case, the first group named', () => {
    const policy = policyWith('^ref-([a-z]+@[a-z.]+)$');
    expect(pointsToRedeem(withCode('REF-anna@example.com'), policy)).toBe(500);
    expect(findReferrer(withCode('REF-anna@example.com'), policy)).toEqual({
      kind: 'email',
      value: 'anna@example.com',
      via: 'discount_code',
    });
    expect(pointsToRedeem(withCode('my-LOYALTY-5'), DEFAULT_POLICY)).toBe(0);
    expect(pointsToRedeem(withCode('loyalty-5'), DEFAULT_POLICY)).toBe(500);
  });

  it('is refused when it repeats so much that RE2 would compile and run it slowly', () => {
    expect(compileCodePattern(`${'.{0,1000}'.repeat(21)}Z`)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^repeats too much/),
    });
    expect(compileCodePattern('(.{0,30}){0,30}')).toEqual({ ok: false, reason: expect.stringMatching(/too large/) });
    // Found in review: a Unicode class is one instruction of 1,370 ranges, searched at every character.
    expect(compileCodePattern('\\pL{0,40}z')).toEqual({ ok: false, reason: expect.stringMatching(/too large/) });
    expect(compileCodePattern('(.*)'.repeat(40))).toEqual({ ok: false, reason: expect.stringMatching(/too large/) });
    // Found in review: longer than the configuration allows is not compiled at all (zod runs every check).
    expect(compileCodePattern('[\\pL\\pN]'.repeat(5_000))).toEqual({
      ok: false,
      reason: 'must be at most 200 characters',
    });
    expect(compileCodePattern('^GIFT-(\\w{1,40})$').ok).toBe(true);
    expect(compileCodePattern('^[A-Z]{4}-[0-9]{4}-[A-Z0-9]{8}$').ok).toBe(true);
  });

  it('reads the first 10 codes of an order, however many the store sends', () => {
    const codes = Array.from({ length: 25 }, (_, n) => ({ code: `LOYALTY-${n}`, amount: '1.00' }));
    const snapshot = { discountCodes: codes, attributes: {}, landingSite: null } as unknown as OrderSnapshot;
    expect(pointsToRedeem(snapshot, DEFAULT_POLICY)).toBe(10 * 100);
  });

  it('says in words why RE2 cannot run a pattern', () => {
    expect(compileCodePattern('^LOYALTY-(?!TEST)')).toEqual({
      ok: false,
      reason: expect.stringMatching(/^uses lookaround/),
    });
    expect(compileCodePattern('(a)\\1')).toEqual({ ok: false, reason: expect.stringMatching(/^uses a backreference/) });
    expect(compileCodePattern('[')).toEqual({
      ok: false,
      reason: expect.stringMatching(/^must be a valid regular expression/),
    });
  });
});
