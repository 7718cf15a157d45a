// The one list of store platforms: the three the bridge ships, with the names a person reads, and the check
// that a platform registered as a module (src/core/platform-module.ts) fits beside them. Everything else takes
// its platform names and labels from here (the API hands them to the browser pages).
import type { AnyPlatformModule, PlatformNames } from '../core/platform-module.ts';
import { z } from 'zod';
import { CONFIG_KEYS } from '../config.ts';

export const PLATFORMS = ['shopify', 'woocommerce', 'bigcommerce'] as const;
export type Platform = (typeof PLATFORMS)[number];

const PLATFORM_NAME = /^[a-z][a-z0-9-]{1,30}$/;

export const PLATFORM_NAMES: Readonly<Record<Platform, PlatformNames>> = {
  shopify: { platform: 'Shopify', shop: 'shop', admin: 'your Shopify admin, under Apps' },
  woocommerce: { platform: 'WooCommerce', shop: 'store', admin: 'your store’s WordPress, as its administrator' },
  bigcommerce: { platform: 'BigCommerce', shop: 'store', admin: 'your BigCommerce control panel, under Apps' },
};

/**
 * A platform's name as requests give it. With `known` (the directory's names), only one of those; without,
 * any name of a platform's shape (a filter that names none the bridge knows finds nothing).
 */
export const platformName = (known?: readonly string[]) =>
  known
    ? z.string().refine((name) => known.includes(name), { error: `must be one of ${known.join(', ')}` })
    : z.string().regex(PLATFORM_NAME, { error: 'must be a platform’s name, as GET /admin/api/platforms lists them' });

/** Paths the bridge serves itself, which no platform's /<name> may take. */
const RESERVED = new Set(['admin', 'webhooks', 'merchant', 'sandbox', 'healthz', 'readyz', 'metrics']);

/** What is wrong with registering these modules beside the shipped platforms: one line each. */
export function registrationProblems(modules: readonly AnyPlatformModule[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>(PLATFORMS);
  const keys = new Set<string>(CONFIG_KEYS);
  for (const module of modules) {
    if (!PLATFORM_NAME.test(module.name))
      problems.push(`${module.name}: a platform's name is 2 to 31 lower-case letters, digits or -`);
    else if (names.has(module.name) || RESERVED.has(module.name))
      problems.push(`${module.name}: the name is taken already`);
    names.add(module.name);
    for (const key of Object.keys(module.settings)) {
      if (keys.has(key)) problems.push(`${module.name}: its setting ${key} is another part's already`);
      keys.add(key);
    }
  }
  return problems;
}

/** Every platform the bridge knows now, with its names: the shipped ones, then those registered. */
export function platformDirectory(
  modules: readonly AnyPlatformModule[] = [],
): Array<{ name: string; names: PlatformNames }> {
  return [
    ...PLATFORMS.map((name) => ({ name, names: PLATFORM_NAMES[name] })),
    ...modules.map(({ name, names }) => ({ name, names })),
  ];
}
