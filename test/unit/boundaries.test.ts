// The layering rules of .dependency-cruiser.cjs hold on the tree, and fire
// when broken: each row puts back an import of the kind the tree had before
// the rules existed (core reading adapters or the configuration, two files
// importing each other, ...) in a small tree of its own, and names the rule
// that must refuse it. Type-only imports count.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as IConfiguration;

async function violations(baseDir: string, paths: string[]): Promise<string[]> {
  const { output } = await cruise(paths, {
    ruleSet: config,
    ...config.options,
    tsConfig: undefined,
    baseDir,
    validate: true,
  });
  return (output as ICruiseResult).summary.violations.map(
    (violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`,
  );
}

/** A tree of files, each importing the others it names. */
function tree(files: Record<string, string[]>, typeOnly = false): string {
  const dir = mkdtempSync(join(tmpdir(), 'boundaries-'));
  for (const [file, imports] of Object.entries(files)) {
    mkdirSync(join(dir, dirname(file)), { recursive: true });
    const lines = imports.map((target, i) => {
      let relative = join(...Array(file.split('/').length - 1).fill('..'), target);
      if (!relative.startsWith('.')) relative = `./${relative}`;
      return typeOnly ? `import type { T${i} } from '${relative}';` : `import { v${i} } from '${relative}';`;
    });
    writeFileSync(join(dir, file), `${lines.join('\n')}\nexport const v = 1;\nexport type T = number;\n`);
  }
  return dir;
}

describe('the layering rules', () => {
  it('hold on the tree as it is', async () => {
    expect(await violations(ROOT, ['src', 'adapters', 'bin', 'test', 'bench'])).toEqual([]);
  }, 60_000);

  it.each<[string, Record<string, string[]>, string]>([
    [
      'core imports an adapter (intake.ts read adapters/adapter.ts)',
      { 'src/core/intake.ts': ['adapters/adapter.ts'], 'adapters/adapter.ts': [] },
      'core-imports-no-adapter',
    ],
    [
      'core imports the configuration (open-store.ts read config.ts)',
      { 'src/core/store/open-store.ts': ['src/config.ts'], 'src/config.ts': [] },
      'core-imports-no-configuration',
    ],
    [
      'core imports http',
      { 'src/core/engine.ts': ['src/http/app.ts'], 'src/http/app.ts': [] },
      'core-imports-no-outer-layer',
    ],
    [
      'an adapter imports http',
      { 'adapters/shopify/access.ts': ['src/http/plain-page.ts'], 'src/http/plain-page.ts': [] },
      'adapters-import-no-http',
    ],
    [
      'src/ reaches into a platform beside the registry (admin-api.ts read adapters/shopify/installs.ts)',
      { 'src/http/admin-api.ts': ['adapters/shopify/installs.ts'], 'adapters/shopify/installs.ts': [] },
      'src-reaches-platforms-through-the-registry',
    ],
    [
      'the loyalty client imports core',
      { 'src/loyalty/client.ts': ['src/core/leases.ts'], 'src/core/leases.ts': [] },
      'loyalty-client-imports-no-core',
    ],
    [
      'the configuration imports the composition root (config.ts read composition/platform-registry.ts, issue 70)',
      { 'src/config.ts': ['src/composition/platform-registry.ts'], 'src/composition/platform-registry.ts': [] },
      'configuration-imports-no-outer-layer',
    ],
    [
      'http imports the composition root (admin-api.ts read composition/platforms.ts, issue 70)',
      { 'src/http/admin-api.ts': ['src/composition/platforms.ts'], 'src/composition/platforms.ts': [] },
      'http-imports-no-composition',
    ],
    [
      "http imports the platforms' list (shop-attention.ts read platform-registry.ts)",
      { 'src/http/shop-attention.ts': ['src/platform-registry.ts'], 'src/platform-registry.ts': [] },
      'http-imports-no-composition',
    ],
    [
      'the accounts import the composition root (from-config.ts read composition/policy-from-config.ts, issue 70)',
      {
        'src/accounts/from-config.ts': ['src/composition/policy-from-config.ts'],
        'src/composition/policy-from-config.ts': [],
      },
      'accounts-import-no-outer-layer',
    ],
    [
      'the accounts import http (declared-points.ts read http/order-points-view.ts, issue 70)',
      { 'src/accounts/declared-points.ts': ['src/http/order-points-view.ts'], 'src/http/order-points-view.ts': [] },
      'accounts-import-no-outer-layer',
    ],
    [
      'core imports the accounts',
      { 'src/core/engine.ts': ['src/accounts/registry.ts'], 'src/accounts/registry.ts': [] },
      'core-imports-no-outer-layer',
    ],
    [
      "a service imports http (the merchant's service read http/admin-parts.ts)",
      { 'src/services/merchant.ts': ['src/http/admin-parts.ts'], 'src/http/admin-parts.ts': [] },
      'services-import-no-outer-layer',
    ],
    [
      'the core imports a service (storefront reservations read services/storefront.ts)',
      { 'src/core/storefront/reservations.ts': ['src/services/storefront.ts'], 'src/services/storefront.ts': [] },
      'core-and-accounts-import-no-service',
    ],
    [
      'the composition root imports a command',
      { 'src/composition/main.ts': ['src/cli/common.ts'], 'src/cli/common.ts': [] },
      'composition-imports-no-cli',
    ],
    [
      'the sandbox imports core',
      { 'src/sandbox/server.ts': ['src/core/decimal.ts'], 'src/core/decimal.ts': [] },
      'sandbox-stands-alone',
    ],
    [
      'production code imports a test helper',
      { 'src/composition/main.ts': ['test/helpers/bridge.ts'], 'test/helpers/bridge.ts': [] },
      'production-imports-no-tests',
    ],
    [
      'two files import each other (open-store.ts and open-postgres.ts)',
      {
        'src/composition/open-store.ts': ['src/core/store/postgres/open-postgres.ts'],
        'src/core/store/postgres/open-postgres.ts': ['src/composition/open-store.ts'],
      },
      'no-circular',
    ],
  ])('refuse it when %s', async (_what, files, rule) => {
    for (const typeOnly of [false, true]) {
      const found = await violations(
        tree(files, typeOnly),
        ['src', 'adapters', 'test'].filter((top) => Object.keys(files).some((file) => file.startsWith(`${top}/`))),
      );
      expect(
        found.map((line) => line.split(':')[0]),
        typeOnly ? 'type-only imports count too' : undefined,
      ).toContain(rule);
    }
  });
});
