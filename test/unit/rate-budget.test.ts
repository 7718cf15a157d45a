// A rate limiter's budget, asked without waiting (issue 33): the worker lets
// go of an order whose account has no place in its budget now, rather than
// hold a slot in the limiter's queue. A place counts from when it is given
// until its call is scheduled with it, it is given back, or a slice passes,
// so that callers asking at once are not all let through; a call without a
// place (a retry, a probe) never takes another caller's.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRateLimiter, planRateLimit, RESERVE_LEAD_MS, type Place } from '../../src/loyalty/rate-limiter.ts';

describe('a limiter’s budget', () => {
  afterEach(() => vi.useRealTimers());
  const limit = 30;
  const windowMs = 6_000;
  const plan = planRateLimit(limit, windowMs);
  const placesOf = (answers: ReturnType<ReturnType<typeof createRateLimiter>['reserve']>[]): Place[] =>
    answers.flatMap((answer) => (answer.spent ? [] : [answer.place]));

  it('gives as many places a slice as the plan allows, then says when to ask again', async () => {
    const limiter = createRateLimiter({ limit, windowMs });
    const before = Date.now();
    const answers = Array.from({ length: plan.callsPerSlice + 1 }, () => limiter.reserve());
    expect(placesOf(answers)).toHaveLength(plan.callsPerSlice);
    const last = answers.at(-1)!;
    expect(last.spent).toBe(true);
    if (last.spent) {
      expect(last.until).toBeGreaterThan(before);
      expect(last.until).toBeLessThanOrEqual(Date.now() + plan.sliceMs - RESERVE_LEAD_MS);
    }
    // The promised calls arrive with their places: none more is given.
    await Promise.all(placesOf(answers).map((place) => limiter.schedule(async () => 'sent', place)));
    expect(limiter.reserve().spent).toBe(true);
  });

  it('counts a place given back as free again, once', () => {
    const limiter = createRateLimiter({ limit, windowMs });
    const places = placesOf(Array.from({ length: plan.callsPerSlice }, () => limiter.reserve()));
    expect(limiter.reserve().spent).toBe(true);
    places[0]!.release();
    places[0]!.release();
    const again = limiter.reserve();
    expect(again.spent).toBe(false);
    expect(limiter.reserve().spent).toBe(true);
  });

  it('lets a call without a place (a retry, a probe) take none of the places promised to others', async () => {
    const limiter = createRateLimiter({ limit, windowMs });
    const places = placesOf(Array.from({ length: plan.callsPerSlice - 1 }, () => limiter.reserve()));
    await limiter.schedule(async () => 'a retry');
    // The retry used the last place of the slice; the promised ones are still counted.
    expect(limiter.reserve().spent).toBe(true);
    expect(places).toHaveLength(plan.callsPerSlice - 1);
  });

  it('gives places again once a slice has passed, and lets unused ones lapse', () => {
    vi.useFakeTimers();
    const limiter = createRateLimiter({ limit, windowMs });
    for (let i = 0; i < plan.callsPerSlice; i++) expect(limiter.reserve().spent).toBe(false);
    expect(limiter.reserve().spent).toBe(true);
    vi.advanceTimersByTime(plan.sliceMs + 1);
    expect(limiter.reserve().spent).toBe(false);
  });

  it('is spent while the service asked to wait, until then', () => {
    const limiter = createRateLimiter({ limit, windowMs });
    limiter.holdFor(5_000);
    const answer = limiter.reserve();
    expect(answer).toMatchObject({ spent: true });
    if (answer.spent) expect(answer.until).toBeGreaterThanOrEqual(Date.now() + 4_900);
  });
});
