// Takes of the shared loyalty rate limit (src/loyalty/shared-rate-limiter.ts), batched. The library takes a
// point with a statement and a commit of its own: half of the bridge's statements in a drain with every limit
// lifted. Here the takes in flight, of any keys, go as one statement in one commit. Each row changes as the
// library's own upsert changes it, so instances of an older release, which take through the library, share
// the windows.
import type { Pool, QueryConfig } from 'pg';
import type { WindowCount, WindowTake } from '../../../loyalty/shared-rate-limiter.ts';
import { retrying } from './database.ts';
import { GroupCommit, NO_DEADLINE_MS } from './group-commit.ts';

/**
 * Takes one point for each take, several of a key summed into one row change:
 * each take's count is the window's count before the statement plus its place
 * among that key's takes, so that each answer is the one it would have had
 * alone. A window that has ended starts again at the takes (the library's
 * rule, with this instance's clock, as the library uses); so does one with no
 * end, which the library writes for a wait of 0 s and then keeps for ever.
 * Keys in order: two instances' statements lock their rows in the same order.
 * `queryTimeoutMs` ends the wait for an answer on this side: a connection
 * that stopped answering cannot be cancelled by the server's statement timeout.
 */
export async function takeFromWindows(
  pool: Pool,
  takes: readonly WindowTake[],
  queryTimeoutMs?: number,
): Promise<WindowCount[]> {
  const byKey = new Map<string, { points: number; durationMs: number }>();
  for (const take of takes) {
    const entry = byKey.get(take.key);
    // A key's takes open a window of the first one's length (one key, one limiter: they agree).
    if (entry) entry.points++;
    else byKey.set(take.key, { points: 1, durationMs: take.durationMs });
  }
  const keys = [...byKey.keys()].sort();
  const now = Date.now();
  const statement: QueryConfig & { query_timeout?: number } = {
    ...(queryTimeoutMs === undefined ? {} : { query_timeout: queryTimeoutMs }),
    name: 'lb_take_from_windows',
    text: `INSERT INTO lb_rate_limit AS r (key, points, expire)
           SELECT key, points, expire FROM unnest($1::text[], $2::int[], $3::bigint[]) AS u(key, points, expire)
           ON CONFLICT (key) DO UPDATE SET
             points = CASE WHEN r.expire IS NULL OR r.expire <= $4 THEN excluded.points ELSE r.points + excluded.points END,
             expire = CASE WHEN r.expire IS NULL OR r.expire <= $4 THEN excluded.expire ELSE r.expire END
           RETURNING key, points, expire`,
    values: [keys, keys.map((key) => byKey.get(key)!.points), keys.map((key) => now + byKey.get(key)!.durationMs), now],
  };
  const { rows } = await pool.query<{ key: string; points: number; expire: string }>(statement);
  const after = new Map(rows.map((row) => [row.key, row]));
  const placed = new Map<string, number>();
  return takes.map(({ key }) => {
    const row = after.get(key)!;
    const place = placed.get(key) ?? 0;
    placed.set(key, place + 1);
    return { consumed: row.points - byKey.get(key)!.points + place + 1, expiresAt: Number(row.expire) };
  });
}

/**
 * Takes through a group commit on `pool`: what arrives while a statement is
 * under way goes in the next. A statement undone for a deadlock is tried
 * again (the library's cleanup of old windows deletes rows in the table's
 * order, a batch locks them in key order); one not answered within
 * `queryTimeoutMs` fails its takes, so that no call waits behind it for ever.
 */
export function windowTaker(pool: Pool, queryTimeoutMs: number): (take: WindowTake) => Promise<WindowCount> {
  const commit = new GroupCommit<WindowTake, WindowCount>({
    commit: (takes) => retrying(() => takeFromWindows(pool, takes, queryTimeoutMs)),
    // A key's takes go together: summed in one row change, not queued behind each other.
    keysOf: () => [],
    weightOf: () => 1,
    maxItems: 256,
    // A call waits for its point as long as its statement does (queryTimeoutMs, tries again included).
    deadlineMs: NO_DEADLINE_MS,
  });
  return (take) => commit.add(take);
}
