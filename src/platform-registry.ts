// The one list of store platforms: the modules the bridge ships (adapters/<platform>/module.ts); whether one
// registered at start fits beside them is module-registration.ts's to say. Everything else (the configuration's
// keys too) takes its platforms, names and labels from here (the API hands them to the browser pages).
import { z } from 'zod';
import { bigCommerceModule } from '../../adapters/bigcommerce/module.ts';
import { shopifyModule } from '../../adapters/shopify/module.ts';
import { wooModule } from '../../adapters/woocommerce/module.ts';
import type { AnyPlatformModule, PlatformNames } from '../core/platform-module.ts';

export const SHIPPED_MODULES = [shopifyModule, wooModule, bigCommerceModule] as const;

export type Platform = (typeof SHIPPED_MODULES)[number]['name'];
export const PLATFORMS: readonly Platform[] = SHIPPED_MODULES.map((module) => module.name);

export const PLATFORM_NAME = /^[a-z][a-z0-9-]{1,30}$/;

/**
 * A platform's name as requests give it. With `known` (the directory's names), only one of those; without,
 * any name of a platform's shape (a filter that names none the bridge knows finds nothing).
 */
export const platformName = (known?: readonly string[]) =>
  known
    ? z.string().refine((name) => known.includes(name), { error: `must be one of ${known.join(', ')}` })
    : z.string().regex(PLATFORM_NAME, { error: 'must be a platform’s name, as GET /admin/api/platforms lists them' });

/** Every platform the bridge knows now, with its names: the shipped ones, then those registered. */
export function platformDirectory(
  modules: readonly AnyPlatformModule[] = [],
): Array<{ name: string; names: PlatformNames }> {
  return [...SHIPPED_MODULES, ...modules].map(({ name, names }) => ({ name, names }));
}
