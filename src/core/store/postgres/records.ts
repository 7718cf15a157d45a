// Small collections by kind and id (shops, sessions, reconciliation state,
// adjustments, resync jobs, privacy requests, platform health): the store
// keeps them, the core gives them meaning.
import type { RecordChange, RecordKind } from '../ledger-store.ts';
import type { PgDatabase, Queryable } from './database.ts';
import { upgradeRecord } from '../format/upgrade-records.ts';

export async function putRecord(client: Queryable, kind: RecordKind, id: string, value: unknown): Promise<void> {
  await client.query(
    'INSERT INTO lb_records (kind, id, value, updated_at) VALUES ($1, $2, $3, now()) ON CONFLICT (kind, id) DO UPDATE SET value = EXCLUDED.value, updated_at = now()',
    [kind, id, JSON.stringify(value)],
  );
}

/** The first writer's record wins: an insert that conflicts reads what is there instead. */
export async function addRecord<T>(
  db: PgDatabase,
  kind: RecordKind,
  id: string,
  value: T,
): Promise<{ added: boolean; value: T }> {
  for (;;) {
    const inserted = await db.write(
      'INSERT INTO lb_records (kind, id, value, updated_at) VALUES ($1, $2, $3, now()) ON CONFLICT (kind, id) DO NOTHING',
      [kind, id, JSON.stringify(value)],
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
      const current = (
        await client.query<{ value: T }>('SELECT value FROM lb_records WHERE kind = $1 AND id = $2 FOR UPDATE', [
          kind,
          id,
        ])
      ).rows[0]?.value;
      const decided = change(current === undefined ? undefined : upgradeRecord(kind, current));
      if (decided === undefined) return { changed: false, value: current };
      if ('delete' in decided) {
        if (current === undefined) return { changed: false, value: undefined };
        await client.query('DELETE FROM lb_records WHERE kind = $1 AND id = $2', [kind, id]);
        return { changed: true, value: undefined };
      }
      const value = JSON.stringify(decided.put);
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
  return value === undefined ? undefined : upgradeRecord(kind, value);
}

export async function deleteRecord(db: PgDatabase, kind: RecordKind, id: string): Promise<void> {
  await db.write('DELETE FROM lb_records WHERE kind = $1 AND id = $2', [kind, id]);
}

export async function listRecords<T>(db: PgDatabase, kind: RecordKind): Promise<Array<{ id: string; value: T }>> {
  return (
    await db.query<{ id: string; value: T }>('SELECT id, value FROM lb_records WHERE kind = $1 ORDER BY id', [kind])
  ).rows.map((row) => ({ id: row.id, value: upgradeRecord(kind, row.value) }));
}
