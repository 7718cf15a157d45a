// A hook on the fake WooCommerce's REST API for tests that need a call held where it is: before WordPress acts on it,
// or after (WooCommerce did it, its answer not yet sent). The kill test (e2e/rewards-crash) holds a coupon's create
// or delete there while it kills the bridge process that asked, then lets it go on or drops it. Nothing of
// WooCommerce's here: the routes behind it (fake-woocommerce-coupons.ts and the others) answer as WooCommerce does.
import type { Request, Response } from 'express';
import type { FakeWooCommerce } from './fake-woocommerce.ts';

/** A call of the site as the hook sees it: its method, and its path under the site's home (/wp-json/wc/v3/coupons). */
export interface WooRestCall {
  method: string;
  path: string;
}

/**
 * Asked at each call, before its route runs and again as its answer is about to be sent: a promise holds the call
 * there until it settles (resolved: the call goes on; rejected: the connection is dropped); undefined: not held.
 */
export type WooRestHook = (call: WooRestCall, phase: 'before' | 'after') => Promise<void> | undefined;

export interface WooRestHooks {
  hook: WooRestHook | undefined;
}

const hooked = new WeakMap<FakeWooCommerce, WooRestHooks>();

/**
 * The hook of this fake's site. Add it before the routes it should hold (withCoupons): the site's router runs its
 * handlers in the order they were added.
 */
export function withWooRestHooks(fake: FakeWooCommerce): WooRestHooks {
  const known = hooked.get(fake);
  if (known) return known;
  const hooks: WooRestHooks = { hook: undefined };
  hooked.set(fake, hooks);
  fake.site.router.use((req: Request, res: Response, next) => {
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
