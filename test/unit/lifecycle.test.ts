// The lifecycle of DESIGN.md, row by row: for every upstream state and every
// fact that can arrive, where the points belong and which call comes next.
import { describe, expect, it } from 'vitest';
import { plan, pointsTarget } from '../../src/core/lifecycle.ts';
import type { Fact, OrderEvent } from '../../src/core/order-event.ts';
import { applyEvent, newOrderRecord, type OrderRecord, type UpstreamPoints } from '../../src/core/order-record.ts';
import { DEFAULT_POLICY, type Policy } from '../../src/core/policy.ts';
import { orderEvent } from '../helpers/order-events.ts';

const NOW = new Date('2026-11-21T12:00:00Z');

function recordWith(facts: Fact[], upstream: UpstreamPoints, given: OrderEvent | undefined = undefined): OrderRecord {
  const event = given ?? orderEvent({ orderId: '1', facts });
  const record = newOrderRecord(event, NOW.toISOString());
  applyEvent(record, { ...event, facts }, event.deliveryId, NOW.toISOString());
  record.upstream.points = upstream;
  record.upstream.earnedAt = upstream === 'none' ? null : '2026-11-20T12:00:00.000Z';
  return record;
}

// What each upstream state implies has already been seen.
const SEEN: Record<UpstreamPoints, Fact[]> = {
  none: [],
  earning: ['placed', 'paid'],
  earned: ['placed', 'paid'],
  approved: ['placed', 'paid', 'fulfilled'],
  cancelled: ['placed', 'paid', 'cancelled'],
};

type Row = [UpstreamPoints, Fact, string, string | undefined];
const TABLE: Row[] = [
  ['none', 'placed', 'new', undefined],
  ['none', 'paid', 'earned', 'earn'],
  ['none', 'fulfilled', 'approved', 'earn'],
  ['none', 'partiallyRefunded', 'new', undefined],
  ['none', 'fullyRefunded', 'void', undefined],
  ['none', 'cancelled', 'void', undefined],
  // An earn in doubt after a crash: sent again (an upsert) before anything else.
  ['earning', 'placed', 'earned', 'earn'],
  ['earning', 'paid', 'earned', 'earn'],
  ['earning', 'fulfilled', 'approved', 'earn'],
  ['earning', 'partiallyRefunded', 'earned', 'earn'],
  ['earning', 'fullyRefunded', 'cancelled', 'earn'],
  ['earning', 'cancelled', 'cancelled', 'earn'],
  ['earned', 'placed', 'earned', undefined],
  ['earned', 'paid', 'earned', undefined],
  ['earned', 'fulfilled', 'approved', 'approve'],
  ['earned', 'partiallyRefunded', 'earned', undefined],
  ['earned', 'fullyRefunded', 'cancelled', 'cancel'],
  ['earned', 'cancelled', 'cancelled', 'cancel'],
  ['approved', 'placed', 'approved', undefined],
  ['approved', 'paid', 'approved', undefined],
  ['approved', 'fulfilled', 'approved', undefined],
  ['approved', 'partiallyRefunded', 'approved', undefined],
  ['approved', 'fullyRefunded', 'cancelled', 'cancel'],
  ['approved', 'cancelled', 'cancelled', 'cancel'],
  ['cancelled', 'placed', 'cancelled', undefined],
  ['cancelled', 'paid', 'cancelled', undefined],
  ['cancelled', 'fulfilled', 'cancelled', undefined],
  ['cancelled', 'partiallyRefunded', 'cancelled', undefined],
  ['cancelled', 'fullyRefunded', 'cancelled', undefined],
  ['cancelled', 'cancelled', 'cancelled', undefined],
];

describe('with the default policy', () => {
  it.each(TABLE)('upstream %s + %s: target %s, next call %s', (upstream, fact, target, next) => {
    const result = plan(recordWith([...SEEN[upstream], fact], upstream), DEFAULT_POLICY, NOW);
    expect(result.target.state).toBe(target);
    expect(result.next?.kind).toBe(next);
  });
});

describe('policy options', () => {
  it('earns on placed when the trigger is placed', () => {
    const result = plan(recordWith(['placed'], 'none'), { ...DEFAULT_POLICY, earnTrigger: 'placed' }, NOW);
    expect([result.target.state, result.next?.kind]).toEqual(['earned', 'earn']);
  });

  it('cancels on a partial refund when the policy says so', () => {
    const result = plan(
      recordWith(['placed', 'paid', 'partiallyRefunded'], 'earned'),
      { ...DEFAULT_POLICY, partialRefund: 'cancel' },
      NOW,
    );
    expect([result.target.state, result.next?.kind]).toEqual(['cancelled', 'cancel']);
  });

  it('voids an order partially refunded before it earned, when the policy cancels on partial refunds', () => {
    const result = plan(
      recordWith(['partiallyRefunded', 'paid'], 'none'),
      { ...DEFAULT_POLICY, partialRefund: 'cancel' },
      NOW,
    );
    expect([result.target.state, result.next]).toEqual(['void', undefined]);
  });
});

describe('ineligible orders are skipped with a reason, and nothing is sent', () => {
  const base = { orderId: '9', facts: ['paid'] as Fact[] };
  const cases: Array<[string, OrderEvent, Partial<Policy>]> = [
    ['test_order', orderEvent({ ...base, test: true }), {}],
    ['excluded_source', orderEvent({ ...base, source: 'POS' }), { excludedSources: ['pos'] }],
    ['below_minimum', orderEvent({ ...base, total: { amount: '9.99', currency: 'EUR' } }), { minimumTotal: '10' }],
    ['missing_email', orderEvent({ ...base, customer: { name: 'A', email: null, mobile: '+447700900123' } }), {}],
    ['missing_mobile', orderEvent({ ...base, customer: { name: 'A', email: 'a@example.com', mobile: null } }), {}],
  ];
  it.each(cases)('%s', (reason, event, policy) => {
    const result = plan(recordWith(event.facts, 'none', event), { ...DEFAULT_POLICY, ...policy }, NOW);
    expect(result.target).toEqual({ state: 'skipped', reason });
    expect(result.next).toBeUndefined();
  });

  it('counts test orders when the policy says so', () => {
    const event = orderEvent({ ...base, test: true });
    expect(
      plan(recordWith(event.facts, 'none', event), { ...DEFAULT_POLICY, countTestOrders: true }, NOW).next?.kind,
    ).toBe('earn');
  });

  it('does not take back earned points when the details change later', () => {
    const event = orderEvent({
      ...base,
      facts: ['paid', 'fulfilled'],
      customer: { name: 'A', email: null, mobile: null },
    });
    expect(plan(recordWith(event.facts, 'earned', event), DEFAULT_POLICY, NOW).next?.kind).toBe('approve');
  });

  it('needs no mobile when the policy does not require one', () => {
    const event = orderEvent({ ...base, customer: { name: 'A', email: 'a@example.com', mobile: null } });
    expect(
      plan(recordWith(event.facts, 'none', event), { ...DEFAULT_POLICY, requireMobile: false }, NOW).next?.kind,
    ).toBe('earn');
  });
});

describe('the pending period', () => {
  const policy = { ...DEFAULT_POLICY, pendingDays: 14 };
  const target = (earnedAt: string, now: string, facts: Fact[] = ['paid', 'fulfilled']) =>
    pointsTarget(
      {
        facts: new Set(facts),
        snapshot: recordWith(facts, 'earned').snapshot,
        upstreamPoints: 'earned',
        earnedAt,
        now: new Date(now),
      },
      policy,
    ).state;

  it('keeps points pending for N days after earning, fulfilled or not', () => {
    expect(target('2026-11-01T00:00:00Z', '2026-11-14T23:59:59Z')).toBe('earned');
  });
  it('approves them once N days have passed', () => {
    expect(target('2026-11-01T00:00:00Z', '2026-11-15T00:00:00Z', ['paid'])).toBe('approved');
  });
  it('cancels instead when a refund came within the period', () => {
    expect(target('2026-11-01T00:00:00Z', '2026-11-20T00:00:00Z', ['paid', 'fullyRefunded'])).toBe('cancelled');
  });
});

describe('conversions and redemptions', () => {
  const paid = (overrides: Partial<OrderEvent>) => {
    const event = orderEvent({ orderId: '7', facts: ['paid'], ...overrides });
    return recordWith(event.facts, 'earned', event);
  };

  // The referrer comes from its own attribute; where the campaign comes from varies.
  const referrer = { loyalty_referrer: 'ANNA-7' };
  const sources: Array<[string, Partial<OrderEvent>, Partial<Policy>]> = [
    ['a note attribute', { attributes: { loyalty_campaign: '12', ...referrer } }, {}],
    [
      'a discount code mapped to a campaign',
      { attributes: referrer, discountCodes: [{ code: 'friend10', amount: '5.00' }] },
      { referral: { ...DEFAULT_POLICY.referral, discountCampaigns: { FRIEND10: 12 } } },
    ],
    [
      'a landing-site parameter',
      { attributes: referrer, landingSite: '/products/x?utm_source=a&loyalty_campaign=12' },
      {},
    ],
  ];
  it.each(sources)('attributes a referral from %s', (_name, overrides, policy) => {
    const result = plan(paid(overrides), { ...DEFAULT_POLICY, ...policy }, NOW);
    expect(result.next).toEqual({ kind: 'conversion', referral: expect.objectContaining({ campaignId: 12 }) });
  });

  it('redeems the points a loyalty code took off, at the configured rate', () => {
    const result = plan(
      paid({
        discountCodes: [
          { code: 'LOYALTY-ABC', amount: '5.25' },
          { code: 'SUMMER', amount: '3.00' },
        ],
      }),
      DEFAULT_POLICY,
      NOW,
    );
    expect(result.next).toEqual({ kind: 'redeem', points: 525 });
  });

  it('sends neither once they are sent', () => {
    const record = paid({
      attributes: { loyalty_campaign: '12' },
      discountCodes: [{ code: 'LOYALTY-1', amount: '1' }],
    });
    record.upstream.conversion = 'sent';
    record.upstream.redemption = 'sent';
    expect(plan(record, DEFAULT_POLICY, NOW).next).toBeUndefined();
  });

  describe('a conversion whose add is in doubt', () => {
    const inDoubt = (facts: Fact[]) => {
      const event = orderEvent({ orderId: '9', facts, attributes: { loyalty_campaign: '12', ...referrer } });
      // The points come first (an earned order's cancel goes before its conversion's reject): cancelled already.
      const record = recordWith(event.facts, facts.includes('cancelled') ? 'cancelled' : 'earned', event);
      record.upstream.conversion = 'sending';
      record.upstream.conversionCampaignId = 12;
      return record;
    };
    const confirming = (confirm: boolean): Policy => ({
      ...DEFAULT_POLICY,
      conversion: { ...DEFAULT_POLICY.conversion, confirm },
    });

    it.each([true, false])('is added again on a live order (confirm %s): the service keeps one an order', (confirm) => {
      expect(plan(inDoubt(['paid']), confirming(confirm), NOW).next).toEqual({
        kind: 'conversion',
        referral: expect.objectContaining({ campaignId: 12 }),
      });
    });

    it('is rejected, not added again, on a cancelled order the bridge confirms', () => {
      expect(plan(inDoubt(['paid', 'cancelled']), confirming(true), NOW).next).toEqual({
        kind: 'rejectConversion',
        remark: 'order cancelled',
      });
    });

    it('is not added again on a cancelled order where the merchant confirms by hand', () => {
      expect(plan(inDoubt(['paid', 'cancelled']), confirming(false), NOW).next).toBeUndefined();
    });
  });

  it('sends neither for an order cancelled before they went out', () => {
    const event = orderEvent({ orderId: '8', facts: ['paid', 'cancelled'], attributes: { loyalty_campaign: '12' } });
    expect(plan(recordWith(event.facts, 'none', event), DEFAULT_POLICY, NOW).next).toBeUndefined();
  });
});

describe('folding events', () => {
  it('never lets a late placed revive a cancelled order', () => {
    const record = recordWith(['placed', 'paid', 'cancelled'], 'cancelled');
    applyEvent(record, orderEvent({ orderId: '1', facts: ['placed'] }), 'late', NOW.toISOString());
    expect(plan(record, DEFAULT_POLICY, NOW).target.state).toBe('cancelled');
  });

  it('takes each detail from the newest event that knew it, whatever the arrival order', () => {
    const older = orderEvent({
      orderId: '5',
      facts: ['placed'],
      occurredAt: '2026-11-01T10:00:00Z',
      customer: { name: 'Old', email: 'old@example.com', mobile: '+447700900001' },
    });
    const newer = orderEvent({
      orderId: '5',
      facts: ['paid'],
      occurredAt: '2026-11-01T11:00:00Z',
      customer: { name: 'New', email: null, mobile: null },
    });
    const record = newOrderRecord(newer, NOW.toISOString());
    applyEvent(record, newer, 'b', NOW.toISOString());
    applyEvent(record, older, 'a', NOW.toISOString());
    expect(record.snapshot.customer).toEqual({ name: 'New', email: 'old@example.com', mobile: '+447700900001' });
    expect(record.facts).toEqual(['placed', 'paid']);
  });
});
