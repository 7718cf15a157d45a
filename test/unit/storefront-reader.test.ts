// The storefront's reader of a customer's points: through the account's budget after live orders and within its
// share, the balance kept answered with its age when there is no room, and the service's figures or the ledger's.
import { describe, expect, it } from 'vitest';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import { REFUSAL_KEPT_MS } from '../../src/core/storefront/customer-contacts.ts';
import { REDEEM_PART } from '../../src/core/storefront/storefront-places.ts';
import { BALANCE_FRESH_MS, StorefrontReader } from '../../src/core/storefront/storefront-reader.ts';
import { createLogger } from '../../src/logger.ts';
import { LoyaltyRejectedError } from '../../src/loyalty/errors.ts';
import { createRateLimiter, type RateLimiter } from '../../src/loyalty/rate-limiter.ts';

const CUSTOMER = { email: 'ada@example.com' };
const FIGURES = { balance: { approved: 300, redeemed: 50, pending: 100, available: 250 }, earned: [], redeemed: [] };

function world({ liveFirst = false, limit = 1000 } = {}) {
  let now = Date.parse('2026-05-01T10:00:00Z');
  const calls: unknown[] = [];
  const limiter = createRateLimiter({ limit, windowMs: 60_000 });
  const client = {
    limiter,
    transactions: async (input: unknown) => {
      calls.push(input);
      return { ok: true, data: FIGURES, message: 'Success', attempts: 1 };
    },
  };
  const state = { liveFirst };
  const account = {
    id: 'acct',
    pool: alone('acct'),
    client,
    policy: { pendingDays: 14 },
    reserveCall: () => limiter.reserve(),
  } as unknown as AccountRuntime;
  const reader = new StorefrontReader({
    accounts: { forShop: async () => 'acct', runtime: async () => account },
    store: {
      customerOrders: async () => [],
    },
    liveFirst: () => state.liveFirst,
    share: 0.2,
    logger: createLogger({ level: 'silent' }),
    now: () => now,
  });
  return { reader, account, calls, state, advance: (ms: number) => (now += ms) };
}

/** The service refuses every read of the account with a 400 in these words. */
function refuseReads(account: AccountRuntime, serviceMessage: string) {
  (account.client as { transactions: unknown }).transactions = async () => {
    throw new LoyaltyRejectedError('rejected', false, 'rejected', {
      operation: 'transactions',
      httpStatus: 400,
      serviceMessage,
    });
  };
}

describe('the storefront reader', () => {
  it("reads the service's figures, available being approved less redeemed", async () => {
    const { reader, account } = world();
    const answer = await reader.points(account, CUSTOMER, { platform: 'testshop', shop: 'acme' });
    expect(answer).toMatchObject({
      ok: true,
      stale: false,
      points: { balance: { available: 250, pending: 100, source: 'service' } },
    });
  });

  it('takes no place while live orders of the budget wait: nothing kept, the customer is asked to try again', async () => {
    const { reader, account, calls } = world({ liveFirst: true });
    expect(await reader.points(account, CUSTOMER, { platform: 'testshop', shop: 'acme' })).toEqual({
      ok: false,
      retryAfterSeconds: 30,
    });
    expect(calls).toHaveLength(0);
  });

  it('answers the balance it kept, stale and with its age, while live orders come first', async () => {
    const { reader, account, calls, state, advance } = world();
    const first = await reader.points(account, CUSTOMER, { platform: 'testshop', shop: 'acme' });
    advance(BALANCE_FRESH_MS + 1_000);
    state.liveFirst = true;
    const later = await reader.points(account, CUSTOMER, { platform: 'testshop', shop: 'acme' });
    expect(later).toMatchObject({ ok: true, stale: true, asOf: first.ok ? first.asOf : '' });
    expect(calls).toHaveLength(1);
  });

  it('uses at most its share of the limit in a window, then asks to try again when the window moves on', async () => {
    // 80 a minute: the limiter plans fewer, a fifth of those is the storefront's, a quarter of that its views'.
    const { reader, account, calls } = world({ limit: 80 });
    const answers = [];
    for (let customer = 0; customer < 10; customer++)
      answers.push(
        await reader.points(account, { email: `c${customer}@example.com` }, { platform: 'testshop', shop: 'acme' }),
      );
    const share = calls.length;
    expect(share).toBe(
      Math.floor(createRateLimiter({ limit: 80, windowMs: 60_000 }).stats().effectiveLimit * 0.2 * (1 - REDEEM_PART)),
    );
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThan(10);
    expect(answers.at(-1)).toMatchObject({ ok: false });
    expect((answers.at(-1) as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThanOrEqual(30);
  });

  it("leaves the share to a limiter every instance shares, and this process's count unused", async () => {
    const { reader, account, calls } = world({ limit: 20 });
    // The same small limit, shared: the database's count says yes to all but the last (contract test: storefront-shared-share).
    const shares: number[] = [];
    const limiter = (account.client as unknown as { limiter: RateLimiter }).limiter;
    limiter.takeShare = async (share) => (
      shares.push(share),
      shares.length < 10 ? { taken: true } : { taken: false, until: undefined }
    );
    const answers = [];
    for (let customer = 0; customer < 10; customer++)
      answers.push(
        await reader.points(account, { email: `c${customer}@example.com` }, { platform: 'testshop', shop: 'acme' }),
      );
    expect(calls).toHaveLength(9);
    // Page views' part of the share: the rest is kept for redemptions' reads.
    expect(shares).toEqual(Array(10).fill(0.2 * (1 - REDEEM_PART)));
    expect(answers.at(-1)).toEqual({ ok: false, retryAfterSeconds: 30 });
  });

  it("reads again after the bridge's own call for the customer drops what it kept", async () => {
    const { reader, account, calls } = world();
    await reader.points(account, CUSTOMER, { platform: 'testshop', shop: 'acme' });
    await reader.points(account, CUSTOMER, { platform: 'testshop', shop: 'acme' });
    expect(calls).toHaveLength(1);
    reader.dropBalance('acct', { email: 'ADA@example.com' });
    await reader.points(account, CUSTOMER, { platform: 'testshop', shop: 'acme' });
    expect(calls).toHaveLength(2);
  });

  it('puts what it keeps of a customer in their export, and forgets it at their erasure', async () => {
    const { reader, account } = world();
    await reader.contact('tinyshop', 'acme', 'c1', async () => ({ email: 'ada@example.com' }));
    await reader.points(account, CUSTOMER, { platform: 'testshop', shop: 'acme' });
    const match = { emails: ['ada@example.com'], phones: [] };
    const kept = await reader.exportCustomer(match);
    expect(kept.contacts).toHaveLength(1);
    expect(kept.balances).toHaveLength(1);
    reader.eraseCustomer(match);
    expect(await reader.exportCustomer(match)).toEqual({ contacts: [], balances: [] });
  });

  // The service answers a phone with the customer of the e-mail last earned with it (src/sandbox/store.ts), and that
  // e-mail is whatever was typed at a checkout (reviews H and I of issue 64): what paired them need not be in the
  // ledger (an erased order, another account's), so a customer known by a phone alone is shown nothing.
  it('shows a customer known by a phone alone nothing, asking neither the ledger nor the service', async () => {
    const asked: unknown[] = [];
    const account = {
      id: 'acct',
      pool: alone('acct'),
      client: {},
      policy: { pendingDays: 14 },
    } as unknown as AccountRuntime;
    account.client.transactions = async (input: unknown) => asked.push(input) as never;
    const reader = new StorefrontReader({
      accounts: { forShop: async () => 'acct', runtime: async () => account },
      store: { customerOrders: async (who) => (asked.push(who), []) },
      liveFirst: () => false,
      share: 0.2,
      logger: createLogger({ level: 'silent' }),
    });
    for (const mobile of ['+447700900123', '+12125550142'])
      expect(await reader.points(account, { mobile }, { platform: 'testshop', shop: 'acme' })).toEqual({
        ok: false,
        needsEmail: true,
      });
    expect(asked).toEqual([]);
    // An e-mail is read as ever.
    await reader.points(account, { email: 'ada@example.com' }, { platform: 'testshop', shop: 'acme' });
    expect(asked.length).toBeGreaterThan(0);
  });

  it('reads 0 points, with nothing missing elsewhere, for a customer the service has never seen', async () => {
    const { reader, account } = world();
    refuseReads(account, 'no customer found for lp_email');
    const answer = await reader.points(account, { email: 'new@example.com' }, { platform: 'testshop', shop: 'acme' });
    expect(answer).toMatchObject({
      ok: true,
      points: { balance: { available: 0, pending: 0, source: 'ledger', missingElsewhere: false }, history: [] },
    });
  });

  it('keeps the caveat where the service refused the read for another reason', async () => {
    const { reader, account } = world();
    refuseReads(account, 'lp_type is not supported');
    const answer = await reader.points(account, { email: 'new@example.com' }, { platform: 'testshop', shop: 'acme' });
    expect(answer).toMatchObject({ ok: true, points: { balance: { source: 'ledger', missingElsewhere: true } } });
  });

  it('makes no code on the ledger’s count where the service refused a redemption’s read for another reason', async () => {
    const { reader, account } = world();
    refuseReads(account, 'Forbidden');
    // The ledger misses points spent elsewhere: the customer is told to try again, never given a code on it.
    const asked = { platform: 'testshop', shop: 'acme', needed: 50 };
    expect(await reader.pointsToRedeem(account, { email: 'ada@example.com' }, asked)).toMatchObject({ ok: false });
    // A customer the service says it never saw has nothing elsewhere: the ledger's count (0 here) answers.
    refuseReads(account, 'no customer found for lp_email');
    expect(await reader.pointsToRedeem(account, { email: 'new@example.com' }, asked)).toMatchObject({
      ok: true,
      points: { balance: { source: 'ledger', available: 0 } },
    });
  });

  it("forgets the shop's refused contacts at once when the platform may now give them", async () => {
    const { reader } = world();
    expect(await reader.contact('tinyshop', 'acme', 'c1', async () => 'not-allowed')).toBe('not-allowed');
    expect(await reader.contact('tinyshop', 'other', 'c1', async () => 'not-allowed')).toBe('not-allowed');
    reader.forgetRefusals('tinyshop', 'acme');
    const allowed = async () => ({ email: 'ada@example.com' });
    expect(await reader.contact('tinyshop', 'acme', 'c1', allowed)).toEqual({ email: 'ada@example.com' });
    // Another shop's refusal is its own.
    expect(await reader.contact('tinyshop', 'other', 'c1', allowed)).toBe('not-allowed');
  });

  it("gives the platform's refusal of a contact to every request that joined the read, and keeps it briefly", async () => {
    const { reader, advance } = world();
    let reads = 0;
    let refuse!: (answer: 'not-allowed') => void;
    const platform = () => (reads++, new Promise<'not-allowed'>((resolve) => (refuse = resolve)));
    const asked = [
      reader.contact('tinyshop', 'acme', 'c1', platform),
      reader.contact('tinyshop', 'acme', 'c1', platform),
    ];
    refuse('not-allowed');
    expect(await Promise.all(asked)).toEqual(['not-allowed', 'not-allowed']);
    expect(await reader.contact('tinyshop', 'acme', 'c1', platform)).toBe('not-allowed');
    expect(reads).toBe(1);
    advance(REFUSAL_KEPT_MS);
    // The merchant has allowed it since: the platform is asked again.
    expect(await reader.contact('tinyshop', 'acme', 'c1', async () => ({ email: 'ada@example.com' }))).toEqual({
      email: 'ada@example.com',
    });
  });
});
