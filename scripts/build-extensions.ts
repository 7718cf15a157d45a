// Builds the customer account UI extensions (extensions/loyalty-account, the Profile block, and
// extensions/loyalty-account-page, the full page) the way Shopify CLI bundles a UI extension
// (packages/app/src/cli/services/extensions/bundle.ts: esbuild, bundle, jsx automatic, minified, no legal
// comments, `process.env.NAME` replaced from the environment), one ESM bundle per target, and says each one's
// size as Shopify counts it: compressed, at most 64 KB per extension on API 2025-10 and later, 128 KB for a
// full page (shopify.dev, "Optimize bundle size"). `npm run build:extensions`; PUBLIC_URL fixes the bridge's address.
import { build } from 'esbuild';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The customer account extensions, each a folder of Shopify CLI's layout with its shopify.extension.toml. */
export const ACCOUNT_EXTENSIONS = ['loyalty-account', 'loyalty-account-page'].map((name) =>
  fileURLToPath(new URL(`../extensions/${name}/`, import.meta.url)),
);
/** Shopify's limit on an extension's compressed JavaScript; held for both (a full-page extension may use 128 KB). */
export const BUNDLE_LIMIT_BYTES = 64 * 1024;

export interface BuiltTarget {
  target: string;
  file: string;
  bytes: number;
  gzipBytes: number;
}

/** The targets of shopify.extension.toml, each with its module: read from the file Shopify CLI reads. */
export function extensionTargets(directory: string): Array<{ target: string; module: string }> {
  const toml = readFileSync(`${directory}shopify.extension.toml`, 'utf8');
  return [...toml.matchAll(/target\s*=\s*"([^"]+)"\s*\n\s*module\s*=\s*"([^"]+)"/g)].map(([, target, module]) => ({
    target: target!,
    module: module!,
  }));
}

/** Into `outdir`, or each extension's own dist/ as Shopify CLI writes it. */
export async function buildAccountExtension(
  outdir: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<BuiltTarget[]> {
  const define: Record<string, string> = { 'process.env.NODE_ENV': JSON.stringify('production') };
  if (env.PUBLIC_URL) define['process.env.PUBLIC_URL'] = JSON.stringify(env.PUBLIC_URL);
  const built: BuiltTarget[] = [];
  for (const { target, module, directory } of ACCOUNT_EXTENSIONS.flatMap((directory) =>
    extensionTargets(directory).map((each) => ({ ...each, directory })),
  )) {
    const into = outdir ?? `${directory}dist`;
    mkdirSync(into, { recursive: true });
    const file = `${into}/${target}.js`;
    await build({
      entryPoints: [`${directory}${module}`],
      outfile: file,
      bundle: true,
      format: 'esm',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      minify: true,
      legalComments: 'none',
      target: 'es2020',
      define,
      logLevel: 'silent',
      resolveExtensions: ['.tsx', '.ts', '.js', '.json', '.mjs'],
    });
    const bytes = readFileSync(file);
    built.push({ target, file, bytes: bytes.length, gzipBytes: gzipSync(bytes).length });
  }
  return built;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const built = await buildAccountExtension(undefined);
  for (const each of built)
    console.log(`${each.target}: ${each.bytes} bytes, ${each.gzipBytes} compressed (limit ${BUNDLE_LIMIT_BYTES})`);
  if (!process.env.PUBLIC_URL) console.log('PUBLIC_URL was not set: the extensions built say points are not set up.');
  if (built.some((each) => each.gzipBytes > BUNDLE_LIMIT_BYTES)) process.exitCode = 1;
}
