// Every state and reason the core gives reads as a sentence, with a fix where there is one: the codes come from
// the core's own lists (and every `reason: '…'` the core writes), so a new code without words fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ATTENTION_REASONS, SKIP_REASONS, WAITING_REASONS } from '../../src/core/lifecycle.ts';
import {
  orderLabel,
  orderTone,
  orderWords,
  REASON_WORDS,
  reasonWords,
  stateWords,
  wordsLine,
} from '../../src/core/order-words.ts';
import { counted, isAre } from '../../src/counted.ts';
import { isTakeBack } from '../../src/core/storefront/take-backs.ts';
import { pointsFromService } from '../../src/core/storefront/customer-points.ts';
import { limitWords } from '../../src/loyalty/rate-limiter.ts';

const CODES = [...SKIP_REASONS, ...ATTENTION_REASONS, ...WAITING_REASONS];
const STATES = ['new', 'earned', 'approved', 'cancelled', 'void', 'skipped'];

/** Every reason literal the core and its worker write into an order's target. */
function reasonsWrittenInCore(): string[] {
  const files = readdirSync('src/core', { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  const found = new Set<string>();
  for (const file of files)
    for (const match of readFileSync(join('src/core', file), 'utf8').matchAll(/reason: \(?'([a-z_]+)'/g))
      found.add(match[1]!);
  return [...found];
}

describe('an order’s words', () => {
  it.each(CODES)('%s reads as a sentence, with its fix for each audience', (code) => {
    for (const audience of ['merchant', 'operator'] as const) {
      const words = reasonWords(code, { audience });
      expect(words.says).toMatch(/^[A-Z].{20,}[.]$/);
      expect(words.says).not.toContain(code);
      // A merchant never reads a configuration name.
      if (audience === 'merchant') expect(JSON.stringify(words)).not.toMatch(/[A-Z]{3,}_[A-Z_]+/);
    }
  });

  it('knows every reason the core writes, and no code it does not', () => {
    for (const code of reasonsWrittenInCore()) expect(CODES).toContain(code);
    expect(Object.keys(REASON_WORDS).sort()).toEqual([...CODES].sort());
  });

  it('gives a fix wherever one exists; only an erased customer has none', () => {
    const without = CODES.filter((code) => !reasonWords(code, { audience: 'merchant' }).fix);
    expect(without).toEqual(['customer_erased']);
  });

  it('sends a merchant to the operator for a fix in Set up, where the program is not theirs to change', () => {
    for (const code of CODES) {
      const own = reasonWords(code, { audience: 'merchant' }).fix ?? '';
      const theirs = reasonWords(code, { audience: 'merchant', mayChangeProgram: false }).fix ?? '';
      if (own.startsWith('Set up')) expect(theirs).toMatch(/^ask the bridge’s operator/);
      else expect(theirs).toBe(own);
    }
  });

  it.each(STATES)('the state %s reads as a sentence', (state) => {
    expect(stateWords(state)).toMatch(/^[A-Z].{10,}[.]$/);
  });

  it('says a skipped order’s reason and its fix, the setting for operators only', () => {
    const merchant = orderWords({ state: 'skipped', reason: 'missing_mobile' }, { audience: 'merchant' });
    expect(merchant).toEqual({
      says: 'This customer gave no phone number, and your program requires one, so the order earns no points.',
      fix: 'Set up, Customers need a phone',
    });
    const operator = orderWords({ state: 'skipped', reason: 'missing_mobile' }, { audience: 'operator' });
    expect(operator.setting).toBe('REQUIRE_MOBILE');
    expect(wordsLine(operator)).toBe(
      'This customer gave no phone number, and your program requires one, so the order earns no points. Fix: Customers need a phone, in the account’s program settings. [REQUIRE_MOBILE]',
    );
  });

  it('says until when or what points are pending, following the account’s approval settings', () => {
    expect(stateWords('earned', { policy: { pendingDays: 0, earnTrigger: 'paid' } })).toBe(
      'Points earned, pending until the order is fulfilled.',
    );
    expect(
      stateWords('earned', {
        policy: { pendingDays: 14, earnTrigger: 'paid' },
        pendingUntil: new Date('2026-12-09T10:00:00Z'),
      }),
    ).toBe('Points earned, pending until 2026-12-09, 14 days after it was paid.');
    expect(stateWords('void')).toContain('cancelled or refunded before it earned points');
  });

  it('tells a platform’s own reason in its words, and a call held by a dead letter', () => {
    const platformReasons = { protected_data_hidden: { why: 'Hidden by the platform.', fix: 'Ask for access' } };
    expect(
      orderWords({ state: 'skipped', reason: 'protected_data_hidden' }, { audience: 'merchant', platformReasons }),
    ).toEqual({ says: 'Hidden by the platform.', fix: 'Ask for access' });
    const held = orderWords({ state: 'earned' }, { audience: 'merchant', held: ['earn'] });
    // Not "Points earned": the order's row shows no points while its earn is held.
    expect(held.says).toMatch(/^No points given yet\. Held: the loyalty service refused giving its points/);
    expect(held.says).toContain('Could not go on');
  });

  it('tells an attention reason after the state', () => {
    const words = orderWords(
      { state: 'cancelled', reason: 'points_redeemed_on_cancelled_order' },
      { audience: 'operator' },
    );
    expect(words.says).toMatch(/^Points cancelled: .* The customer spent points on this order/);
  });
});

describe('an order’s badge', () => {
  it('is red and says what happened while the service refused a call of it, whatever its state plans', () => {
    expect([orderLabel({ state: 'earned' }, ['earn']), orderTone({ state: 'earned' }, ['earn'], false)]).toEqual([
      'No points given yet',
      'bad',
    ]);
    expect(orderLabel({ state: 'cancelled' }, ['cancel'])).toBe('Refused: cancelling its points');
    expect(orderTone({ state: 'cancelled', reason: 'points_redeemed_on_cancelled_order' }, [], false)).toBe('bad');
    // A failed call waiting to be tried again: not green yet.
    expect(orderTone({ state: 'earned' }, [], true)).toBe('warn');
  });

  it('is green when earned, grey when it earns nothing', () => {
    expect(orderTone({ state: 'approved' }, [], false)).toBe('good');
    expect(orderTone({ state: 'earned' }, [], false)).toBe('pending');
    expect(orderTone({ state: 'skipped', reason: 'test_order' }, [], false)).toBe('none');
    expect(orderTone({ state: 'void' }, [], false)).toBe('none');
  });
});

describe('counts in English', () => {
  it('says one and many as English does, not "order(s)"', () => {
    expect([counted(1, 'order'), counted(2, 'order'), counted(0, 'order')]).toEqual([
      '1 order',
      '2 orders',
      '0 orders',
    ]);
    expect(counted(3, 'delivery', 'deliveries')).toBe('3 deliveries');
    expect([isAre(1), isAre(5)]).toEqual(['is', 'are']);
  });
});

describe('a take-back in the customer’s history', () => {
  it('reads as taken back by the store, a reward’s redeem as spent on a reward', () => {
    const data = {
      balance: { approved: 200, redeemed: 130, pending: 0 },
      redeemed: [
        { points: 100, createdAt: '2026-11-18T10:00:00' },
        { points: 30, createdAt: '2026-11-18T10:05:01' },
      ],
    };
    const history = pointsFromService(data, 0, [{ at: '2026-11-18T10:05:00.000Z', points: 30 }])!.history;
    expect(history.map((line) => [line.words, line.points])).toEqual([
      ['Taken back by the store', -30],
      ['Spent on a reward', -100],
    ]);
  });

  it('names one redeem for each take-back, of its points, within minutes of it', () => {
    const left = [{ at: '2026-11-18T10:00:00.000Z', points: 30 }];
    expect(isTakeBack(left, { at: '2026-11-18T11:00:00.000Z', points: 30 })).toBe(false);
    expect(isTakeBack(left, { at: '2026-11-18T10:00:02.000Z', points: 20 })).toBe(false);
    expect(isTakeBack(left, { at: '2026-11-18T10:00:02.000Z', points: 30 })).toBe(true);
    expect(isTakeBack(left, { at: '2026-11-18T10:00:03.000Z', points: 30 })).toBe(false);
  });
});

describe('the limit in words', () => {
  it('says why it is below the service’s', () => {
    expect(limitWords(5, { limit: 500, effectiveLimit: 489, windowMs: 60_000 })).toBe(
      '5 calls in the last minute, of 489: 489 of the 500 calls a minute the service allows; the rest is kept spare so that late calls never exceed it.',
    );
    expect(limitWords(2, { limit: 3, effectiveLimit: 3, windowMs: 60_000 })).toBe(
      '2 calls in the last minute, of the 3 a minute the service allows.',
    );
    expect(limitWords(1, { limit: 3, effectiveLimit: 3, windowMs: 30_000 })).toBe(
      '1 call in the last 30 seconds, of the 3 every 30 seconds the service allows.',
    );
  });
});
