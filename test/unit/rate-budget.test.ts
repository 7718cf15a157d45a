// A rate limiter's budget, asked without waiting (issue 33): the worker lets
// go of an order whose account has no place in its budget now, rather than
// hold a slot in the limiter's queue. A place counts from when it is given
// until its call is scheduled with it, it is given back, or a slice passes,
// so that callers asking at once are not all let through; a call without a
// place (a retry, a probe) never takes another caller's.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LIVE_SLICES, RESERVE_LEAD_MS, type Place } from '../../src/loyalty/places.ts';
import { createRateLimiter, planRateLimit } from '../../src/loyalty/rate-limiter.ts';

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

// Issue 64: the storefront's reads take places in the slices live orders need; a live order that finds its slice
// full waits for the next one. The storefront takes only its part of a slice once live orders are about.
describe('the storefront’s part of a slice', () => {
  afterEach(() => vi.useRealTimers());
  const plan = planRateLimit(500, 60_000);
  const share = 0.2;
  const takes = (limiter: ReturnType<typeof createRateLimiter>, asked: number, of?: number) =>
    Array.from({ length: asked }, () => limiter.reserve(of)).filter((answer) => !answer.spent).length;

  it('on a quiet budget, lends the storefront all but one place of a slice, which a live order then takes', () => {
    const limiter = createRateLimiter({ limit: 500, windowMs: 60_000 });
    expect(takes(limiter, plan.callsPerSlice, share)).toBe(plan.callsPerSlice - 1);
    expect(limiter.reserve().spent).toBe(false);
  });

  it('on a budget carrying live orders, keeps room for twice their recent calls a slice, and more live orders get it', async () => {
    vi.useFakeTimers();
    const limiter = createRateLimiter({ limit: 500, windowMs: 60_000 });
    // One live call a slice, in the last slices.
    for (let slice = 0; slice < LIVE_SLICES; slice++) {
      await limiter.schedule(async () => 'earn');
      await vi.advanceTimersByTimeAsync(plan.sliceMs + 1);
    }
    // Room is kept for 2 × 1 + 1 live calls: the storefront gets the rest of the slice.
    const storefront = plan.callsPerSlice - 3;
    expect(takes(limiter, plan.callsPerSlice, share)).toBe(storefront);
    // Every other place of the slice goes to live orders.
    expect(takes(limiter, plan.callsPerSlice)).toBe(plan.callsPerSlice - storefront);
  });

  it('counts a storefront call from its place to its start, and frees its part when the slice passes', async () => {
    vi.useFakeTimers();
    const limiter = createRateLimiter({ limit: 500, windowMs: 60_000 });
    for (let slice = 0; slice < LIVE_SLICES; slice++) {
      await Promise.all(Array.from({ length: 5 }, () => limiter.schedule(async () => 'earn')));
      await vi.advanceTimersByTimeAsync(plan.sliceMs + 1);
    }
    const cap = Math.max(1, Math.floor(plan.callsPerSlice * share));
    const places = Array.from({ length: cap }, () => limiter.reserve(share)).flatMap((answer) =>
      answer.spent ? [] : [answer.place],
    );
    expect(places).toHaveLength(cap);
    await Promise.all(places.map((place) => limiter.schedule(async () => 'read', place)));
    const refused = limiter.reserve(share);
    expect(refused.spent).toBe(true);
    if (refused.spent) expect(refused.until).toBeLessThanOrEqual(Date.now() + plan.sliceMs);
    await vi.advanceTimersByTimeAsync(plan.sliceMs + 1);
    expect(limiter.reserve(share).spent).toBe(false);
  });
});
