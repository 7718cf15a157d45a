// Builds the customer account UI extension (extensions/loyalty-account) the way Shopify CLI bundles a UI
// extension (packages/app/src/cli/services/extensions/bundle.ts: esbuild, bundle, jsx automatic, minified, no
// legal comments, `process.env.NAME` replaced from the environment), one ESM bundle per target, and says each
// one's size as Shopify counts it: compressed, at most 64 KB per extension on API 2025-10 and later
// (shopify.dev, "Optimize bundle size"). `npm run build:extensions`; PUBLIC_URL fixes the bridge's address.
import { build } from 'esbuild';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const ACCOUNT_EXTENSION = fileURLToPath(new URL('../extensions/loyalty-account/', import.meta.url));
/** Shopify's limit on an extension's compressed JavaScript (a full-page extension alone may use 128 KB). */
export const BUNDLE_LIMIT_BYTES = 64 * 1024;

export interface BuiltTarget {
  target: string;
  file: string;
  bytes: number;
  gzipBytes: number;
}

/** The targets of shopify.extension.toml, each with its module: read from the file Shopify CLI reads. */
export function extensionTargets(directory = ACCOUNT_EXTENSION): Array<{ target: string; module: string }> {
  const toml = readFileSync(`${directory}shopify.extension.toml`, 'utf8');
  return [...toml.matchAll(/target\s*=\s*"([^"]+)"\s*\n\s*module\s*=\s*"([^"]+)"/g)].map(([, target, module]) => ({
    target: target!,
    module: module!,
  }));
}

export async function buildAccountExtension(
  outdir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<BuiltTarget[]> {
  mkdirSync(outdir, { recursive: true });
  const define: Record<string, string> = { 'process.env.NODE_ENV': JSON.stringify('production') };
  if (env.PUBLIC_URL) define['process.env.PUBLIC_URL'] = JSON.stringify(env.PUBLIC_URL);
  const built: BuiltTarget[] = [];
  for (const { target, module } of extensionTargets()) {
    const file = `${outdir}/${target}.js`;
    await build({
      entryPoints: [`${ACCOUNT_EXTENSION}${module}`],
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
  const outdir = fileURLToPath(new URL('../extensions/loyalty-account/dist', import.meta.url));
  const built = await buildAccountExtension(outdir);
  for (const each of built)
    console.log(`${each.target}: ${each.bytes} bytes, ${each.gzipBytes} compressed (limit ${BUNDLE_LIMIT_BYTES})`);
  if (!process.env.PUBLIC_URL) console.log('PUBLIC_URL was not set: the extension built says points are not set up.');
  if (built.some((each) => each.gzipBytes > BUNDLE_LIMIT_BYTES)) process.exitCode = 1;
}
