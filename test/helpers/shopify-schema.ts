// Shopify's own Admin GraphQL schema, per API version, as Shopify publishes
// it: the introspection files in the npm package @shopify/dev-mcp
// (dist/data/admin_<version>.json.gz). The tests validate the bridge's
// documents against it and the fake Shopify executes them on it, so neither
// can drift from the real API.
//
// The package pulls in Shopify's CLI and much more, so it is not a
// devDependency: the one tarball is fetched from the npm registry (npm pack,
// through npm's cache), checked against the integrity pinned here, and the
// schema kept in node_modules/.cache. The global setup does this once per run.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';

export const DEV_MCP_PACKAGE = '@shopify/dev-mcp@1.16.0';
/** npm's integrity for that version: a different tarball is refused. */
const DEV_MCP_INTEGRITY =
  'sha512-tqgRnK7sQhjew+htxtleTH23nXB5fZcsrhWgEkomsorGXvLOB2mh2upwZm8uzuTDNTZnqtLMe64yIwh6s2awtw==';

const CACHE = resolve(import.meta.dirname, '../../node_modules/.cache/shopify-admin-schema');

const schemaFile = (version: string) => join(CACHE, `admin_${version}.json`);

/** Makes sure the schema of this API version is on disk; fetches the package once when it is not. */
export function ensureShopifySchema(version: string): string {
  const file = schemaFile(version);
  if (existsSync(file)) return file;
  mkdirSync(CACHE, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'shopify-schema-'));
  try {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', DEV_MCP_PACKAGE, '--json', '--pack-destination', work], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as Array<{ filename: string }>;
    const tarball = join(work, packed[0]?.filename ?? '');
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (integrity !== DEV_MCP_INTEGRITY)
      throw new Error(
        `${DEV_MCP_PACKAGE} from the registry is not the tarball pinned in test/helpers/shopify-schema.ts (${integrity})`,
      );
    const member = `package/dist/data/admin_${version}.json.gz`;
    execFileSync('tar', ['-xzf', tarball, '-C', work, member]);
    // Written whole, then renamed: two runs fetching at once never read half a file.
    writeFileSync(`${file}.tmp`, gunzipSync(readFileSync(join(work, member))));
    renameSync(`${file}.tmp`, file);
    return file;
  } catch (error) {
    throw new Error(
      `Shopify's Admin GraphQL schema ${version} could not be fetched from ${DEV_MCP_PACKAGE}: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const built = new Map<string, GraphQLSchema>();

/** The Admin API schema of this version, built once per process. */
export function shopifyAdminSchema(version: string): GraphQLSchema {
  let schema = built.get(version);
  if (!schema) {
    const introspection = JSON.parse(readFileSync(ensureShopifySchema(version), 'utf8')) as {
      data: IntrospectionQuery;
    };
    schema = buildClientSchema(introspection.data);
    built.set(version, schema);
  }
  return schema;
}
