// The sandbox's fault injection: forced answers, and bursts of 429 that end
// as a rate limiter's refusals do, when the Retry-After they give has passed.
import { describe, expect, it } from 'vitest';
import { FaultInjector } from '../../src/sandbox/faults.ts';

const clock = () => {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

describe('forced answers', () => {
  it('without a repeat, answer the next count calls and then stop, however long that takes', () => {
    const time = clock();
    const faults = new FaultInjector(
      { forced: { status: 429, count: 3, retryAfterSeconds: 1 } },
      Math.random,
      time.now,
    );
    const kinds = [];
    for (let i = 0; i < 5; i++) {
      kinds.push(faults.decide('/earn').kind);
      time.advance(2_000);
    }
    expect(kinds).toEqual(['fail', 'fail', 'fail', 'none', 'none']);
  });

  it('in bursts, let a caller that waits as Retry-After says through once the burst has passed, however few calls it makes', () => {
    const time = clock();
    const faults = new FaultInjector(
      { forced: { status: 429, count: 10, retryAfterSeconds: 1, everyMs: 5_000 } },
      Math.random,
      time.now,
    );
    // A lone caller: one call, then waits the second it is told.
    const answers: Array<[number, string]> = [];
    for (let at = 0; at < 12_000; at += 1_100) {
      answers.push([at, faults.decide('/earn').kind]);
      time.advance(1_100);
    }
    const refused = answers.filter(([, kind]) => kind === 'fail').map(([at]) => at);
    // Each burst refuses what comes in its first second: the first call of each 5 s.
    expect(refused).toEqual([0, 5_500, 11_000]);
    expect(faults.injected).toBe(3);
  });

  it('in bursts, refuse at most count calls within the Retry-After', () => {
    const time = clock();
    const faults = new FaultInjector(
      { forced: { status: 429, count: 4, retryAfterSeconds: 2, everyMs: 5_000 } },
      Math.random,
      time.now,
    );
    const kinds = Array.from({ length: 6 }, () => faults.decide('/earn').kind);
    expect(kinds).toEqual(['fail', 'fail', 'fail', 'fail', 'none', 'none']);
    time.advance(5_000);
    expect(faults.decide('/earn')).toMatchObject({ kind: 'fail', status: 429, retryAfterSeconds: 2 });
  });
});
