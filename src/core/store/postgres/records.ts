// Small collections by kind and id (shops, sessions, reconciliation state,
// adjustments, resync jobs, privacy requests, platform health): the store
// keeps them, the core gives them meaning. Rows hold secrets sealed
// (record-secrets.ts): each record is sealed here as it is written and opened
// as it is read, so nothing else handles a sealed value.
import type pg from 'pg';
import type { RecordChange, RecordKind, SecretCounts } from '../ledger-store.ts';
import type { PgDatabase, Queryable } from './database.ts';
import { upgradeRecord } from '../format/upgrade-records.ts';
import { noSecrets, type RecordSecrets, type ResealReport } from '../record-secrets.ts';

const opened = <T>(secrets: RecordSecrets, kind: RecordKind, id: string, stored: T): T =>
  secrets.open(kind, id, upgradeRecord(kind, stored));

/**
 * `copied`: the value comes from another ledger (a migration), so its
 * secrets are not new ones, and are kept plain where no key is set.
 */
export async function putRecord(
  client: Queryable,
  secrets: RecordSecrets,
  kind: RecordKind,
  id: string,
  value: unknown,
  { copied = false }: { copied?: boolean } = {},
): Promise<void> {
  // Without a key, only a secret the record holds already may be written plain: read what it holds.
  const stored = copied
    ? value
    : secrets.needsStored(kind, value)
      ? (await client.query<{ value: unknown }>('SELECT value FROM lb_records WHERE kind = $1 AND id = $2', [kind, id]))
          .rows[0]?.value
      : undefined;
  await client.query(
    'INSERT INTO lb_records (kind, id, value, updated_at) VALUES ($1, $2, $3, now()) ON CONFLICT (kind, id) DO UPDATE SET value = EXCLUDED.value, updated_at = now()',
    [kind, id, JSON.stringify(secrets.seal(kind, id, value, stored))],
  );
}

/** The first writer's record wins: an insert that conflicts reads what is there instead. */
export async function addRecord<T>(
  db: PgDatabase,
  kind: RecordKind,
  id: string,
  value: T,
): Promise<{ added: boolean; value: T }> {
  const kept = JSON.stringify(db.secrets.seal(kind, id, value));
  for (;;) {
    const inserted = await db.write(
      'INSERT INTO lb_records (kind, id, value, updated_at) VALUES ($1, $2, $3, now()) ON CONFLICT (kind, id) DO NOTHING',
      [kind, id, kept],
    );
    if ((inserted.rowCount ?? 0) > 0) return { added: true, value };
    const existing = await getRecord<T>(db, kind, id);
    // Deleted between the insert and the read: try again.
    if (existing !== undefined) return { added: false, value: existing };
  }
}

/**
 * A compare-and-set in one transaction: the row is read FOR UPDATE, so a
 * write of another instance waits until this one commits. A row that is not
 * there cannot be locked: when another instance adds it between the read and
 * the insert, the insert does nothing and the change is decided again on
 * what it added.
 */
export async function changeRecord<T>(
  db: PgDatabase,
  kind: RecordKind,
  id: string,
  change: (current: T | undefined) => RecordChange<T>,
): Promise<{ changed: boolean; value: T | undefined }> {
  return db.transaction(async (client) => {
    for (;;) {
      const stored = (
        await client.query<{ value: T }>('SELECT value FROM lb_records WHERE kind = $1 AND id = $2 FOR UPDATE', [
          kind,
          id,
        ])
      ).rows[0]?.value;
      const current = stored === undefined ? undefined : opened(db.secrets, kind, id, stored);
      const decided = change(current);
      if (decided === undefined) return { changed: false, value: current };
      if ('delete' in decided) {
        if (current === undefined) return { changed: false, value: undefined };
        await client.query('DELETE FROM lb_records WHERE kind = $1 AND id = $2', [kind, id]);
        return { changed: true, value: undefined };
      }
      const value = JSON.stringify(db.secrets.seal(kind, id, decided.put, stored));
      if (current !== undefined) {
        await client.query('UPDATE lb_records SET value = $3, updated_at = now() WHERE kind = $1 AND id = $2', [
          kind,
          id,
          value,
        ]);
        return { changed: true, value: decided.put };
      }
      const insert =
        'INSERT INTO lb_records (kind, id, value, updated_at) VALUES ($1, $2, $3, now()) ON CONFLICT (kind, id) DO NOTHING';
      const inserted = await client.query(insert, [kind, id, value]);
      if ((inserted.rowCount ?? 0) > 0) return { changed: true, value: decided.put };
    }
  });
}

export async function getRecord<T>(db: PgDatabase, kind: RecordKind, id: string): Promise<T | undefined> {
  const value = (await db.query<{ value: T }>('SELECT value FROM lb_records WHERE kind = $1 AND id = $2', [kind, id]))
    .rows[0]?.value;
  return value === undefined ? undefined : opened(db.secrets, kind, id, value);
}

export async function deleteRecord(db: PgDatabase, kind: RecordKind, id: string): Promise<void> {
  await db.write('DELETE FROM lb_records WHERE kind = $1 AND id = $2', [kind, id]);
}

/** The records of a kind whose ids start with `under` ('' for all). */
export async function listRecords<T>(
  db: PgDatabase,
  kind: RecordKind,
  under = '',
): Promise<Array<{ id: string; value: T }>> {
  return (
    await db.query<{ id: string; value: T }>(
      'SELECT id, value FROM lb_records WHERE kind = $1 AND starts_with(id, $2) ORDER BY id',
      [kind, under],
    )
  ).rows.map((row) => ({ id: row.id, value: opened(db.secrets, kind, row.id, row.value) }));
}

/** A record as another ledger will take it: its secrets opened (that ledger seals them with its own key). */
export const exportedRecord = <T>(db: PgDatabase, kind: RecordKind, id: string, stored: T): T =>
  opened(db.secrets, kind, id, stored);

/**
 * Seals the plain secrets of the kinds that hold them and re-seals those
 * under the previous key, in one transaction on `client`: the migration
 * lock's session, so one instance at a time does it.
 */
export async function resealRecords(client: pg.Client, secrets: RecordSecrets): Promise<ResealReport> {
  const report: ResealReport = { sealed: 0, resealed: 0 };
  if (!secrets.sealing) return report;
  await client.query('BEGIN');
  try {
    const { rows } = await client.query<{ kind: RecordKind; id: string; value: unknown }>(
      'SELECT kind, id, value FROM lb_records WHERE kind = ANY($1) ORDER BY kind, id FOR UPDATE',
      [secrets.kinds],
    );
    for (const row of rows) {
      const resealed = secrets.reseal(row.kind, row.id, row.value);
      if (!resealed) continue;
      await client.query('UPDATE lb_records SET value = $3, updated_at = now() WHERE kind = $1 AND id = $2', [
        row.kind,
        row.id,
        JSON.stringify(resealed.value),
      ]);
      report.sealed += resealed.sealed;
      report.resealed += resealed.resealed;
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return report;
}

export async function countSecrets(client: Queryable, secrets: RecordSecrets): Promise<SecretCounts> {
  const counts = noSecrets();
  const { rows } = await client.query<{ kind: RecordKind; value: unknown }>(
    'SELECT kind, value FROM lb_records WHERE kind = ANY($1)',
    [secrets.kinds],
  );
  for (const row of rows) secrets.count(row.kind, row.value, counts);
  return counts;
}
