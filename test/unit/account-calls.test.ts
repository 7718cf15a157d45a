// An account's calls in the last minute, as the merchant's page shows them:
// counted per account, forgotten after a minute, bucket by bucket.
import { describe, expect, it } from 'vitest';
import { AccountCalls } from '../../src/accounts/account-calls.ts';

describe('an account’s calls in the last minute', () => {
  it('counts each account on its own, and forgets each call a minute on', () => {
    let now = 1_700_000_000_000;
    const calls = new AccountCalls(() => now);
    for (let n = 0; n < 5; n++) calls.record('a');
    calls.record('b');
    now += 30_000;
    calls.record('a');
    expect([calls.lastMinute('a'), calls.lastMinute('b'), calls.lastMinute('c')]).toEqual([6, 1, 0]);
    now += 30_500;
    // The first five (and b's one) are more than a minute old; the sixth is 30.5 s old.
    expect([calls.lastMinute('a'), calls.lastMinute('b')]).toEqual([1, 0]);
    now += 30_000;
    expect(calls.lastMinute('a')).toBe(0);
  });

  it('does not count a bucket from a minute ago as this second’s', () => {
    let now = 1_700_000_000_000;
    const calls = new AccountCalls(() => now);
    calls.record('a');
    calls.record('a');
    // Exactly a minute on, the same bucket: the old calls are gone, the new one counts alone.
    now += 60_000;
    calls.record('a');
    expect(calls.lastMinute('a')).toBe(1);
  });
});
