// The loop sleeps until the earliest time something becomes due, read from
// the store (nextAt) after each pass. Two passes close together read it side
// by side, and the answers come in any order: a slower read begun earlier,
// with an older and later answer, used to replace the timer a newer read had
// set, so work due sooner slept until then (with no polling, as on lowdb,
// nothing else woke the loop); and a newer read that failed replaced an older
// read's sooner time with its retry a second later. The newest answer sets the
// timer; an older one, or a failure, may only bring the wake earlier. A read
// that fails is tried again shortly instead of leaving no timer, and a claim
// that fails while work is due is tried again a second later, not at once in
// a spin. The side-by-side reads run on fake timers: which wake comes first is
// the point, and no loaded machine moves it.
import { afterEach, describe, expect, it, vi } from 'vitest';
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

/**
 * Two reads under way side by side, on fake timers: the loop's first pass, and a second pass woken while the first
 * still reads.
 */
async function twoReads() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const parts = loopWithReads();
  parts.loop.start();
  await vi.advanceTimersByTimeAsync(0);
  parts.loop.wake();
  await vi.advanceTimersByTimeAsync(0);
  expect(parts.reads).toHaveLength(2);
  return { ...parts, claimsBefore: parts.seen.claims };
}

describe('the loop sleeping until work is due', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('wakes at the time the newest read of the store gives, not an older read that answered last', async () => {
    const { reads, seen, claimsBefore } = await twoReads();
    // The newer read: due in 50 ms. Then the older one answers, from before the write: nothing due for a minute.
    reads[1]!.resolve(Date.now() + 50);
    await vi.advanceTimersByTimeAsync(0);
    reads[0]!.resolve(Date.now() + 60_000);
    await vi.advanceTimersByTimeAsync(50);
    expect(seen.claims).toBeGreaterThan(claimsBefore);
  });

  it('wakes at the time an older read gives when the newest read fails, not a second later', async () => {
    const { reads, seen, claimsBefore } = await twoReads();
    reads[0]!.resolve(Date.now() + 50);
    await vi.advanceTimersByTimeAsync(0);
    reads[1]!.reject(new Error('the store could not be read'));
    await vi.advanceTimersByTimeAsync(50);
    expect(seen.claims).toBeGreaterThan(claimsBefore);
  });

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
