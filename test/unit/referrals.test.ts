// Referrals as the service documents them: whom to reward is read from the
// order, a conversion is only sent when there is someone, and it then follows
// the order: approved with its points, rejected with its cancellation.
import { describe, expect, it } from 'vitest';
import { attribute, referrerValue } from '../../src/core/attribution.ts';
import { approvalDueAt, plan } from '../../src/core/lifecycle.ts';
import type { Fact, OrderEvent } from '../../src/core/order-event.ts';
import { applyEvent, newOrderRecord, type OrderRecord, type UpstreamPoints } from '../../src/core/order-record.ts';
import { DEFAULT_POLICY, type Policy } from '../../src/core/policy.ts';
import { codePattern } from '../../src/core/code-pattern.ts';
import { orderEvent } from '../helpers/order-events.ts';

const NOW = new Date('2026-11-21T12:00:00Z');

function record(facts: Fact[], overrides: Partial<OrderEvent> = {}, points: UpstreamPoints = 'none'): OrderRecord {
  const event = orderEvent({ orderId: '77', facts, ...overrides });
  const made = newOrderRecord(event, NOW.toISOString());
  applyEvent(made, event, event.deliveryId, NOW.toISOString());
  made.upstream.points = points;
  made.upstream.earnedAt = points === 'none' ? null : '2026-11-20T12:00:00.000Z';
  return made;
}

const withReferrer = (
  referrer: Partial<Policy['referral']['referrer']>,
  rest: Partial<Policy['referral']> = {},
): Policy => ({
  ...DEFAULT_POLICY,
  referral: { ...DEFAULT_POLICY.referral, ...rest, referrer: { ...DEFAULT_POLICY.referral.referrer, ...referrer } },
});

describe('whom to reward', () => {
  const campaign = { loyalty_campaign: '12' };
  const sources: Array<[string, Partial<OrderEvent>, Policy, { kind: string; value: string; via: string }]> = [
    [
      'a cart attribute',
      { attributes: { ...campaign, loyalty_referrer: 'ANNA-7' } },
      DEFAULT_POLICY,
      { kind: 'code', value: 'ANNA-7', via: 'attribute' },
    ],
    [
      'the landing page',
      { attributes: campaign, landingSite: '/?utm_source=x&loyalty_referrer=ANNA-7#top' },
      DEFAULT_POLICY,
      { kind: 'code', value: 'ANNA-7', via: 'landing_site' },
    ],
    [
      'a discount code that is a referrer’s code',
      { attributes: campaign, discountCodes: [{ code: 'REF-ANNA7', amount: '5' }] },
      withReferrer({ discountCodePattern: codePattern('^REF-(.+)$') }),
      { kind: 'code', value: 'ANNA7', via: 'discount_code' },
    ],
    [
      'a whole discount code, with no group',
      { attributes: campaign, discountCodes: [{ code: 'anna7-friends', amount: '5' }] },
      withReferrer({ discountCodePattern: codePattern('-friends$'), kind: 'unique_code' }),
      { kind: 'unique_code', value: 'anna7-friends', via: 'discount_code' },
    ],
    [
      'an attribute named by the merchant, as an e-mail',
      { attributes: { ...campaign, referred_by: ' Anna@Example.com ' } },
      withReferrer({ kind: 'email', attributeKey: 'referred_by' }),
      { kind: 'email', value: 'anna@example.com', via: 'attribute' },
    ],
    [
      'an attribute, as a mobile number',
      { attributes: { ...campaign, loyalty_referrer: '+44 7700 900 555' } },
      withReferrer({ kind: 'mobile' }),
      { kind: 'mobile', value: '+447700900555', via: 'attribute' },
    ],
  ];
  it.each(sources)('is read from %s', (_name, overrides, policy, referrer) => {
    const found = attribute(record(['paid'], overrides).snapshot, policy);
    expect(found).toEqual({ kind: 'referral', referral: expect.objectContaining({ campaignId: 12, referrer }) });
  });

  const unusable: Array<[string, 'code' | 'email' | 'mobile', string]> = [
    ['a code with a space', 'code', 'ANNA 7'],
    ['an empty code', 'code', '  '],
    ['an e-mail without @', 'email', 'anna.example.com'],
    ['a phone number of 5 digits', 'mobile', '12345'],
  ];
  it.each(unusable)('is nobody when the value is %s', (_name, kind, value) => {
    expect(referrerValue(kind, value)).toBeUndefined();
  });

  it('takes the default campaign for a referrer found without one, and none without the setting', () => {
    const order = record(['paid'], { discountCodes: [{ code: 'REF-ANNA7', amount: '5' }] }).snapshot;
    expect(attribute(order, withReferrer({ discountCodePattern: codePattern('^REF-(.+)$') }))).toEqual({
      kind: 'none',
    });
    expect(
      attribute(order, withReferrer({ discountCodePattern: codePattern('^REF-(.+)$') }, { defaultCampaignId: 40 })),
    ).toMatchObject({ kind: 'referral', referral: { campaignId: 40, via: 'default' } });
  });
});

describe('a campaign without a referrer', () => {
  it('earns as usual, sends no conversion, and is listed as a referral without a referrer', () => {
    const order = record(['paid'], { attributes: { loyalty_campaign: '12' } });
    expect(plan(order, DEFAULT_POLICY, NOW)).toEqual({
      target: { state: 'earned', reason: 'referral_without_referrer' },
      next: { kind: 'earn' },
    });
    order.upstream.points = 'earned';
    expect(plan(order, DEFAULT_POLICY, NOW).next).toBeUndefined();
  });
});

describe('the conversion follows the order', () => {
  const referred = { attributes: { loyalty_campaign: '12', loyalty_referrer: 'ANNA-7' } };
  /** A referred order whose conversion was added under campaign 12. */
  const added = (facts: Fact[], points: UpstreamPoints, overrides: Partial<OrderEvent> = {}) => {
    const order = record(facts, { ...referred, ...overrides }, points);
    Object.assign(order.upstream, {
      conversion: 'sent',
      conversionCampaignId: 12,
      conversionSentAt: '2026-11-20T12:00:00.000Z',
      conversionStatus: 'pending',
    });
    return order;
  };

  const rows: Array<[string, Fact[], UpstreamPoints, Partial<Policy>, string | undefined]> = [
    ['adds it once the order is paid', ['paid'], 'earned', {}, undefined],
    ['approves it when the points are approved', ['paid', 'fulfilled'], 'approved', {}, 'approveConversion'],
    ['waits while the points are only earned', ['paid'], 'earned', {}, undefined],
    ['approves the points first, then it', ['paid', 'fulfilled'], 'earned', {}, 'approve'],
    ['rejects it on cancellation', ['paid', 'cancelled'], 'cancelled', {}, 'rejectConversion'],
    [
      'rejects it on a full refund after approval',
      ['paid', 'fulfilled', 'fullyRefunded'],
      'cancelled',
      {},
      'rejectConversion',
    ],
    [
      'rejects it on a partial refund where the policy cancels',
      ['paid', 'partiallyRefunded'],
      'cancelled',
      { partialRefund: 'cancel' },
      'rejectConversion',
    ],
    [
      'leaves it on a partial refund where the policy ignores them',
      ['paid', 'partiallyRefunded'],
      'earned',
      {},
      undefined,
    ],
    [
      'does nothing with CONVERSION_CONFIRM=off',
      ['paid', 'cancelled'],
      'cancelled',
      { conversion: { purchaseAmount: 'total', confirm: false } },
      undefined,
    ],
  ];
  it.each(rows)('%s', (name, facts, points, policy, next) => {
    const order = name.startsWith('adds') ? record(facts, referred, points) : added(facts, points);
    const action = plan(order, { ...DEFAULT_POLICY, ...policy }, NOW).next;
    expect(name.startsWith('adds') ? action : action?.kind).toEqual(
      name.startsWith('adds') ? { kind: 'conversion', referral: expect.objectContaining({ campaignId: 12 }) } : next,
    );
  });

  it('says why it rejects, as the remark', () => {
    expect(plan(added(['paid', 'fulfilled', 'fullyRefunded'], 'cancelled'), DEFAULT_POLICY, NOW).next).toEqual({
      kind: 'rejectConversion',
      remark: 'order refunded in full',
    });
  });

  it('never approves or rejects twice', () => {
    const approved = added(['paid', 'fulfilled'], 'approved');
    approved.upstream.conversionStatus = 'approved';
    expect(plan(approved, DEFAULT_POLICY, NOW).next).toBeUndefined();
    const rejected = added(['paid', 'cancelled'], 'cancelled');
    rejected.upstream.conversionStatus = 'rejected';
    expect(plan(rejected, DEFAULT_POLICY, NOW).next).toBeUndefined();
  });

  it('approves the conversion of an order that earns no points on fulfilment, or after the pending period', () => {
    const noMobile = { customer: { name: 'Ada', email: 'ada@example.com', mobile: null } };
    expect(plan(added(['paid', 'fulfilled'], 'none', noMobile), DEFAULT_POLICY, NOW).next).toEqual({
      kind: 'approveConversion',
    });
    const waiting = added(['paid'], 'none', noMobile);
    const pending = { ...DEFAULT_POLICY, pendingDays: 14 };
    waiting.target = plan(waiting, pending, NOW).target;
    expect(waiting.target.state).toBe('skipped');
    expect(plan(waiting, pending, NOW).next).toBeUndefined();
    expect(approvalDueAt(waiting, pending)?.toISOString()).toBe('2026-12-04T12:00:00.000Z');
    expect(plan(waiting, pending, new Date('2026-12-04T12:00:00Z')).next).toEqual({ kind: 'approveConversion' });
  });

  it('rejects an add in doubt on a cancelled order without adding it again', () => {
    const order = added(['paid', 'cancelled'], 'cancelled');
    order.upstream.conversion = 'sending';
    expect(plan(order, DEFAULT_POLICY, NOW).next?.kind).toBe('rejectConversion');
  });

  it('finishes an add in doubt on a live order under the campaign it was begun with', () => {
    const order = added(['paid'], 'earned', { attributes: { loyalty_campaign: '99', loyalty_referrer: 'ANNA-7' } });
    order.upstream.conversion = 'sending';
    expect(plan(order, DEFAULT_POLICY, NOW).next).toEqual({
      kind: 'conversion',
      referral: expect.objectContaining({ campaignId: 12 }),
    });
  });

  it('nothing more once a reject found no conversion (void)', () => {
    const order = added(['paid', 'cancelled'], 'cancelled');
    order.upstream.conversion = 'void';
    expect(plan(order, DEFAULT_POLICY, NOW).next).toBeUndefined();
  });
});

describe('points redeemed on a cancelled order', () => {
  const redeemed = (facts: Fact[]) => {
    const order = record(facts, { discountCodes: [{ code: 'LOYALTY-5', amount: '5.00' }] }, 'cancelled');
    Object.assign(order.upstream, { redemption: 'sent', redeemedPoints: 500 });
    return order;
  };
  it.each([[['paid', 'cancelled']], [['paid', 'fulfilled', 'fullyRefunded']]] as Array<[Fact[]]>)(
    'lists an order with %j',
    (facts) => {
      expect(plan(redeemed(facts), DEFAULT_POLICY, NOW).target).toEqual({
        state: 'cancelled',
        reason: 'points_redeemed_on_cancelled_order',
      });
    },
  );
  it('stops listing it once the points are being given back', () => {
    const order = redeemed(['paid', 'cancelled']);
    order.upstream.redemptionReturn = {
      state: 'returning',
      points: 500,
      activityId: '21',
      by: 'admin',
      reason: 'r',
      at: NOW.toISOString(),
      adjustmentId: 'a',
    };
    expect(plan(order, DEFAULT_POLICY, NOW).target).toEqual({ state: 'cancelled' });
  });
  it('does not list a live order', () => {
    expect(plan(redeemed(['paid']), DEFAULT_POLICY, NOW).target.reason).toBeUndefined();
  });
});
