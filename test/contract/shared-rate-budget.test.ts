// The budget of an account shared by several instances through PostgreSQL
// (issue 33), against a real server: an instance learns the key's window
// from the database's answers, says when it is spent, and a call given a
// place that finds the window spent by another instance for longer than a
// slice is not sent, so that its order is let go instead of holding a slot.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESERVE_LEAD_MS } from '../../src/loyalty/places.ts';
import { BudgetSpentError, planRateLimit } from '../../src/loyalty/rate-limiter.ts';
import { eventually } from '../helpers/engine.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { freshStore, openStoreOn, type OpenedTestStore } from '../helpers/postgres-store.ts';

const LIMIT = 120;
const WINDOW_MS = 60_000;
const plan = planRateLimit(LIMIT, WINDOW_MS, 2, 250);

describe.skipIf(!postgresAvailable())('a budget shared through PostgreSQL', () => {
  let first: Awaited<ReturnType<typeof freshStore>>;
  let second: OpenedTestStore;
  let looking: pg.Pool;
  beforeAll(async () => {
    first = await freshStore();
    second = await openStoreOn(first.database.url);
    looking = new pg.Pool({ connectionString: first.database.url, max: 1 });
  });
  afterAll(async () => {
    await looking?.end();
    await second?.close();
    await first?.close();
  });

  /**
   * holdFor writes its block in the background (nothing awaits it): waits until the key's row shows it, so that
   * what follows meets the block however long the write took, not only when it landed within a sleep. (The row
   * is named by a digest of the API key, as open-postgres.ts makes it.)
   */
  async function blockWritten(apiKey: string): Promise<void> {
    const row = `loyalty:${createHash('sha256').update(apiKey).digest('hex').slice(0, 24)}`;
    await eventually(async () => {
      const { rows } = await looking.query<{ points: number }>('SELECT points FROM lb_rate_limit WHERE key = $1', [
        row,
      ]);
      expect(rows[0]?.points ?? 0).toBeGreaterThan(plan.callsPerSlice);
    });
  }

  it('is spent once this instance’s calls fill the window, until the window ends', async () => {
    const limiter = first.sharedLimiter(LIMIT, 'budget-window-key', WINDOW_MS);
    for (let i = 0; i < plan.callsPerSlice; i++) {
      const answer = limiter.reserve();
      expect(answer.spent).toBe(false);
      if (!answer.spent) await limiter.schedule(async () => 'sent', answer.place);
    }
    const answer = limiter.reserve();
    expect(answer.spent).toBe(true);
    if (answer.spent) expect(answer.until).toBeLessThanOrEqual(Date.now() + plan.sliceMs - RESERVE_LEAD_MS);
  });

  it('does not send a call whose place another instance’s wait took away, and says until when', async () => {
    const key = 'budget-held-key';
    const here = first.sharedLimiter(LIMIT, key, WINDOW_MS);
    const there = second.sharedLimiter(LIMIT, key, WINDOW_MS);
    // The other instance was told by the service to wait (a 429's Retry-After): the key is blocked in the database.
    there.holdFor(60_000);
    await blockWritten(key);
    const answer = here.reserve();
    expect(answer.spent).toBe(false);
    let sent = false;
    const call = answer.spent
      ? Promise.resolve()
      : here.schedule(async () => {
          sent = true;
        }, answer.place);
    await expect(call).rejects.toBeInstanceOf(BudgetSpentError);
    expect(sent).toBe(false);
    // This instance knows now: no place until the wait is over.
    const after = here.reserve();
    expect(after.spent).toBe(true);
    if (after.spent) expect(after.until).toBeGreaterThan(Date.now() + 30_000);
  });

  it('sends again soon after a wait of 0 s (a Retry-After of 0, or a date already past), on every instance', async () => {
    const key = 'budget-no-wait-key';
    const here = first.sharedLimiter(LIMIT, key, WINDOW_MS);
    const there = second.sharedLimiter(LIMIT, key, WINDOW_MS);
    here.holdFor(0);
    await blockWritten(key);
    // The library would have written a wait without end; every call of the key would have waited for ever.
    const started = Date.now();
    await expect(there.schedule(async () => 'sent')).resolves.toBe('sent');
    await expect(here.schedule(async () => 'sent')).resolves.toBe('sent');
    // A block of a second, then a take each: soon, not for ever (the bound only tells a wait without end from one).
    expect(Date.now() - started).toBeLessThan(15_000);
    await here.onIdle();
  });

  it('is idle again after a call that was not sent (its budget spent elsewhere)', async () => {
    const key = 'budget-idle-key';
    const here = first.sharedLimiter(LIMIT, key, WINDOW_MS);
    second.sharedLimiter(LIMIT, key, WINDOW_MS).holdFor(60_000);
    await blockWritten(key);
    const answer = here.reserve();
    if (answer.spent) throw new Error('the first reserve finds the window open');
    const call = here.schedule(async () => 'sent', answer.place);
    // Asked while the call waits for its point: answered once the call is refused, with nothing queued or running.
    const idle = here.onIdle().then(() => 'idle');
    await expect(call).rejects.toBeInstanceOf(BudgetSpentError);
    await expect(Promise.race([idle, sleep(1_000).then(() => 'waiting')])).resolves.toBe('idle');
  });

  it('gives the storefront its part of a slice once this instance carries live calls, and the rest to them', async () => {
    const limiter = first.sharedLimiter(LIMIT, 'budget-storefront-key', WINDOW_MS);
    // A live call the instance sent: each slice keeps 2 × 1 / LIVE_SLICES (rounded up) + 1 places for live calls.
    const live = limiter.reserve();
    if (!live.spent) await limiter.schedule(async () => 'earn', live.place);
    const storefront = Array.from({ length: plan.callsPerSlice }, () => limiter.reserve(0.2)).filter(
      (answer) => !answer.spent,
    );
    expect(storefront).toHaveLength(plan.callsPerSlice - 2);
    // The slice's other place is a live order's (the first live call took one).
    expect(limiter.reserve().spent).toBe(false);
    expect(limiter.reserve().spent).toBe(true);
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
