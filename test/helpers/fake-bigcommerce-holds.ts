// A hook on the fake BigCommerce's store API for tests that need a call held where it is: before the store acts on
// it, or after (the store did it, its answer not yet sent). The kill test (e2e/rewards-crash) holds a call there
// while it kills the bridge process that made it, then lets it go on or drops it. Nothing of BigCommerce's here:
// the routes behind it (fake-bigcommerce-promotions.ts and the others) answer as BigCommerce's documentation says.
import type { Request, Response } from 'express';
import type { FakeBigCommerce } from './fake-bigcommerce.ts';

/** A call of the store API as the hook sees it: its method, and its path under /stores/<hash> (e.g. /v3/promotions). */
export interface StoreApiCall {
  method: string;
  path: string;
}

/**
 * Asked at each call, before its route runs and again as its answer is about to be sent: a promise holds the call
 * there until it settles (resolved: the call goes on; rejected: the connection is dropped); undefined: not held.
 */
export type StoreApiHook = (call: StoreApiCall, phase: 'before' | 'after') => Promise<void> | undefined;

export interface StoreApiHooks {
  hook: StoreApiHook | undefined;
}

const hooked = new WeakMap<FakeBigCommerce, StoreApiHooks>();

/**
 * The hook of this fake's store API. Add it before the routes it should hold (withPromotions and the others):
 * the store API's router runs its handlers in the order they were added.
 */
export function withStoreApiHooks(fake: FakeBigCommerce): StoreApiHooks {
  const known = hooked.get(fake);
  if (known) return known;
  const hooks: StoreApiHooks = { hook: undefined };
  hooked.set(fake, hooks);
  fake.storeApi.use((req: Request, res: Response, next) => {
    const call = { method: req.method, path: req.path };
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    (res as unknown as { end: (...args: unknown[]) => Response }).end = (...args: unknown[]) => {
      const held = hooks.hook?.(call, 'after');
      if (!held) return end(...args);
      held.then(
        () => end(...args),
        () => res.destroy(),
      );
      return res;
    };
    const held = hooks.hook?.(call, 'before');
    if (!held) return next();
    held.then(
      () => next(),
      () => res.destroy(),
    );
  });
  return hooks;
}
