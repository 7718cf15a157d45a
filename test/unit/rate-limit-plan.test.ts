import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planRateLimit } from '../../src/loyalty/rate-limiter.ts';

describe('planRateLimit', () => {
  it('never lets a window plus one slice of jitter hold more calls than the limit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1_000, max: 3_600_000 }),
        (limit, windowMs) => {
          const plan = planRateLimit(limit, windowMs);
          const slicesTouched = Math.round(windowMs / plan.sliceMs) + 1;
          expect(slicesTouched * plan.callsPerSlice).toBeLessThanOrEqual(Math.max(limit, 2));
          expect(plan.effectiveLimit).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });

  it('keeps the promise with quarter-second slices and two spare slices, as the shared limiter plans', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1_000, max: 3_600_000 }),
        (limit, windowMs) => {
          const plan = planRateLimit(limit, windowMs, 2, 250);
          expect(plan.sliceMs % 250).toBe(0);
          // A minute's window (or longer): slices of a second at least, so a second of jitter stays in the spare one.
          if (windowMs >= 60_000) expect(plan.sliceMs).toBeGreaterThanOrEqual(1_000);
          expect((Math.ceil(windowMs / plan.sliceMs) + 2) * plan.callsPerSlice).toBeLessThanOrEqual(Math.max(limit, 3));
          expect(plan.effectiveLimit).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });

  it('uses 96% of the service’s 500 a minute, and of 300 and 1,000, when shared through PostgreSQL; 88% of any from 300', () => {
    for (const limit of [300, 500, 1_000])
      expect(planRateLimit(limit, 60_000, 2, 250).effectiveLimit / limit).toBe(0.96);
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 1_000_000 }), (limit) => {
        expect(planRateLimit(limit, 60_000, 2, 250).effectiveLimit / limit).toBeGreaterThanOrEqual(0.88);
      }),
    );
  });

  it('uses at least 95% of any limit of 100 calls or more', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 1_000_000 }), (limit) => {
        expect(planRateLimit(limit, 60_000).effectiveLimit / limit).toBeGreaterThanOrEqual(0.95);
      }),
    );
  });

  it('spreads the default 500 a minute into small slices instead of one burst', () => {
    const plan = planRateLimit(500, 60_000);
    expect(plan.callsPerSlice).toBeLessThanOrEqual(10);
    expect(plan.effectiveLimit).toBeGreaterThanOrEqual(475);
  });
});
