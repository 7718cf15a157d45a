// Runs once before every test file: finds out whether PostgreSQL answers, so
// that its suites run against it or skip, and says in one line for each kind
// of test that skips here why (PostgreSQL, Chromium, tmux, strace, openssl,
// the shared fixtures); and makes sure Shopify's Admin schema is on disk for
// the fake Shopify.
import { readFileSync } from 'node:fs';
import { PG_ADMIN_URL, probePostgres } from './postgres.ts';
import { ensureShopifySchema } from './shopify-schema.ts';
import { skipLines } from './test-tools.ts';

/** The API versions the tests call: the bridge's default (config/default.json), and the one before it. */
const SHOPIFY_SCHEMA_VERSIONS = [
  (
    JSON.parse(readFileSync(new URL('../../config/default.json', import.meta.url), 'utf8')) as {
      SHOPIFY_API_VERSION: string;
    }
  ).SHOPIFY_API_VERSION,
  '2026-07',
];

export default async function setup(): Promise<void> {
  // Shopify's published Admin schema, fetched once here rather than by every worker at once.
  for (const version of SHOPIFY_SCHEMA_VERSIONS) ensureShopifySchema(version);
  const available = await probePostgres();
  process.env.LB_POSTGRES_AVAILABLE = available ? '1' : '0';
  if (!available) {
    const where = new URL(PG_ADMIN_URL);
    process.stdout.write(
      `PostgreSQL suites skipped: no server answered at ${where.host} (set PG_TEST_URL, or run .ci/run, which starts one)\n`,
    );
  }
  for (const line of skipLines()) process.stdout.write(`${line}\n`);
}
