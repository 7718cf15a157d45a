// The merchant's storefront settings as one service: the shop's switch, its rewards, its widget on the store and
// its plugin's code, for the routes of the shop's own page (src/http/shop-storefront-api.ts), which only parse the
// request and answer what it returns. Apart from the customer's storefront (storefront.ts): another caller (the
// merchant, by their shop's door), other parts (no reader of points, no codes, no pace), and the same parts the
// shop's admin API hands its routes today. The use cases: storefront/settings.ts.
import type { ShopRef } from '../accounts/account-records.ts';
import {
  pluginCode,
  replaceRewards,
  rewardsView,
  storefrontView,
  turnStorefront,
  type SettingsAnswer,
  type StorefrontSettingsParts,
} from './storefront/settings.ts';

export { NOT_LINKED, type SettingsAnswer, type StorefrontSettingsParts } from './storefront/settings.ts';

/** Each answer is what the merchant's page reads, as it is: the route answers it unchanged. */
export interface StorefrontSettingsService {
  /** Whether the shop's platform offers the storefront, whether it is on, its widget, its plugin's download. */
  view(at: ShopRef): Promise<SettingsAnswer>;
  /** The merchant turned the storefront on or off (`by`: who, for the audit). */
  turn(at: ShopRef, on: boolean, by: string): Promise<SettingsAnswer>;
  /** A one-time code that connects the platform's plugin, to who may connect it (`mayConnect`, as its sign-in proved). */
  pluginCode(at: ShopRef, mayConnect: boolean | undefined): Promise<SettingsAnswer>;
  /** The rewards customers may turn their points into. */
  rewards(at: ShopRef): Promise<SettingsAnswer>;
  /** The rewards replaced by what the merchant sent (`body`, as it came). */
  saveRewards(at: ShopRef, body: unknown, by: string): Promise<SettingsAnswer>;
}

export function storefrontSettingsService(parts: StorefrontSettingsParts): StorefrontSettingsService {
  return {
    view: (at) => storefrontView(parts, at),
    turn: (at, on, by) => turnStorefront(parts, at, on, by),
    pluginCode: (at, mayConnect) => pluginCode(parts, at, mayConnect),
    rewards: (at) => rewardsView(parts, at),
    saveRewards: (at, body, by) => replaceRewards(parts, at, body, by),
  };
}
