// Whether a platform registered at start fits beside the shipped ones (platform-registry.ts): its name, and
// its settings beside the bridge's own (src/config.ts, which composes the shipped modules' keys).
import type { AnyPlatformModule } from '../core/platform-module.ts';
import { CONFIG_KEYS } from '../config.ts';
import { PLATFORM_NAME, PLATFORMS } from './platform-registry.ts';

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
