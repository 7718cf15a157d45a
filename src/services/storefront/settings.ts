// The merchant's storefront settings, each use case a function (../storefront-settings.ts binds them): the shop's
// switch ("Show customers their points in the store"), off until its merchant turns it on, the rewards customers
// may turn their points into, the widget the bridge puts on the store, and the code that connects a platform's
// plugin. Turning the storefront or rewards on asks the platform whether the install can serve them now
// (readiness): what it lacks comes back in words, with the scopes the page may ask the platform's admin to grant,
// and nothing is saved.
import type { ShopRef } from '../../accounts/account-records.ts';
import type { StoreCodes } from '../../core/capabilities/codes.ts';
import type { PlatformParts } from '../../core/platform-module.ts';
import type { Readiness } from '../../core/platform-shapes.ts';
import { BENEFIT_KINDS, type BenefitKind } from '../../core/reward-benefit.ts';
import { parseRewards, saveRewards, shopRewards, type Reward } from '../../core/storefront/rewards.ts';
import { setStorefront, storefrontOn } from '../../core/storefront/storefront-switch.ts';
import type { WidgetKeeper } from '../../core/storefront/widget-keeper.ts';
import type { RecordRole } from '../../core/store/ledger-store.ts';

/** What a settings route answers, as it is: its status, its JSON, and headers where it has some. */
export interface SettingsAnswer {
  status: 200 | 400 | 403 | 409;
  json: unknown;
  headers?: Readonly<Record<string, string>>;
}

export interface StorefrontSettingsParts {
  store: Pick<RecordRole, 'getRecord' | 'putRecord' | 'deleteRecord'>;
  partsOf: (platform: string) => Pick<PlatformParts, 'storefront' | 'codes' | 'plugin'> | undefined;
  accounts: { forShop(platform: string, shop: string): Promise<string | undefined> };
  /** The storefront was turned on: the platform said the install can read customers (the reader's refusals go). */
  turnedOn?: (platform: string, shop: string) => void;
  /** The shop's rewards or its switch changed: open codes of what is no longer offered go now (code-sweeper.ts). */
  rewardsChanged?: () => void;
  /** Where the bridge puts the widget on the store itself (a script it registers): put on, taken off, its state shown. */
  widget?: Pick<WidgetKeeper, 'view' | 'turnedOn' | 'turnedOff'> | undefined;
}

/** Said when the shop has no loyalty account to read its customers' points on. */
export const NOT_LINKED = {
  errors: ['Customers cannot see their points yet: this shop is not linked to a loyalty account.'],
  fix: 'Link this shop to an account first (Loyalty account, above in Set up), then turn it on again.',
};

const ok = (json: unknown): SettingsAnswer => ({ status: 200, json });
const refused = (json: unknown): SettingsAnswer => ({ status: 409, json });

/** What the install lacks to serve `what`, in words, with the scopes to approve and how, then `again`. */
const notReady = (ready: Extract<Readiness, { ready: false }>, what: string, again: string): SettingsAnswer =>
  refused({
    errors: [`${what}: ${ready.why}.`],
    missingScopes: ready.missingScopes,
    fix:
      ready.missingScopes.length > 0
        ? `Approve what the app asks for, then ${again}.`
        : 'Ask the bridge’s operator to install the app again in a way that can approve it.',
  });

/** Whether the shop's platform offers the storefront, whether it is on, its widget, and its plugin's download. */
export async function storefrontView(
  { store, partsOf, widget }: StorefrontSettingsParts,
  { platform, shop }: ShopRef,
): Promise<SettingsAnswer> {
  const parts = partsOf(platform);
  const offered = Boolean(parts?.storefront);
  const on = offered && (await storefrontOn(store, platform, shop));
  const placed = on ? await widget?.view(platform, shop) : undefined;
  // Where the store needs a plugin of ours: where to download it, and that a code connects it.
  const plugin = parts?.storefront && parts.plugin ? { download: parts.plugin.download } : undefined;
  return ok({ offered, on, ...(placed ? { widget: placed } : {}), ...(plugin ? { plugin } : {}) });
}

/** The merchant's switch turned on or off. A write the ledger refuses throws, and the switch stays as it was. */
export async function turnStorefront(
  parts: StorefrontSettingsParts,
  { platform, shop }: ShopRef,
  on: boolean,
  by: string,
): Promise<SettingsAnswer> {
  const storefront = parts.partsOf(platform)?.storefront;
  if (!storefront) return refused({ errors: ['Your store’s platform cannot show customers their points yet.'] });
  if (on) {
    // The route answers 404 to every customer of a shop with no account: turning it on would show nothing.
    if ((await parts.accounts.forShop(platform, shop)) === undefined) return refused(NOT_LINKED);
    const ready = await storefront.readiness(shop);
    if (!ready.ready) return notReady(ready, 'Customers cannot see their points yet', 'turn it on again');
  }
  const served = () => storefront.served(shop);
  if ((await setStorefront(parts.store, { platform, shop, on, by }, served)) === 'not-served')
    return refused({
      errors: ['The app is no longer installed on this store, so nothing was saved.'],
      fix: 'Install the app again, then turn it on.',
    });
  if (on) parts.turnedOn?.(platform, shop);
  else parts.rewardsChanged?.();
  // The widget's put waits for the platform, so the page can say at once whether it is on the store; a put that
  // failed is kept and tried again, and the switch stays on.
  const placed = on ? await parts.widget?.turnedOn(platform, shop) : await parts.widget?.turnedOff(platform, shop);
  return ok({ offered: true, on, ...(placed ? { widget: placed } : {}) });
}

/**
 * A code that connects the platform's plugin to the bridge, for this shop: shown once, to be pasted in the plugin,
 * never kept by a cache. Only to who may connect the plugin, as its sign-in proved (`mayConnect`).
 */
export async function pluginCode(
  { partsOf }: StorefrontSettingsParts,
  { platform, shop }: ShopRef,
  mayConnect: boolean | undefined,
): Promise<SettingsAnswer> {
  const parts = partsOf(platform);
  const plugin = parts?.storefront ? parts.plugin : undefined;
  if (!plugin) return refused({ errors: ['Your store’s platform has no plugin to connect.'] });
  const headers = { 'cache-control': 'no-store' };
  const made = await plugin.code(shop, { mayConnect });
  if ('refused' in made) return { status: 403, headers, json: { errors: [made.refused] } };
  return { status: 200, headers, json: made };
}

/** A platform's codes count where its storefront is (the customer redeems there). */
const codesOf = ({ partsOf }: StorefrontSettingsParts, platform: string) => {
  const parts = partsOf(platform);
  return parts?.storefront ? parts.codes : undefined;
};

/** The rewards customers may turn their points into ("500 points for 5.00 off"), the whole list. */
export async function rewardsView(
  parts: StorefrontSettingsParts,
  { platform, shop }: ShopRef,
): Promise<SettingsAnswer> {
  const codes = codesOf(parts, platform);
  return ok({
    offered: Boolean(codes),
    rewards: codes ? await shopRewards(parts.store, platform, shop) : [],
    ...(codes ? { codesForOneCustomer: codes.forOneCustomer, kinds: kindsOffered(codes) } : {}),
  });
}

/** Each kind of reward, why the platform cannot make it, and what the merchant sets first (null: nothing). */
const kindsOffered = (codes: Pick<StoreCodes, 'notMade' | 'setUpFirst'>) =>
  BENEFIT_KINDS.map((kind) => ({
    kind,
    notMade: codes.notMade[kind] ?? null,
    setUpFirst: codes.setUpFirst[kind] ?? null,
  }));

/**
 * One line per reward turned on whose kind the platform cannot make, or whose code would give nothing in the store
 * as it is set now. A reward turned off is let be, so that a merchant can still turn one off or edit another.
 */
async function kindsRefused(codes: StoreCodes, shop: string, rewards: readonly Reward[]): Promise<string[]> {
  const fails = new Map<BenefitKind, Promise<string | undefined>>();
  const lines = await Promise.all(
    rewards.map(async ({ benefit, on }, i) => {
      if (!on) return [];
      const why =
        codes.notMade[benefit.kind] ?? (await memo(fails, benefit.kind, () => codes.whyKindFails(shop, benefit.kind)));
      return why === undefined ? [] : [`rewards.${i}.benefit: ${why}`];
    }),
  );
  return lines.flat();
}

const memo = <K, V>(seen: Map<K, Promise<V>>, key: K, make: () => Promise<V>): Promise<V> => {
  const known = seen.get(key) ?? make();
  seen.set(key, known);
  return known;
};

/** The whole list of rewards replaced by what the merchant sent (`body`, checked here). */
export async function replaceRewards(
  parts: StorefrontSettingsParts,
  { platform, shop }: ShopRef,
  body: unknown,
  by: string,
): Promise<SettingsAnswer> {
  const codes = codesOf(parts, platform);
  if (!codes) return refused({ errors: ['Your store’s platform cannot offer rewards for points yet.'] });
  const parsed = parseRewards(body);
  if (!parsed.ok) return { status: 400, json: { errors: parsed.errors } };
  const unmade = await kindsRefused(codes, shop, parsed.rewards);
  if (unmade.length > 0) return { status: 400, json: { errors: unmade } };
  const before = await shopRewards(parts.store, platform, shop);
  // Turning rewards on asks the platform whether the install may make codes; what it lacks comes back in words.
  if (parsed.rewards.some((reward) => reward.on) && !before.some((reward) => reward.on)) {
    const ready = await codes.readiness(shop);
    if (!ready.ready) return notReady(ready, 'Customers cannot redeem rewards yet', 'save the rewards again');
  }
  await saveRewards(parts.store, platform, shop, parsed.rewards, by);
  parts.rewardsChanged?.();
  return ok({ offered: true, rewards: parsed.rewards });
}
