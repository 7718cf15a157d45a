// What a failed earn leaves of its intent. Refused before it was served, on
// the try that noted it, nothing of the earn ever reached the service: the
// intent is undone with the activity it fixed, so the next try takes the
// activity the settings give then. Noted by a try before (whose answer was
// lost), it stays in doubt with its activity, whatever a later try was told.
import { describe, expect, it } from 'vitest';
import { applyEvent, newOrderRecord, type OrderRecord } from '../../src/core/order-record.ts';
import { noteIntent } from '../../src/core/worker/calls.ts';
import { decideFailure } from '../../src/core/worker/failures.ts';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import { LoyaltyRejectedError, LoyaltyRetryableError } from '../../src/loyalty/errors.ts';
import { orderEvent } from '../helpers/order-events.ts';

const NOW = new Date('2026-11-24T12:00:00Z');
const FAILURES = {
  maxRetryAgeMs: 86_400_000,
  maxUnknownFailures: 3,
  backoff: { minDelayMs: 1_000, maxDelayMs: 60_000 },
};
const EARN = { kind: 'earn' } as const;
const unknownActivity = new LoyaltyRejectedError('invalid_url', false, 'refused', {
  operation: 'earn',
  httpStatus: 402,
  detail: 'unknown activity 9',
});
const unreachable = new LoyaltyRetryableError('network', true, 'unreachable', {
  operation: 'earn',
  detail: 'EHOSTUNREACH',
});
const rateLimited = new LoyaltyRetryableError('rate_limited', true, 'slow down', {
  operation: 'earn',
  httpStatus: 429,
  retryAfterMs: 5_000,
});

function paidOrder(): OrderRecord {
  const event = orderEvent({ orderId: '51', facts: ['placed', 'paid'] });
  const record = newOrderRecord(event, NOW.toISOString());
  applyEvent(record, event, event.deliveryId, NOW.toISOString());
  return record;
}
const note = (record: OrderRecord, activity: string) =>
  noteIntent(record, EARN, { policy: DEFAULT_POLICY, earnActivityId: activity, account: 'default' });

describe('a failed earn’s intent', () => {
  it('refused on the try that noted it: undone with its activity, and the next try earns under the settings then', () => {
    const record = paidOrder();
    expect(note(record, '9')).toBe(true);
    expect(decideFailure(record, EARN, unknownActivity, NOW, FAILURES, false).kind).toBe('dead-letter');
    expect(record.upstream.points).toBe('none');
    expect(record.upstream.earnActivityId).toBeUndefined();
    // The merchant fixed the activity; the person's retry notes the earn afresh.
    expect(note(record, '7')).toBe(true);
    expect(record.upstream.earnActivityId).toBe('7');
  });

  it('failed on the network on the try that noted it: undone, its activity kept (the request may, rarely, have been served)', () => {
    const record = paidOrder();
    note(record, '1');
    expect(decideFailure(record, EARN, unreachable, NOW, FAILURES, false).kind).toBe('retry');
    expect(record.upstream.points).toBe('none');
    expect(record.upstream.earnActivityId).toBe('1');
    note(record, '7');
    expect(record.upstream.earnActivityId).toBe('1');
  });

  it('noted by a try whose answer was lost: still in doubt, under its activity, when a later try is refused unserved', () => {
    const record = paidOrder();
    note(record, '1');
    // The next try finds the intent there already: not noted now.
    expect(note(record, '1')).toBe(false);
    expect(decideFailure(record, EARN, rateLimited, NOW, FAILURES, true).kind).toBe('retry');
    expect(record.upstream.points).toBe('earning');
    expect(record.upstream.earnActivityId).toBe('1');
  });
});
