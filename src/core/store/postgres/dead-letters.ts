// Dead letters: deliveries that could not be used, and calls the loyalty
// service refused for good, each kept whole (a delivery's raw bytes included)
// until a person retries or discards it.
import type { DeadLetter, NewDeadLetter } from '../ledger-store.ts';
import type { PgDatabase, Queryable } from './database.ts';
import { upgradeDeadLetter } from '../format/upgrade-records.ts';

/** An upsert by id: committing the same unusable entry twice keeps one letter. */
export async function insertDeadLetter(client: Queryable, letter: NewDeadLetter): Promise<void> {
  const created: DeadLetter = { retries: 0, ...letter, createdAt: letter.createdAt ?? new Date().toISOString() };
  await client.query(
    'INSERT INTO lb_dead_letters (id, created_at, platform, shop, order_key, letter) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING',
    [
      created.id,
      created.createdAt,
      created.platform ?? null,
      created.shop ?? null,
      created.orderKey ?? null,
      JSON.stringify(created),
    ],
  );
}

/** The letter as stored: a first one with the same id wins over this one. */
export async function addDeadLetter(db: PgDatabase, letter: NewDeadLetter): Promise<DeadLetter> {
  await insertDeadLetter(db.writer, letter);
  return (await getDeadLetter(db, letter.id))!;
}

export async function updateDeadLetter(db: PgDatabase, letter: DeadLetter): Promise<void> {
  await db.write('UPDATE lb_dead_letters SET letter = $2 WHERE id = $1', [letter.id, JSON.stringify(letter)]);
}

export async function removeDeadLetter(db: PgDatabase, id: string): Promise<DeadLetter | undefined> {
  const letter = (
    await db.write<{ letter: DeadLetter }>('DELETE FROM lb_dead_letters WHERE id = $1 RETURNING letter', [id])
  ).rows[0]?.letter;
  return letter && upgradeDeadLetter(letter);
}

export async function getDeadLetter(db: PgDatabase, id: string): Promise<DeadLetter | undefined> {
  const letter = (await db.query<{ letter: DeadLetter }>('SELECT letter FROM lb_dead_letters WHERE id = $1', [id]))
    .rows[0]?.letter;
  return letter && upgradeDeadLetter(letter);
}

export async function listDeadLetters(db: PgDatabase): Promise<DeadLetter[]> {
  return (
    await db.query<{ letter: DeadLetter }>('SELECT letter FROM lb_dead_letters ORDER BY created_at, id')
  ).rows.map((row) => upgradeDeadLetter(row.letter));
}

export async function countDeadLetters(db: PgDatabase): Promise<number> {
  return Number((await db.query<{ count: string }>('SELECT count(*) FROM lb_dead_letters')).rows[0]?.count ?? 0);
}
