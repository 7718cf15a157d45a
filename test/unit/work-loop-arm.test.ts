// The loop sleeps until the earliest time something becomes due, read from
// the store (nextAt) after each pass. Two passes close together read it side
// by side; a slower read begun earlier, with an older and later answer, used
// to replace the timer a newer read had set: work due sooner slept until
// then (with no polling, as on lowdb, nothing else woke the loop).
import { afterEach, describe, expect, it } from 'vitest';
import { WorkLoop } from '../../src/core/work-loop.ts';
import { createLogger } from '../../src/logger.ts';
import { eventually } from '../helpers/engine.ts';

const loops: Array<WorkLoop<string>> = [];
afterEach(async () => {
  for (const loop of loops.splice(0)) await loop.stop();
});

describe('the loop sleeping until work is due', () => {
  it('wakes at the time the newest read of the store gives, not an older read that answered last', async () => {
    let claims = 0;
    const reads: Array<(at: number | undefined) => void> = [];
    const loop = new WorkLoop<string>({
      name: 'arm-test',
      concurrency: 1,
      claim: async () => {
        claims++;
        return [];
      },
      handle: async () => undefined,
      abandon: async () => undefined,
      leases: { owner: 'test', leaseMs: 60_000, keyOf: (item) => item, renew: async (claims) => claims },
      nextAt: () => new Promise((resolve) => reads.push(resolve)),
      logger: createLogger({ level: 'silent' }),
    });
    loops.push(loop);

    loop.start();
    await eventually(() => expect(reads).toHaveLength(1));
    // Something new was written: a second pass, and a second read, while the first read is still under way.
    loop.wake();
    await eventually(() => expect(reads).toHaveLength(2));
    const claimsBefore = claims;
    // The newer read: due in 50 ms. Then the older one answers, from before the write: nothing due for a minute.
    reads[1]!(Date.now() + 50);
    await new Promise((resolve) => setImmediate(resolve));
    reads[0]!(Date.now() + 60_000);

    await eventually(() => expect(claims).toBeGreaterThan(claimsBefore), 2_000);
  });
});
