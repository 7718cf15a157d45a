// When intake steps back for acknowledgements: only while deliveries arrive
// and the event loop is saturated, with a margin before it comes back, and
// with folds earned by the acknowledgements themselves.
import type { EventLoopUtilization } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { AckPressure } from '../../src/core/ack-pressure.ts';

/** An event loop whose utilisation over each next look the test sets. */
function loop() {
  let clock = 0;
  let busy = 0;
  const reading = (): EventLoopUtilization => ({ idle: 0, active: 0, utilization: busy });
  const pressure = new AckPressure({ foldsPerAck: 0.1, now: () => clock, utilization: () => reading() });
  return {
    pressure,
    /** The next look covers 100 ms this busy, with this many deliveries acknowledged. */
    look(utilization: number, acknowledged: number): boolean {
      for (let i = 0; i < acknowledged; i++) pressure.noteAccepted();
      busy = utilization;
      clock += 100;
      return pressure.contended();
    },
  };
}

describe('acknowledgement pressure', () => {
  it('is contended only while a burst of deliveries arrives and the loop is saturated', () => {
    const { look } = loop();
    expect(look(0.99, 0)).toBe(false); // busy folding a backlog, nobody waiting for an answer
    expect(look(0.99, 3)).toBe(false); // ... and a trickle of deliveries meanwhile: no burst
    expect(look(0.5, 300)).toBe(false); // answering, with time to spare
    expect(look(0.95, 300)).toBe(true);
  });

  it('stays contended down to a calmer loop, and ends when the loop calms or deliveries stop', () => {
    const { look } = loop();
    expect(look(0.95, 300)).toBe(true);
    expect(look(0.8, 300)).toBe(true); // below where it started, above where it ends: no flapping
    expect(look(0.6, 300)).toBe(false);
    expect(look(0.8, 300)).toBe(false); // and it takes a saturated loop again to start
    expect(look(0.95, 300)).toBe(true);
    expect(look(0.95, 5)).toBe(false); // the burst is over
  });

  it('yields for 30 s of saturation at most: longer is load to share, not a burst to wait out', () => {
    const { look } = loop();
    for (let elapsed = 0; elapsed < 30_000; elapsed += 100) expect(look(0.95, 300)).toBe(true);
    expect(look(0.95, 300)).toBe(false);
    expect(look(0.8, 300)).toBe(false); // still saturated: the same stretch
    expect(look(0.5, 300)).toBe(false); // it calms...
    expect(look(0.95, 300)).toBe(true); // ...and a new burst is one again
  });

  it('looks again only once a moment has passed', () => {
    const { pressure, look } = loop();
    expect(look(0.95, 300)).toBe(true);
    // Within the same moment the answer stands, whatever happens meanwhile.
    expect(pressure.contended()).toBe(true);
  });

  it('earns folds from the acknowledgements of the contended stretch, and spends them', () => {
    const { pressure, look } = loop();
    look(0.95, 300);
    expect(pressure.allowance()).toBe(30);
    for (let i = 0; i < 50; i++) pressure.noteAccepted();
    expect(pressure.allowance()).toBe(35);
    pressure.spend(32);
    expect(pressure.allowance()).toBe(3);
    pressure.spend(10);
    expect(pressure.allowance()).toBe(0);
  });

  it('keeps folds earned and not started for the next stretch, up to a few batches', () => {
    const { pressure, look } = loop();
    look(0.95, 300);
    look(0.5, 300); // 30 more earned before the look that ends the stretch
    look(0.95, 300);
    expect(pressure.allowance()).toBe(90);
    for (let i = 0; i < 10_000; i++) pressure.noteAccepted();
    expect(pressure.allowance()).toBe(256);
  });
});
