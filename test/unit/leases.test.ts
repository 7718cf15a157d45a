// The lease keeper on its own: when a lease counts as held (the fence), what
// a renewal does to it, and that the heartbeat runs only while work runs.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LeaseKeeper, LeaseLostError } from '../../src/core/leases.ts';
import type { Claim } from '../../src/core/store/ledger-store.ts';
import { createLogger } from '../../src/logger.ts';

const LEASE_MS = 9_000;
const logger = createLogger({ level: 'silent' });

function keeper(renew: (claims: Claim[]) => Promise<Claim[]>) {
  let clock = 0;
  const kept = new LeaseKeeper({ leaseMs: LEASE_MS, renew, logger, name: 'test', now: () => clock });
  return { kept, advance: (ms: number) => (clock += ms), at: () => clock };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('leases', () => {
  it('are held from the claim until the lease less a margin has passed, and not after', () => {
    const { kept, advance } = keeper(async () => []);
    const lease = kept.hold('order-1', 'me/1', 0);
    advance(LEASE_MS - kept.marginMs - 1);
    expect(lease.held()).toBe(true);
    advance(1);
    expect(lease.held()).toBe(false);
    expect(() => lease.check()).toThrow(LeaseLostError);
    kept.release(lease);
  });

  it('are extended by a renewal the store confirms, counted from when it was sent', async () => {
    let answer!: () => void;
    const { kept, advance, at } = keeper((claims) => new Promise((resolve) => (answer = () => resolve(claims))));
    const lease = kept.hold('order-1', 'me/1', 0);
    advance(LEASE_MS / 2);
    const sentAt = at();
    const beat = kept.beat();
    // The answer is slow: the lease counts from the request, not the answer.
    advance(LEASE_MS / 4);
    answer();
    await beat;
    advance(sentAt + LEASE_MS - kept.marginMs - 1 - at());
    expect(lease.held()).toBe(true);
    advance(1);
    expect(lease.held()).toBe(false);
    kept.release(lease);
  });

  it('are lost for good when a renewal does not find the claim, however much time is left', async () => {
    const { kept, advance } = keeper(async (claims) => claims.filter((claim) => claim.owner !== 'me/1'));
    const lost = kept.hold('order-1', 'me/1', 0);
    // The same key claimed again under a newer token: only the older claim is lost.
    const newer = kept.hold('order-1', 'me/2', 0);
    await kept.beat();
    expect(lost.held()).toBe(false);
    expect(newer.held()).toBe(true);
    advance(1);
    await kept.beat();
    expect(lost.held()).toBe(false);
    kept.release(lost);
    kept.release(newer);
  });

  it('run out on their own when the store cannot be reached', async () => {
    const { kept, advance } = keeper(async () => {
      throw new Error('connection refused');
    });
    const lease = kept.hold('order-1', 'me/1', 0);
    advance(LEASE_MS / 2);
    await kept.beat();
    advance(LEASE_MS / 2 - kept.marginMs);
    expect(lease.held()).toBe(false);
    kept.release(lease);
  });

  it('are renewed every third of the lease while held, and no more once released', async () => {
    vi.useFakeTimers();
    const renewals: Claim[][] = [];
    const kept = new LeaseKeeper({
      leaseMs: LEASE_MS,
      logger,
      name: 'test',
      renew: async (claims) => (renewals.push(claims), claims),
    });
    const lease = kept.hold('order-1', 'me/1', performance.now());
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(renewals).toEqual([
      [{ key: 'order-1', owner: 'me/1' }],
      [{ key: 'order-1', owner: 'me/1' }],
      [{ key: 'order-1', owner: 'me/1' }],
    ]);
    kept.release(lease);
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(renewals).toHaveLength(3);
  });
});
