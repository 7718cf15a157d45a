// The ledger's format mark, on both stores: a fresh ledger is marked with the
// current format, one an earlier release wrote (no mark) is raised to it, a
// second open changes nothing, and a ledger a newer release wrote is refused
// before anything in it is touched, with a line that says which release
// wrote it. On PostgreSQL the format is raised only while no instance of an
// older release is connected.
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { LEDGER_FORMAT, WRITTEN_BY } from '../../src/core/store/format/ledger-format.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { openStoreOn } from '../helpers/postgres-store.ts';

const NEWER = {
  format: LEDGER_FORMAT + 1,
  writtenBy: `loyalty-bridge 9.9.0 (ledger format ${LEDGER_FORMAT + 1})`,
  at: '2027-01-01T00:00:00.000Z',
};

/** Every file under a folder and its bytes: what "touched nothing" means. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (sub: string) => {
    for (const name of readdirSync(join(dir, sub))) {
      const path = join(sub, name);
      if (statSync(join(dir, path)).isDirectory()) walk(path);
      else if (name !== 'lock') files[path] = readFileSync(join(dir, path), 'utf8');
    }
  };
  walk('');
  return files;
}

describe('lowdb', () => {
  const open = async (dataDir: string) => {
    const store = new LowdbStore({ dataDir });
    const report = await store.open();
    return { store, report };
  };

  it('marks a fresh ledger with the current format and the release that wrote it', async () => {
    const dataDir = tempDataDir();
    const { store } = await open(dataDir);
    await store.close();
    expect(JSON.parse(readFileSync(join(dataDir, 'format.json'), 'utf8'))).toMatchObject({
      format: LEDGER_FORMAT,
      writtenBy: WRITTEN_BY,
    });
  });

  it('raises a ledger without a mark (an earlier release) to the current format, and a second open changes nothing', async () => {
    const dataDir = tempDataDir();
    await (await open(dataDir)).store.close();
    // As an earlier release left it: no mark.
    rmSync(join(dataDir, 'format.json'));
    const { store, report } = await open(dataDir);
    await store.close();
    expect(report.upgraded).toContain(`ledger format 0 upgraded to format ${LEDGER_FORMAT}`);
    const marked = readFileSync(join(dataDir, 'format.json'), 'utf8');
    const again = await open(dataDir);
    await again.store.close();
    expect(again.report.upgraded ?? '').not.toContain('ledger format');
    expect(readFileSync(join(dataDir, 'format.json'), 'utf8')).toBe(marked);
  });

  it('refuses a ledger a newer release wrote, naming it, and touches nothing in it', async () => {
    const dataDir = tempDataDir();
    await (await open(dataDir)).store.close();
    writeFileSync(join(dataDir, 'format.json'), JSON.stringify(NEWER));
    const before = snapshot(dataDir);
    await expect(open(dataDir)).rejects.toThrow(
      new RegExp(
        `written by loyalty-bridge 9\\.9\\.0 \\(ledger format ${NEWER.format}\\), format ${NEWER.format}; this is loyalty-bridge .* which reads format ${LEDGER_FORMAT} and older`,
      ),
    );
    // Read-only (the CLI's status) refuses it too.
    await expect(new LowdbStore({ dataDir, readOnly: true }).open()).rejects.toThrow(`ledger format ${NEWER.format}`);
    expect(snapshot(dataDir)).toEqual(before);
  });
});

describe.skipIf(!postgresAvailable())('PostgreSQL', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  const mark = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (
        await client.query<{ format: number; written_by: string }>('SELECT format, written_by FROM lb_ledger_format')
      ).rows;
    } finally {
      await client.end();
    }
  };
  /** A connection that stays open until ended, as an instance's would. */
  const connect = async (url: string, applicationName = 'test') => {
    const client = new pg.Client({ connectionString: url, application_name: applicationName });
    await client.connect();
    return client;
  };
  const run = async (url: string, text: string) => {
    const client = await connect(url);
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };

  it('marks a new ledger, and a second instance changes nothing', async () => {
    database = await freshDatabase();
    const first = await openStoreOn(database.url);
    expect(await mark(database.url)).toEqual([{ format: LEDGER_FORMAT, written_by: WRITTEN_BY }]);
    const second = await openStoreOn(database.url);
    await Promise.all([first.close(), second.close()]);
    expect(await mark(database.url)).toEqual([{ format: LEDGER_FORMAT, written_by: WRITTEN_BY }]);
  });

  it('refuses a ledger a newer release wrote, before any migration runs', async () => {
    database = await freshDatabase();
    await (await openStoreOn(database.url)).close();
    await run(database.url, `UPDATE lb_ledger_format SET format = ${NEWER.format}, written_by = '${NEWER.writtenBy}'`);
    await expect(openStoreOn(database.url)).rejects.toThrow(
      `written by loyalty-bridge 9.9.0 (ledger format ${NEWER.format})`,
    );
  });

  it('raises an earlier release’s ledger only once no instance of it is connected', async () => {
    database = await freshDatabase();
    const opened = await openStoreOn(database.url);
    await opened.close();
    // As an earlier release left it: no mark; and one of its instances still running.
    await run(database.url, 'DROP TABLE lb_ledger_format');
    await run(database.url, `DELETE FROM lb_migrations WHERE name = '004_ledger_format'`);
    const older = await connect(database.url, 'loyalty-bridge');
    try {
      await expect(openStoreOn(database.url)).rejects.toThrow(
        /instances of an older release are connected to the database \(loyalty-bridge from [^)]*pid \d+\)/,
      );
      // Refused before any migration ran.
      expect(await run(database.url, `SELECT to_regclass('lb_ledger_format') AS found`)).toEqual([{ found: null }]);
    } finally {
      await older.end();
    }
    const upgraded = await openStoreOn(database.url);
    await upgraded.close();
    expect(await mark(database.url)).toEqual([{ format: LEDGER_FORMAT, written_by: WRITTEN_BY }]);
  });
});
