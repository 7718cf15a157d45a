// What Shopify asks of the app for each thing the bridge does, read from the files `shopify app deploy` sends:
// shopify.app.toml and every extension's shopify.extension.toml (under extensions/).
// - The app proxy (the theme extension's launcher and "earn points" block) needs the write_app_proxy scope:
//   "Configuring an app proxy requires the write_app_proxy access scope"
//   (https://shopify.dev/apps/build/online-store/display-dynamic-data, "About app proxies and dynamic data").
// - A UI extension that calls the bridge with fetch() needs the network_access capability
//   (https://shopify.dev/docs/apps/build/customer-accounts/capabilities, "Network access").
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { appToml } from '../helpers/shopify-app-config.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const EXTENSIONS = join(ROOT, 'extensions');

interface ExtensionToml {
  type?: string;
  extensions?: Array<{
    type: string;
    handle: string;
    targeting?: Array<{ target: string; module: string }>;
    capabilities?: { network_access?: boolean };
  }>;
}

const extensionTomls = (): Array<{ dir: string; toml: ExtensionToml }> =>
  readdirSync(EXTENSIONS, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(EXTENSIONS, entry.name))
    .flatMap((dir) => {
      try {
        return [{ dir, toml: parse(readFileSync(join(dir, 'shopify.extension.toml'), 'utf8')) as ExtensionToml }];
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
    });

/** Every file a module reaches through its relative imports, itself included. */
function reached(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  for (const [, path] of source.matchAll(/(?:from|import)\s+'(\.{1,2}\/[^']+)'/g))
    reached(resolve(dirname(file), path ?? ''), seen);
  return seen;
}

/** Whether the module calls the bridge: it reaches bridge-url.ts, the bridge's address fixed at build. */
const callsBridge = (module: string) => [...reached(module)].some((file) => file.endsWith('/bridge-url.ts'));

it('asks for write_app_proxy, required, since the app declares an app proxy', () => {
  const app = appToml();
  expect(app.app_proxy).toBeDefined();
  expect(app.access_scopes.scopes.split(',')).toContain('write_app_proxy');
  // An install by OAuth asks for SHOPIFY_SCOPES: the same scopes.
  const loaded = loadConfig({ env: { DATA_DIR: '/tmp' } });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  expect(loaded.config.SHOPIFY_SCOPES).toContain('write_app_proxy');
});

it('gives network_access to every UI extension that calls the bridge', () => {
  const calling: string[] = [];
  for (const { dir, toml } of extensionTomls())
    for (const extension of toml.extensions ?? []) {
      if (extension.type !== 'ui_extension') continue;
      const calls = (extension.targeting ?? []).some((target) => callsBridge(resolve(dir, target.module)));
      if (!calls) continue;
      calling.push(extension.handle);
      expect([extension.handle, extension.capabilities?.network_access]).toEqual([extension.handle, true]);
    }
  // Both customer account extensions call the bridge; a walk that found none would check nothing.
  expect(calling.sort()).toEqual(['loyalty-account', 'loyalty-account-page']);
});
