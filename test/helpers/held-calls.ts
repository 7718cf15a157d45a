// A hook on a fake platform's router (the fake BigCommerce's store API, the fake WooCommerce's site) for tests that
// need a call held where it is: before the platform acts on it, or after (it did, its answer not yet sent). The kill
// test (e2e/rewards-crash) holds a call there while it kills the bridge process that made it, then lets it go on or
// drops it. Nothing of any platform's here: the routes behind it answer as the platform's documentation says.
import type { Request, Response, Router } from 'express';

/** A call as the hook sees it: its method, and its path under the router (e.g. /v3/promotions, /wp-json/wc/v3/coupons). */
export interface HeldCall {
  method: string;
  path: string;
}

/**
 * Asked at each call, before its route runs and again as its answer is about to be sent: a promise holds the call
 * there until it settles (resolved: the call goes on; rejected: the connection is dropped); undefined: not held.
 */
export type CallHook = (call: HeldCall, phase: 'before' | 'after') => Promise<void> | undefined;

export interface CallHooks {
  hook: CallHook | undefined;
  /** Holds the next call that matches, at that phase, with what `arrive` gives (a test's holder); the hook is then off. */
  holdNext<T>(matches: (call: HeldCall) => boolean, phase: 'before' | 'after', arrive: () => Promise<void>, held: T): T;
}

const hooked = new WeakMap<Router, CallHooks>();

/**
 * The hook of this router. Add it before the routes it should hold (withPromotions, withCoupons and the others): a
 * router runs its handlers in the order they were added.
 */
export function withCallHooks(router: Router): CallHooks {
  const known = hooked.get(router);
  if (known) return known;
  const hooks: CallHooks = {
    hook: undefined,
    holdNext(matches, phase, arrive, held) {
      hooks.hook = (call, at) => {
        if (at !== phase || !matches(call)) return undefined;
        hooks.hook = undefined;
        return arrive();
      };
      return held;
    },
  };
  hooked.set(router, hooks);
  router.use((req: Request, res: Response, next) => {
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
