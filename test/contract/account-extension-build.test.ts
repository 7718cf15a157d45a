// The customer account extensions build as Shopify CLI bundles them (scripts/build-extensions.ts: esbuild, one ESM
// bundle per target of each shopify.extension.toml, Preact's automatic JSX, @shopify/ui-extensions resolved), each
// under Shopify's limit of 64 KB compressed, with the bridge's address fixed in it from PUBLIC_URL. It renders
// only inside Shopify: what runs of it here is its logic (test/unit/account-points-view.test.ts) and its call to
// the bridge (test/security/shopify-customer-account-token.test.ts).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ACCOUNT_EXTENSIONS,
  BUNDLE_LIMIT_BYTES,
  buildAccountExtension,
  extensionTargets,
} from '../../scripts/build-extensions.ts';

describe('the customer account extension’s build', () => {
  it('bundles each target, with the bridge’s address, under 64 KB compressed', async () => {
    // Each extension one target: Shopify lets no other target share an extension with a full page.
    expect(ACCOUNT_EXTENSIONS.map((directory) => extensionTargets(directory).map((each) => each.target))).toEqual([
      ['customer-account.profile.block.render'],
      ['customer-account.page.render'],
    ]);
    const outdir = mkdtempSync(join(tmpdir(), 'lb-account-extension-'));
    try {
      const built = await buildAccountExtension(outdir, { PUBLIC_URL: 'https://bridge.example.com' });
      expect(built.map((each) => each.target)).toEqual([
        'customer-account.profile.block.render',
        'customer-account.page.render',
      ]);
      for (const each of built) {
        expect(each.gzipBytes).toBeGreaterThan(1000);
        expect(each.gzipBytes).toBeLessThanOrEqual(BUNDLE_LIMIT_BYTES);
        const code = readFileSync(each.file, 'utf8');
        // Shopify runs the module's default export; Preact and the s-* elements are in it, no import is left over.
        expect(code).toMatch(/export\s*\{\s*\w+ as default\s*\}/);
        expect(code).not.toMatch(/\bimport\s*[{"'*\w]/);
        expect(code).toContain('"s-stack"');
        expect(code).toContain('https://bridge.example.com');
        expect(code).toContain('/shopify/storefront/account-points');
        expect(code).not.toContain('process.env');
      }
      // Built without the address, it calls nowhere (bridge-url.ts).
      const bare = await buildAccountExtension(join(outdir, 'bare'), {});
      expect(readFileSync(bare[0]!.file, 'utf8')).not.toContain('https://bridge.example.com');
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
