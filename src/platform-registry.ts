// The one list of store platforms: the modules the bridge ships (adapters/<platform>/module.ts); whether one
// registered at start fits beside them is module-registration.ts's to say. Everything else (the configuration's
// keys too) takes its platforms, names and labels from here (the API hands them to the browser pages).
import { bigCommerceModule } from '../adapters/bigcommerce/module.ts';
import { shopifyModule } from '../adapters/shopify/module.ts';
import { wooModule } from '../adapters/woocommerce/module.ts';
import type { AnyPlatformModule, PlatformNames } from './core/platform-module.ts';

export { PLATFORM_NAME, platformName } from './core/platform-name.ts';

export const SHIPPED_MODULES = [shopifyModule, wooModule, bigCommerceModule] as const;

export type Platform = (typeof SHIPPED_MODULES)[number]['name'];
export const PLATFORMS: readonly Platform[] = SHIPPED_MODULES.map((module) => module.name);

/** Every platform the bridge knows now, with its names: the shipped ones, then those registered. */
export function platformDirectory(
  modules: readonly AnyPlatformModule[] = [],
): Array<{ name: string; names: PlatformNames }> {
  return [...SHIPPED_MODULES, ...modules].map(({ name, names }) => ({ name, names }));
}
