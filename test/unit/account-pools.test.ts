// Which accounts share one pool of customers' points (src/accounts/account-pools.ts): those with the same service and
// key; the one created first leads, so every member's reservations meet under its holders.
import { describe, expect, it } from 'vitest';
import { poolOf, poolsFrom, POOLS_FRESH_MS } from '../../src/accounts/account-pools.ts';

const merchant = [
  { id: 'default', key: 'k1', createdAt: '' },
  { id: 'second-store', key: 'k1', createdAt: '2026-01-02T00:00:00.000Z' },
  { id: 'other-merchant', key: 'k2', createdAt: '2026-01-01T00:00:00.000Z' },
  { id: 'b-twin', key: 'k2', createdAt: '2026-01-01T00:00:00.000Z' },
];

describe('account pools', () => {
  it('puts accounts with the same service and key in one pool, led by the one created first', () => {
    expect(poolOf('second-store', merchant)).toEqual({ holder: 'default', members: ['default', 'second-store'] });
    expect(poolOf('default', merchant)).toEqual({ holder: 'default', members: ['default', 'second-store'] });
  });

  it('shares nothing across keys, and breaks a tie of creation by the smallest id', () => {
    expect(poolOf('other-merchant', merchant)).toEqual({ holder: 'b-twin', members: ['b-twin', 'other-merchant'] });
  });

  it('leaves an account no longer listed alone', () => {
    expect(poolOf('gone', merchant)).toEqual({ holder: 'gone', members: ['gone'] });
  });

  it('reads the accounts again once POOLS_FRESH_MS has passed, and after a failed read', async () => {
    let now = 0;
    let reads = 0;
    let listed = merchant.slice(0, 1);
    const pools = poolsFrom(
      async () => {
        reads += 1;
        if (reads === 1) throw new Error('the ledger is down');
        return listed;
      },
      () => now,
    );
    await expect(pools('second-store')()).rejects.toThrow('down');
    expect(await pools('default')()).toEqual({ holder: 'default', members: ['default'] });
    listed = merchant;
    expect((await pools('default')()).members).toEqual(['default']);
    now += POOLS_FRESH_MS;
    expect((await pools('default')()).members).toEqual(['default', 'second-store']);
    expect(reads).toBe(3);
    // A new account not among those kept reads them anew: its own pool never lags.
    listed = [...merchant, { id: 'third-store', key: 'k1', createdAt: '2026-02-01T00:00:00.000Z' }];
    expect(await pools('third-store')()).toEqual({
      holder: 'default',
      members: ['default', 'second-store', 'third-store'],
    });
    expect(reads).toBe(4);
  });
});
