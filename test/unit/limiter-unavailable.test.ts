// Found in a review of the shared limiter's batched takes: when the shared
// rate limit's database fails (or does not answer) before a call's turn is
// taken, nothing is sent. A redeem failed that way was dead-lettered as "may
// or may not have been applied", held for a person who might discard a
// redeem never made. It is now known not sent: its intent is undone and it is
// retried like any call that never left.
import type { Pool } from 'pg';
import { describe, expect, it } from 'vitest';
import { decideFailure } from '../../src/core/worker/failures.ts';
import { applyEvent, newOrderRecord } from '../../src/core/order-record.ts';
import { LimiterUnavailableError } from '../../src/loyalty/rate-limiter.ts';
import { createSharedRateLimiter } from '../../src/loyalty/shared-rate-limiter.ts';
import { orderEvent } from '../helpers/order-events.ts';

const NOW = new Date('2026-11-24T12:00:00Z');
const POLICY = { maxRetryAgeMs: 86_400_000, maxUnknownFailures: 3, backoff: { minDelayMs: 1_000, maxDelayMs: 60_000 } };

describe('a call whose turn the shared rate limit could not give', () => {
  it('is refused before it is sent, as not sent', async () => {
    const limiter = createSharedRateLimiter({
      // The library's own object is made but not used for takes; nothing reaches this pool.
      pool: {} as Pool,
      take: () => Promise.reject(new Error('Query read timeout')),
      limit: 300,
      key: 'unreadable-key',
    });
    let sent = false;
    const call = limiter.schedule(async () => {
      sent = true;
    });
    await expect(call).rejects.toBeInstanceOf(LimiterUnavailableError);
    await expect(call).rejects.toThrow(/Query read timeout.*nothing was sent/);
    expect(sent).toBe(false);
    expect(limiter.stats().queued).toBe(0);
  });

  it('leaves a redeem to be sent again, not in doubt before a person', () => {
    const event = orderEvent({ orderId: '42', facts: ['placed', 'paid'] });
    const record = newOrderRecord(event, NOW.toISOString());
    applyEvent(record, event, event.deliveryId, NOW.toISOString());
    // The intent noted before the call: a redeem under way.
    record.upstream.redemption = 'sending';
    const decision = decideFailure(
      record,
      { kind: 'redeem', points: 50 },
      new LimiterUnavailableError(new Error('Query read timeout')),
      NOW,
      POLICY,
      false,
    );
    expect(decision.kind).toBe('retry');
    expect(record.upstream.redemption).toBe('none');
  });

  it('still puts a redeem that failed after it may have left before a person', () => {
    const event = orderEvent({ orderId: '43', facts: ['placed', 'paid'] });
    const record = newOrderRecord(event, NOW.toISOString());
    applyEvent(record, event, event.deliveryId, NOW.toISOString());
    record.upstream.redemption = 'sending';
    const decision = decideFailure(
      record,
      { kind: 'redeem', points: 50 },
      new Error('socket hang up'),
      NOW,
      POLICY,
      false,
    );
    expect(decision.kind).toBe('dead-letter');
    expect(record.upstream.redemption).toBe('sending');
  });
});
