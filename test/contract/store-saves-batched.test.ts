// PostgreSQL's worker saves go through a group commit: saves made while
// others commit go together, one statement and one transaction. Each save
// must still answer as it would alone: 'saved' under its own lease, 'lost'
// when another holds the order, 'refolded' when new facts came in meanwhile;
// and a batch whose statement fails (before it reached the server, or after
// it committed and the answer was lost) fails every save in it, each of
// which then is wholly there or wholly not. The scheduler picks when each
// save starts and when each statement is let through.
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderRecord } from '../../src/core/order-record.ts';
import { PostgresStore } from '../../src/core/store/postgres/postgres-store.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { foldEvents, openStoreOn } from '../helpers/postgres-store.ts';

const ORDERS = 6;
let database: TestDatabase | undefined;

beforeAll(async () => {
  if (!postgresAvailable()) return;
  database = await freshDatabase();
  // Migrated once, by an ordinary open.
  const opened = await openStoreOn(database.url);
  await opened.close();
});
afterAll(async () => {
  await database?.drop();
});

type Fault = 'none' | 'before' | 'after';

/** A pool whose statements pass the scheduler's gate, and whose first batched save fails as armed. */
function gatedPool(pool: pg.Pool, gate: (what: string) => Promise<void>, fault: { armed: Fault }): pg.Pool {
  return new Proxy(pool, {
    get(target, name, receiver) {
      if (name === 'query')
        return async (text: string, values?: unknown[]) => {
          const batch = /^UPDATE lb_orders o SET progress/.test(text);
          if (batch) await gate(`save of ${(values?.[0] as string[]).length}`);
          const armed = batch ? fault.armed : 'none';
          if (armed !== 'none') fault.armed = 'none';
          if (armed === 'before') throw Object.assign(new Error('injected: connection lost'), { code: '08006' });
          const result = await target.query(text, values);
          if (armed === 'after') throw Object.assign(new Error('injected: answer lost'), { code: '08006' });
          return result;
        };
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe.skipIf(!postgresAvailable())('PostgreSQL: worker saves committed together', () => {
  it('answer each save as alone, and a failed batch leaves each of its saves whole or absent', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.constantFrom('mine', 'taken', 'refolded'), { minLength: ORDERS, maxLength: ORDERS }),
        fc.array(fc.boolean(), { minLength: ORDERS, maxLength: ORDERS }),
        fc.constantFrom<Fault>('none', 'before', 'after'),
        async (s, kinds, releases, armed) => {
          run++;
          const common = { connectionString: database!.url };
          const fault = { armed };
          const gate = s.scheduleFunction(async (_what: string) => undefined);
          const pools = {
            work: new pg.Pool({ ...common, max: 4 }),
            ack: new pg.Pool(common),
            lease: new pg.Pool(common),
          };
          // Every connection this run opens is ended by it: the database is dropped WITH (FORCE) after the file,
          // and a connection left open (an idle pool client, a session) would report that drop as an error.
          const sessions: pg.Client[] = [];
          for (const pool of Object.values(pools)) pool.on('error', () => undefined);
          const store = new PostgresStore({
            connections: {
              work: gatedPool(pools.work, gate, fault),
              ack: pools.ack,
              lease: pools.lease,
              session: async () => {
                const client = new pg.Client(common);
                client.on('error', () => undefined);
                sessions.push(client);
                await client.connect();
                return client;
              },
            },
            migrate: async () => undefined,
          });
          await store.open();
          try {
            const events = kinds.map((_, i) =>
              orderEvent({ shop: `batch-${run}`, orderId: String(900_000 + run * 100 + i), facts: ['placed', 'paid'] }),
            );
            const folded = await foldEvents(store, events);
            const claimed = new Map(
              (await store.claimDue('worker', ORDERS * 2, 60_000)).map((record) => [record.key, record]),
            );
            const records = folded.map((record) => claimed.get(record.key)!);
            expect(records.every(Boolean)).toBe(true);
            // Another instance took some orders over; new facts came in for others.
            for (const [i, kind] of kinds.entries()) {
              const record = records[i]!;
              if (kind === 'taken')
                await pools.work.query(`UPDATE lb_orders SET lease_owner = 'other' WHERE key = $1`, [record.key]);
              if (kind === 'refolded')
                await foldEvents(store, [
                  { ...events[i]!, deliveryId: `refund-${run}-${i}`, facts: ['partiallyRefunded'] },
                ]);
            }
            const saves = records.map((record, i) => {
              const mine: OrderRecord = structuredClone(record);
              mine.work.attempts = 7;
              mine.dueAt = null;
              return s.schedule(Promise.resolve(i)).then(() =>
                store.saveProgress(mine, { owner: 'worker', release: releases[i]!, leaseMs: 60_000 }).then(
                  (result) => ({ result }),
                  (error: unknown) => ({ error }),
                ),
              );
            });
            const answers = await s.waitFor(Promise.all(saves));
            for (const [i, answer] of answers.entries()) {
              const kind = kinds[i]!;
              const row = (
                await pools.work.query<{ attempts: number | null; lease_owner: string | null }>(
                  `SELECT (progress->'work'->>'attempts')::int AS attempts, lease_owner FROM lb_orders WHERE key = $1`,
                  [records[i]!.key],
                )
              ).rows[0]!;
              const applied = row.attempts === 7;
              if ('error' in answer) {
                // Its batch failed: the save is wholly there (the answer was lost) or wholly not.
                if (applied) expect(row.lease_owner).toBe(releases[i] ? null : 'worker');
                else expect(row.lease_owner).toBe(kind === 'taken' ? 'other' : 'worker');
                continue;
              }
              expect(answer.result).toBe(kind === 'taken' ? 'lost' : kind === 'refolded' ? 'refolded' : 'saved');
              expect(applied).toBe(kind !== 'taken');
              expect(row.lease_owner).toBe(kind === 'taken' ? 'other' : releases[i] ? null : 'worker');
            }
            // An armed fault struck at most one batch; with none armed, every save answered.
            if (armed === 'none') expect(answers.every((answer) => 'result' in answer)).toBe(true);
          } finally {
            await store.close();
            await Promise.all(Object.values(pools).map((pool) => pool.end()));
            await Promise.all(sessions.map((client) => client.end().catch(() => undefined)));
          }
        },
      ),
      { numRuns: Number(process.env.SAVES_BATCHED_RUNS ?? 15) },
    );
  });
});
