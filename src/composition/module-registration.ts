// Whether a platform registered at start fits beside the shipped ones (platform-registry.ts): its name, and
// its settings beside the bridge's own (src/config.ts, which composes the shipped modules' keys).
import type { AnyPlatformModule } from '../core/platform-module.ts';
import { CONFIG_KEYS } from '../config.ts';
import type { RecordKind } from '../core/store/roles/records.ts';
import { PLATFORM_NAME, PLATFORMS, SHIPPED_MODULES } from '../platform-registry.ts';

/**
 * The bridge's kinds a registered module may keep records of under its name (module-records.ts): its access to a
 * shop, its install state, its allowances and its migrations; never a customer's, an account's or another part's.
 */
const SHAREABLE = new Set<RecordKind>([
  'session',
  'shop',
  'allowed-shop',
  'declared-delivery',
  'callback-payload',
  'migration',
  'shop-link',
  'reconciliation',
  'platform-health',
]);

/**
 * Paths the bridge serves itself, which no platform's /<name> may take; and the starts of the core's own ids under
 * the kinds a module may share ('accounts-earlier-shops', 'kept-fields' migrations), whose "<name>-" ids it would reach.
 */
const RESERVED = new Set([
  'admin',
  'webhooks',
  'merchant',
  'sandbox',
  'healthz',
  'readyz',
  'metrics',
  'accounts',
  'kept',
]);

/** What is wrong with registering these modules beside the shipped ones: one line each. */
export function registrationProblems(modules: readonly AnyPlatformModule[]): string[] {
  const problems: string[] = [];
  const kindsTaken = new Set<string>(
    (SHIPPED_MODULES as readonly AnyPlatformModule[]).flatMap((shipped) => Object.keys(shipped.records)),
  );
  const names = new Set<string>(PLATFORMS);
  const keys = new Set<string>(CONFIG_KEYS);
  for (const module of modules) {
    if (!PLATFORM_NAME.test(module.name))
      problems.push(`${module.name}: a platform's name is 2 to 31 lower-case letters, digits or -`);
    else if (names.has(module.name) || RESERVED.has(module.name))
      problems.push(`${module.name}: the name is taken already`);
    // "<name>-…" ids are a module's under shared kinds: no name may start with another's and a dash.
    const near = [...names].find((name) => module.name.startsWith(`${name}-`) || name.startsWith(`${module.name}-`));
    if (near) problems.push(`${module.name}: the name starts like ${near}'s, whose records it could reach`);
    names.add(module.name);
    problems.push(...recordProblems(module, kindsTaken));
    for (const key of Object.keys(module.settings)) {
      if (keys.has(key)) problems.push(`${module.name}: its setting ${key} is another part's already`);
      keys.add(key);
    }
  }
  return problems;
}

/** Its record kinds: its own named after it and nobody else's, the bridge's only those a platform keeps. */
function recordProblems(module: AnyPlatformModule, taken: Set<string>): string[] {
  const problems: string[] = [];
  const shared: unknown = module.sharedRecords;
  if (!Array.isArray(shared))
    problems.push(`${module.name}: sharedRecords must list the bridge's kinds it keeps (or none: [])`);
  else
    for (const kind of shared.filter((each: RecordKind) => !SHAREABLE.has(each)))
      problems.push(`${module.name}: ${String(kind)} records are not a platform's to keep`);
  for (const kind of Object.keys(module.records)) {
    if (!kind.startsWith(`${module.name}-`))
      problems.push(`${module.name}: its own record kind ${kind} must start with ${module.name}-`);
    else if (taken.has(kind)) problems.push(`${module.name}: the record kind ${kind} is another module's`);
    taken.add(kind);
  }
  return problems;
}
