// The storefront's cache under every interleaving of reads and drops: a read that began before a drop never
// puts its value back, so after the bridge's own call for a customer no answer comes from before it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpiringCache } from '../../src/core/storefront/expiring-cache.ts';

describe('the expiring cache', () => {
  it('never keeps a value read before the last drop', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.constantFrom('read', 'drop'), { minLength: 1, maxLength: 8 }),
        async (s, steps) => {
          const cache = new ExpiringCache<number>({ freshMs: 60_000, keepMs: 60_000, maxEntries: 10, now: () => 0 });
          // The "service's" version: each drop follows a change, so a read begun after it sees a later version.
          let version = 0;
          const reads: Array<Promise<unknown>> = [];
          for (const step of steps) {
            if (step === 'drop') {
              version++;
              cache.drop('k');
              continue;
            }
            const seen = version;
            reads.push(cache.read('k', () => s.schedule(Promise.resolve(seen))));
          }
          await s.waitFor(Promise.all(reads));
          const kept = cache.kept('k');
          if (kept) expect(kept.value).toBe(version);
        },
      ),
    );
  });

  it('after a drop during a read, a second read is the one kept and shared', async () => {
    const cache = new ExpiringCache<string>({ freshMs: 60_000, keepMs: 60_000, maxEntries: 10, now: () => 0 });
    const first = deferred<string>();
    const second = deferred<string>();
    let loads = 0;
    const before = cache.read('k', () => (loads++, first.promise));
    cache.drop('k');
    const after = cache.read('k', () => (loads++, second.promise));
    first.resolve('before the earn');
    await before;
    // The first read's end must not forget the second read under way: a third caller shares it.
    const third = cache.read('k', () => (loads++, Promise.resolve('a third read')));
    second.resolve('after the earn');
    expect((await after).value).toBe('after the earn');
    expect((await third).value).toBe('after the earn');
    expect(loads).toBe(2);
    expect(cache.kept('k')?.value).toBe('after the earn');
  });

  it('a read under way when its key was dropped puts nothing back, however many other keys come and go', async () => {
    const cache = new ExpiringCache<string>({ freshMs: 60_000, keepMs: 60_000, maxEntries: 2, now: () => 0 });
    const alice = deferred<string>();
    const read = cache.read('alice', () => alice.promise);
    cache.drop('alice');
    for (const other of ['x1', 'x2', 'x3', 'x4', 'x5']) cache.drop(other);
    await cache.read('bob', () => Promise.resolve('bob now'));
    alice.resolve('alice before the earn');
    await read;
    expect(cache.kept('alice')).toBeUndefined();
  });

  it('an erasure during a read keeps out the value it matches, and only that', async () => {
    const cache = new ExpiringCache<{ email: string }>({
      freshMs: 60_000,
      keepMs: 60_000,
      maxEntries: 10,
      now: () => 0,
    });
    const victim = deferred<{ email: string }>();
    const other = deferred<{ email: string }>();
    const reads = [cache.read('shop\u000042', () => victim.promise), cache.read('shop\u000043', () => other.promise)];
    cache.dropWhere((_key, value) => value?.email === 'erased@example.com');
    victim.resolve({ email: 'erased@example.com' });
    other.resolve({ email: 'kept@example.com' });
    await Promise.all(reads);
    expect(cache.entries().map(([, kept]) => kept.value.email)).toEqual(['kept@example.com']);
  });

  it('an erasure matching a key under way cancels that read', async () => {
    const cache = new ExpiringCache<string>({ freshMs: 60_000, keepMs: 60_000, maxEntries: 10, now: () => 0 });
    const read = deferred<string>();
    const under = cache.read('email:erased@example.com', () => read.promise);
    cache.dropWhere((key) => key.includes('erased@example.com'));
    read.resolve('their balance');
    await under;
    expect(cache.kept('email:erased@example.com')).toBeUndefined();
  });
});

function deferred<V>(): { promise: Promise<V>; resolve: (value: V) => void } {
  let resolve!: (value: V) => void;
  const promise = new Promise<V>((done) => (resolve = done));
  return { promise, resolve };
}
