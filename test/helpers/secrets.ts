// Secrets at rest, for the tests: a key the test bridges run with (as a
// production install would), and everything a ledger keeps as text (every
// file under DATA_DIR, backups included; every row of every table, and the
// raw pages of lb_records where pageinspect is there), to look for a secret
// in plain text.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/** 32 bytes in base64: SECRETS_KEY of the test bridges. */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

/** Every file under a folder, with its path, as one text. */
export function filesAsText(dir: string): string {
  const parts: string[] = [];
  const walk = (sub: string) => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const path = join(sub, entry.name);
      if (entry.isDirectory()) walk(path);
      else parts.push(`== ${path}\n${readFileSync(join(dir, path), 'latin1')}`);
    }
  };
  walk('');
  return parts.join('\n');
}

/**
 * Every row of every table of the database, as text; and, when pageinspect
 * can be had, every page of lb_records as stored, old row versions included.
 */
export async function databaseAsText(url: string): Promise<{ rows: string; pages: string | undefined }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = (
      await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'")
    ).rows.map((row) => row.name);
    const rows: string[] = [];
    for (const table of tables)
      for (const row of (await client.query<{ row: string }>(`SELECT t::text AS row FROM ${table} t`)).rows)
        rows.push(`${table}: ${row.row}`);
    let pages: string | undefined;
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pageinspect');
      const { rows: found } = await client.query<{ page: string }>(
        `SELECT encode(get_raw_page('lb_records', n::int), 'escape') AS page
           FROM generate_series(0, pg_relation_size('lb_records') / current_setting('block_size')::int - 1) n`,
      );
      pages = found.map((row) => row.page).join('\n');
    } catch {
      pages = undefined;
    }
    return { rows: rows.join('\n'), pages };
  } finally {
    await client.end();
  }
}
