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

  it('keeps the promise with whole-second slices and two spare slices, as the shared limiter plans', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1_000, max: 3_600_000 }),
        (limit, windowMs) => {
          const plan = planRateLimit(limit, windowMs, 2, 1000);
          expect(plan.sliceMs % 1000).toBe(0);
          expect((Math.ceil(windowMs / plan.sliceMs) + 2) * plan.callsPerSlice).toBeLessThanOrEqual(Math.max(limit, 3));
          expect(plan.effectiveLimit).toBeLessThanOrEqual(limit);
        },
      ),
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
