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
});
