// The one list of store platforms: the modules the bridge ships (adapters/<platform>/module.ts), and the check
// that a platform registered at start (src/core/platform-module.ts) fits beside them. Everything else takes
// its platform names and labels from here (the API hands them to the browser pages).
import { z } from 'zod';
import { bigCommerceModule } from '../../adapters/bigcommerce/module.ts';
import { shopifyModule } from '../../adapters/shopify/module.ts';
import { wooModule } from '../../adapters/woocommerce/module.ts';
import type { AnyPlatformModule, PlatformNames } from '../core/platform-module.ts';
import { CONFIG_KEYS } from '../config.ts';

export const SHIPPED_MODULES = [shopifyModule, wooModule, bigCommerceModule] as const;

export type Platform = (typeof SHIPPED_MODULES)[number]['name'];
export const PLATFORMS: readonly Platform[] = SHIPPED_MODULES.map((module) => module.name);

const PLATFORM_NAME = /^[a-z][a-z0-9-]{1,30}$/;

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

/** What is wrong with registering these modules beside the shipped ones: one line each. */
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
  return [...SHIPPED_MODULES, ...modules].map(({ name, names }) => ({ name, names }));
}
