// The shop's own switch for its storefront ("Show customers their points in the store"), off until its merchant
// turns it on. Turning it on asks the platform whether the install can serve it now (readiness): what it lacks
// comes back in words, with the scopes the page may ask the platform's admin to grant, and nothing is saved.
import express from 'express';
import type { PlatformParts } from '../core/platform-module.ts';
import { parseRewards, saveRewards, shopRewards } from '../core/storefront/rewards.ts';
import { setStorefront, storefrontOn } from '../core/storefront/storefront-switch.ts';
import type { RecordRole } from '../core/store/ledger-store.ts';
import type { WidgetKeeper } from '../core/storefront/widget-keeper.ts';
import { byOf, shopRefOf } from './shop-ref.ts';

/** Said when the shop has no loyalty account to read its customers' points on. */
export const NOT_LINKED = {
  errors: ['Customers cannot see their points yet: this shop is not linked to a loyalty account.'],
  fix: 'Link this shop to an account first (Loyalty account, above in Set up), then turn it on again.',
};

export function shopStorefrontApi({
  store,
  partsOf,
  accounts,
  turnedOn,
  rewardsChanged,
  widget,
}: {
  store: Pick<RecordRole, 'getRecord' | 'putRecord' | 'deleteRecord'>;
  partsOf: (platform: string) => Pick<PlatformParts, 'storefront' | 'codes' | 'plugin'> | undefined;
  accounts: { forShop(platform: string, shop: string): Promise<string | undefined> };
  /** The storefront was turned on: the platform said the install can read customers (the reader's refusals go). */
  turnedOn?: (platform: string, shop: string) => void;
  /** The shop's rewards or its switch changed: open codes of what is no longer offered go now (code-sweeper.ts). */
  rewardsChanged?: () => void;
  /** Where the bridge puts the widget on the store itself (a script it registers): put on, taken off, its state shown. */
  widget?: Pick<WidgetKeeper, 'view' | 'turnedOn' | 'turnedOff'> | undefined;
}): express.Router {
  const router = express.Router();
  // A platform's codes count where its storefront is (the customer redeems there).
  const codesOf = (platform: string) => {
    const parts = partsOf(platform);
    return parts?.storefront ? parts.codes : undefined;
  };
  router.get('/storefront', async (_req, res) => {
    const { platform, shop } = shopRefOf(res);
    const parts = partsOf(platform);
    const offered = Boolean(parts?.storefront);
    const on = offered && (await storefrontOn(store, platform, shop));
    const placed = on ? await widget?.view(platform, shop) : undefined;
    // Where the store needs a plugin of ours: where to download it, and that a code connects it.
    const plugin = parts?.storefront && parts.plugin ? { download: parts.plugin.download } : undefined;
    res.json({ offered, on, ...(placed ? { widget: placed } : {}), ...(plugin ? { plugin } : {}) });
  });
  router.put('/storefront', async (req, res) => {
    const { platform, shop } = shopRefOf(res);
    const on = (req.body as { on?: unknown } | undefined)?.on;
    if (typeof on !== 'boolean') return void res.status(400).json({ errors: ['on: must be true or false'] });
    const storefront = partsOf(platform)?.storefront;
    if (!storefront)
      return void res.status(409).json({
        errors: ['Your store’s platform cannot show customers their points yet.'],
      });
    if (on) {
      // The route answers 404 to every customer of a shop with no account: turning it on would show nothing.
      if ((await accounts.forShop(platform, shop)) === undefined) return void res.status(409).json(NOT_LINKED);
      const ready = await storefront.readiness(shop);
      if (!ready.ready)
        return void res.status(409).json({
          errors: [`Customers cannot see their points yet: ${ready.why}.`],
          missingScopes: ready.missingScopes,
          fix:
            ready.missingScopes.length > 0
              ? 'Approve what the app asks for, then turn it on again.'
              : 'Ask the bridge’s operator to install the app again in a way that can approve it.',
        });
    }
    const served = () => storefront.served(shop);
    if ((await setStorefront(store, { platform, shop, on, by: byOf(res) }, served)) === 'not-served')
      return void res.status(409).json({
        errors: ['The app is no longer installed on this store, so nothing was saved.'],
        fix: 'Install the app again, then turn it on.',
      });
    if (on) turnedOn?.(platform, shop);
    else rewardsChanged?.();
    // The widget's put waits for the platform, so the page can say at once whether it is on the store; a put that
    // failed is kept and tried again, and the switch stays on.
    const placed = on ? await widget?.turnedOn(platform, shop) : await widget?.turnedOff(platform, shop);
    res.json({ offered: true, on, ...(placed ? { widget: placed } : {}) });
  });

  // A code that connects the platform's plugin to the bridge, for this shop: shown once, to be pasted in the plugin.
  // Only to who may connect the plugin, as its sign-in proved (the plugin's door signs it; res.locals.mayConnectPlugin).
  router.post('/storefront/plugin-code', async (_req, res) => {
    const { platform, shop } = shopRefOf(res);
    const parts = partsOf(platform);
    const plugin = parts?.storefront ? parts.plugin : undefined;
    if (!plugin) return void res.status(409).json({ errors: ['Your store’s platform has no plugin to connect.'] });
    res.set('cache-control', 'no-store');
    const mayConnect = res.locals.mayConnectPlugin as boolean | undefined;
    const made = await plugin.code(shop, { mayConnect });
    if ('refused' in made) return void res.status(403).json({ errors: [made.refused] });
    res.json(made);
  });

  // The rewards customers may turn their points into ("500 points for 5.00 off"): the whole list at once.
  router.get('/storefront/rewards', async (_req, res) => {
    const { platform, shop } = shopRefOf(res);
    const codes = codesOf(platform);
    res.json({
      offered: Boolean(codes),
      rewards: codes ? await shopRewards(store, platform, shop) : [],
      ...(codes ? { codesForOneCustomer: codes.forOneCustomer } : {}),
    });
  });
  router.put('/storefront/rewards', async (req, res) => {
    const { platform, shop } = shopRefOf(res);
    const codes = codesOf(platform);
    if (!codes)
      return void res.status(409).json({ errors: ['Your store’s platform cannot offer rewards for points yet.'] });
    const parsed = parseRewards(req.body);
    if (!parsed.ok) return void res.status(400).json({ errors: parsed.errors });
    const before = await shopRewards(store, platform, shop);
    // Turning rewards on asks the platform whether the install may make codes; what it lacks comes back in words.
    if (parsed.rewards.some((reward) => reward.on) && !before.some((reward) => reward.on)) {
      const ready = await codes.readiness(shop);
      if (!ready.ready)
        return void res.status(409).json({
          errors: [`Customers cannot redeem rewards yet: ${ready.why}.`],
          missingScopes: ready.missingScopes,
          fix:
            ready.missingScopes.length > 0
              ? 'Approve what the app asks for, then save the rewards again.'
              : 'Ask the bridge’s operator to install the app again in a way that can approve it.',
        });
    }
    await saveRewards(store, platform, shop, parsed.rewards, byOf(res));
    rewardsChanged?.();
    res.json({ offered: true, rewards: parsed.rewards });
  });
  return router;
}
