// The storefront's share of a budget shared by several instances through PostgreSQL (issue 51), against a real
// server: the customers' balance reads of every instance count against one share of the budget, and a live order
// waiting on one instance keeps every instance's storefront from taking places until its mark lapses (a mark
// written at most once a second per budget, however many live orders wait).
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import { REDEEM_PART } from '../../src/core/storefront/storefront-places.ts';
import { planRateLimit, type RateLimiter } from '../../src/loyalty/rate-limiter.ts';
import { createSharedRateLimiter, LIVE_MARK_SECONDS } from '../../src/loyalty/shared-rate-limiter.ts';
import { windowTaker } from '../../src/core/store/postgres/rate-windows.ts';
import { budgetWorker, fakeAccount, foldOrder, reserveFrom } from '../helpers/budget-worker.ts';
import { eventually } from '../helpers/engine.ts';
import { accountReader } from '../helpers/storefront-budget.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { twoInstances, type OpenedTestStore } from '../helpers/postgres-store.ts';

const LIMIT = 120;
const WINDOW_MS = 60_000;
const SHARE = 0.2;
const CAP = Math.floor(planRateLimit(LIMIT, WINDOW_MS, 2, 250).effectiveLimit * SHARE);
/** Page views' part of the share (the rest is kept for redemptions' reads: storefront-places.ts). */
const VIEW_CAP = Math.floor(planRateLimit(LIMIT, WINDOW_MS, 2, 250).effectiveLimit * SHARE * (1 - REDEEM_PART));
const FIGURES = { balance: { approved: 300, redeemed: 50, pending: 100, available: 250 }, earned: [], redeemed: [] };

/** One instance's storefront: its reader, and an account whose client's budget is the shared limiter given. */
function storefront(limiter: RateLimiter) {
  const calls: unknown[] = [];
  const account = {
    id: 'acct',
    pool: alone('acct'),
    client: {
      limiter,
      transactions: async (input: unknown) => {
        calls.push(input);
        return { ok: true, data: FIGURES, message: 'Success', attempts: 1 };
      },
    },
    policy: { pendingDays: 14 },
    reserveCall: () => limiter.reserve(),
  } as unknown as AccountRuntime;
  // This instance's own live orders never wait here: only the other instance's, through the database.
  const reader = accountReader(account, { share: SHARE });
  return { reader, account, calls };
}

describe.skipIf(!postgresAvailable())('the storefront’s share of a budget shared through PostgreSQL', () => {
  let instances: Awaited<ReturnType<typeof twoInstances>>;
  let first: Awaited<ReturnType<typeof twoInstances>>['first'];
  let second: OpenedTestStore;
  let looking: pg.Pool;
  let keys = 0;
  /** The two instances' limiters of one API key not used before, and that key. */
  const budget = () => {
    const key = `storefront-share-key-${keys++}`;
    return [first.sharedLimiter(LIMIT, key, WINDOW_MS), second.sharedLimiter(LIMIT, key, WINDOW_MS), key] as const;
  };
  /**
   * The live mark is written in the background (nothing awaits it): waits until the key's row shows it, read as
   * it is, so that waiting takes nothing of the share. (The row is named by a digest of the API key.)
   */
  async function liveMarked(apiKey: string, digest = true): Promise<void> {
    const row = `loyalty:live:${digest ? createHash('sha256').update(apiKey).digest('hex').slice(0, 24) : apiKey}`;
    await eventually(async () => {
      const { rows } = await looking.query<{ expire: string }>('SELECT expire FROM lb_rate_limit WHERE key = $1', [
        row,
      ]);
      expect(Number(rows[0]?.expire ?? 0)).toBeGreaterThan(Date.now());
    });
  }
  beforeAll(async () => {
    instances = await twoInstances();
    ({ first, second } = instances);
    looking = new pg.Pool({ connectionString: first.database.url, max: 1 });
    // A pool with no listener throws a connection's loss (the database dropped at the end) as an uncaught error.
    looking.on('error', () => undefined);
  });
  afterAll(async () => {
    await looking?.end();
    await instances?.close();
  });

  it('reads balances from both instances within one share of the limit, not one share each', async () => {
    const [here, there] = budget();
    const a = storefront(here);
    const b = storefront(there);
    // One after another, each instance in turn (their takes at once: the next test).
    const answers = [];
    for (let customer = 0; customer < 2 * VIEW_CAP; customer++) {
      const { reader, account } = customer % 2 === 0 ? a : b;
      answers.push(
        await reader.points(account, { email: `c${customer}@example.com` }, { platform: 'testshop', shop: 'acme' }),
      );
    }
    expect(VIEW_CAP).toBeGreaterThan(1);
    expect(a.calls.length + b.calls.length).toBe(VIEW_CAP);
    expect(a.calls.length).toBeGreaterThan(0);
    expect(b.calls.length).toBeGreaterThan(0);
    const refused = answers.filter((answer) => !answer.ok);
    expect(refused).toHaveLength(VIEW_CAP);
    // Asked to come back once the window has moved on, not in a moment.
    for (const answer of refused) if (!answer.ok) expect(answer.retryAfterSeconds).toBeGreaterThanOrEqual(30);
  });

  it('gives no more places than the share in a window, however the instances’ takes interleave', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 2 * CAP }), async (order) => {
        const [here, there] = budget();
        const answers = await Promise.all(order.map((mine) => (mine ? here : there).takeShare!(SHARE)));
        expect(answers.filter((answer) => answer.taken)).toHaveLength(Math.min(order.length, CAP));
        for (const answer of answers) if (!answer.taken) expect(answer.until).toBeGreaterThan(Date.now());
      }),
      { numRuns: 12 },
    );
  });

  it('takes no place while a live order waits on the other instance, and takes one again once the mark lapses', async () => {
    const [here, there, key] = budget();
    const { reader, account, calls } = storefront(here);
    // The other instance's worker let a live order of the budget go to wait for a place.
    there.markLiveWaiting!();
    await liveMarked(key);
    expect(await reader.points(account, { email: 'ada@example.com' }, { platform: 'testshop', shop: 'acme' })).toEqual({
      ok: false,
      retryAfterSeconds: 30,
    });
    expect(calls).toHaveLength(0);
    // Not marked again: the order had its place. The mark lapses on its own, and the storefront reads again.
    await eventually(
      async () =>
        expect(
          await reader.points(account, { email: 'ada@example.com' }, { platform: 'testshop', shop: 'acme' }),
        ).toMatchObject({ ok: true }),
      (LIVE_MARK_SECONDS + 3) * 1000,
    );
    expect(calls).toHaveLength(1);
  });

  it('writes the mark once however many of its live orders an instance lets go within a second', async () => {
    // The statements sent to the database, counted: the mark is the library's forced upsert (its block), sent on
    // a connection of the pool's.
    const pool = new pg.Pool({ connectionString: first.database.url, max: 2 });
    pool.on('error', () => undefined);
    const sent: string[] = [];
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
        sent.push((args[0] as { name?: string })?.name ?? '');
        return query(...args);
      };
    });
    try {
      const key = 'storefront-share-marks';
      const limiter = createSharedRateLimiter({ pool, take: windowTaker(pool, 5_000), limit: LIMIT, key });
      for (let order = 0; order < 20; order++) limiter.markLiveWaiting!();
      // This limiter is given its key as is (the bridge gives it a digest).
      await liveMarked(key, false);
      expect(sent.filter((name) => name === 'lb_rate_limit:rlflx-upsert-force')).toHaveLength(1);
    } finally {
      await pool.end();
    }
  });

  it('takes no place while the other instance’s worker has a live order of the budget waiting for one', async () => {
    const [here, there, key] = budget();
    const { reader, account, calls } = storefront(here);
    // The other instance's account, on the same budget: spent there (its places went to its other orders).
    const earned: string[] = [];
    const waiting = fakeAccount('A', earned, { reserveCall: reserveFrom({ places: 0, openAt: Date.now() + 60_000 }) });
    Object.assign(waiting.client, { limiter: there });
    const { worker, stop } = budgetWorker(second.store, [waiting], { 'shop-a': 'A' }, { pollMs: 50 });
    try {
      await foldOrder(second.store, 'live', 'shop-a');
      worker.start();
      await liveMarked(key);
      expect(
        await reader.points(account, { email: 'ada@example.com' }, { platform: 'testshop', shop: 'acme' }),
      ).toEqual({ ok: false, retryAfterSeconds: 30 });
      expect(calls).toHaveLength(0);
      expect(earned).toHaveLength(0);
    } finally {
      await stop();
    }
  });
});
