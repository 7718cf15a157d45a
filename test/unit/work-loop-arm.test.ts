// The loop sleeps until the earliest time something becomes due, read from
// the store (nextAt) after each pass. A read that fails is tried again
// shortly instead of leaving no timer (with no polling, as on lowdb, nothing
// else would wake the loop), and a claim that fails while work is due is
// tried again a second later, not at once in a spin.
import { afterEach, describe, expect, it } from 'vitest';
import { WorkLoop } from '../../src/core/work-loop.ts';
import { createLogger } from '../../src/logger.ts';
import { eventually } from '../helpers/engine.ts';

const loops: Array<WorkLoop<string>> = [];
afterEach(async () => {
  for (const loop of loops.splice(0)) await loop.stop();
});

/** A loop whose reads of nextAt() the test answers, one by one; `claims` counts its looks for work. */
function loopWithReads() {
  const seen = { claims: 0 };
  const reads: Array<{ resolve: (at: number | undefined) => void; reject: (error: Error) => void }> = [];
  const loop = new WorkLoop<string>({
    name: 'arm-test',
    concurrency: 1,
    claim: async () => {
      seen.claims++;
      return [];
    },
    handle: async () => undefined,
    abandon: async () => undefined,
    leases: { owner: 'test', leaseMs: 60_000, keyOf: (item) => item, renew: async (claims) => claims },
    nextAt: () => new Promise((resolve, reject) => reads.push({ resolve, reject })),
    logger: createLogger({ level: 'silent' }),
  });
  loops.push(loop);
  return { loop, reads, seen };
}

describe('the loop sleeping until work is due', () => {
  it('does not spin when claims fail while work is due: it looks again a second later', async () => {
    const claimedAt: number[] = [];
    const loop = new WorkLoop<string>({
      name: 'failing-claims',
      concurrency: 4,
      // A database that reads (work is due now) but cannot write (every claim fails).
      claim: async () => {
        claimedAt.push(Date.now());
        throw new Error('cannot execute UPDATE in a read-only transaction');
      },
      handle: async () => undefined,
      abandon: async () => undefined,
      leases: { owner: 'test', leaseMs: 60_000, keyOf: (item) => item, renew: async (claims) => claims },
      nextAt: async () => Date.now() - 1,
      logger: createLogger({ level: 'silent' }),
    });
    loops.push(loop);
    loop.start();
    await eventually(() => expect(claimedAt.length).toBeGreaterThanOrEqual(2), 5_000);
    // The second claim came a second after the first (before: at once, hundreds a second, each logged).
    expect(claimedAt[1]! - claimedAt[0]!).toBeGreaterThanOrEqual(950);
  });

  it('looks again shortly after a read that failed, with nothing else to wake it', async () => {
    const { loop, reads, seen } = loopWithReads();
    loop.start();
    await eventually(() => expect(reads).toHaveLength(1));
    const claimsBefore = seen.claims;
    reads[0]!.reject(new Error('the store could not be read'));
    await eventually(() => expect(seen.claims).toBeGreaterThan(claimsBefore), 3_000);
  });
});
