// The shared rate limit's windows taken in batches (src/core/store/postgres/
// rate-windows.ts), against a real server: takes of several keys, and of one
// key several times, in one statement each get the answer they would have had
// alone, while another instance's batches and an older release's single
// takes (rate-limiter-flexible's own) count in the same rows, and statements
// fail on the way.
import * as fc from 'fast-check';
import pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeFromWindows, windowTaker } from '../../src/core/store/postgres/rate-windows.ts';
import type { WindowTake } from '../../src/loyalty/shared-rate-limiter.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { freshStore } from '../helpers/postgres-store.ts';

const RUNS = Number(process.env.RATE_WINDOWS_RUNS ?? 25);
const WINDOW_MS = 60_000;

/** The limiter of a release before the batches: rate-limiter-flexible's own, on the same table and key prefix. */
const olderRelease = (pool: pg.Pool, points: number, windowMs: number) =>
  new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: 'lb_rate_limit',
    tableCreated: true,
    keyPrefix: 'loyalty',
    points,
    duration: windowMs / 1000,
  });

describe.skipIf(!postgresAvailable())('rate windows taken in batches', () => {
  let opened: Awaited<ReturnType<typeof freshStore>>;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    // The bridge's own migrations make the table, as an instance finds it.
    opened = await freshStore();
    for (let i = 0; i < 2; i++) {
      const pool = new pg.Pool({ connectionString: opened.database.url, max: 3 });
      // pool.end() answers before its connections have closed: the database's drop may end one, which is no error here.
      pool.on('error', () => undefined);
      pools.push(pool);
    }
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await opened?.close();
  });

  it('answers each take of a key its own count, several of one key in one statement, and starts an ended window again', async () => {
    const [pool] = pools;
    const takes: WindowTake[] = [
      { key: 'loyalty:alone-b', durationMs: WINDOW_MS },
      { key: 'loyalty:alone-a', durationMs: WINDOW_MS },
      { key: 'loyalty:alone-b', durationMs: WINDOW_MS },
      { key: 'loyalty:alone-b', durationMs: WINDOW_MS },
    ];
    const answers = await takeFromWindows(pool!, takes);
    expect(answers.map((answer) => answer.consumed)).toEqual([1, 1, 2, 3]);
    for (const answer of answers) expect(answer.expiresAt).toBeGreaterThan(Date.now() + WINDOW_MS - 5_000);
    expect((await takeFromWindows(pool!, [takes[0]!]))[0]!.consumed).toBe(4);

    const short: WindowTake = { key: 'loyalty:short', durationMs: 20 };
    expect((await takeFromWindows(pool!, [short, short]))[1]!.consumed).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect((await takeFromWindows(pool!, [short]))[0]!.consumed).toBe(1);
  });

  it('starts a window the library wrote without an end (a wait of 0 s) again, rather than keeping it for ever', async () => {
    const library = olderRelease(pools[0]!, 5, 1_000);
    await library.block('endless', 0);
    const { rows } = await pools[0]!.query<{ expire: string | null }>(
      "SELECT expire FROM lb_rate_limit WHERE key = 'loyalty:endless'",
    );
    expect(rows[0]!.expire).toBeNull();
    const [answer] = await takeFromWindows(pools[0]!, [{ key: 'loyalty:endless', durationMs: WINDOW_MS }]);
    expect(answer!.consumed).toBe(1);
    expect(answer!.expiresAt).toBeGreaterThan(Date.now());
  });

  it('fails the takes of a statement not answered in time, and answers the next once the row is free', async () => {
    const take = windowTaker(pools[0]!, 300);
    const key = 'loyalty:held';
    await take({ key, durationMs: WINDOW_MS });
    // Another transaction holds the row: this side stops waiting for an answer after 300 ms.
    const holder = await pools[1]!.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM lb_rate_limit WHERE key = $1 FOR UPDATE', [key]);
      const started = Date.now();
      await expect(take({ key, durationMs: WINDOW_MS })).rejects.toThrow(/timeout/i);
      expect(Date.now() - started).toBeLessThan(5_000);
      await holder.query('ROLLBACK');
    } finally {
      holder.release();
    }
    expect((await take({ key, durationMs: WINDOW_MS })).consumed).toBeGreaterThanOrEqual(2);
  });

  it(`never gives two takes of a key the same count, nor skips one, over ${RUNS} runs of two instances and an older release racing with failed statements`, async () => {
    let run = 0;
    const stats = { takes: 0, failed: 0, statements: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.array(
            fc.record({
              who: fc.constantFrom('first', 'second', 'library'),
              key: fc.nat(2),
            }),
            { minLength: 1, maxLength: 12 },
          ),
          { minLength: 1, maxLength: 8 },
        ),
        fc.array(fc.nat(2), { minLength: 8, maxLength: 8 }),
        fc.array(fc.constantFrom(false, false, false, true), { minLength: 24, maxLength: 24 }),
        async (ticks, pauses, failures) => {
          run++;
          const keyOf = (key: number) => `loyalty:run-${run}-key-${key}`;
          // Each instance's statements go through a pool that fails some of them before they are sent.
          let statement = 0;
          const failing = (pool: pg.Pool) =>
            ({
              query: (config: pg.QueryConfig) => {
                stats.statements++;
                return failures[statement++ % failures.length]
                  ? Promise.reject(new Error('injected: the connection broke'))
                  : pool.query(config);
              },
            }) as unknown as pg.Pool;
          const takers = {
            first: windowTaker(failing(pools[0]!), 5_000),
            second: windowTaker(failing(pools[1]!), 5_000),
          };
          const library = olderRelease(pools[1]!, 1_000_000, WINDOW_MS);
          const answered = new Map<string, number[]>();
          const started: Array<Promise<void>> = [];
          for (const [index, tick] of ticks.entries()) {
            for (const { who, key } of tick) {
              stats.takes++;
              const counted = (consumed: number) => {
                answered.set(keyOf(key), [...(answered.get(keyOf(key)) ?? []), consumed]);
              };
              if (who === 'library')
                started.push(
                  library.consume(keyOf(key).slice('loyalty:'.length)).then(
                    (res) => counted(res.consumedPoints),
                    (refusal: unknown) => {
                      if (refusal instanceof RateLimiterRes) counted(refusal.consumedPoints);
                      else throw refusal;
                    },
                  ),
                );
              else
                started.push(
                  takers[who]({ key: keyOf(key), durationMs: WINDOW_MS }).then(
                    (answer) => counted(answer.consumed),
                    () => void stats.failed++,
                  ),
                );
            }
            // The next takes start while these are under way, a turn or two of the event loop later.
            for (let turn = 0; turn < (pauses[index] ?? 0); turn++)
              await new Promise((resolve) => setImmediate(resolve));
          }
          await Promise.all(started);
          for (const [key, counts] of answered) {
            const { rows } = await pools[0]!.query<{ points: number }>(
              'SELECT points FROM lb_rate_limit WHERE key = $1',
              [key],
            );
            // Takes whose statement failed before it was sent count nowhere: the row holds exactly the answers.
            expect(rows[0]?.points, `${key}'s window counted takes nobody was answered`).toBe(counts.length);
            expect(
              [...counts].sort((a, b) => a - b),
              `${key}'s takes were answered ${counts.join(', ')}`,
            ).toEqual(counts.map((_count, i) => i + 1));
          }
        },
      ),
      { numRuns: RUNS },
    );
    console.log(
      `rate windows: ${stats.takes} takes in ${RUNS} runs, ${stats.statements} statements, ${stats.failed} answered a failure`,
    );
    expect(stats.failed).toBeGreaterThan(0);
  }, 120_000);
});
