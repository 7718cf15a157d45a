// A make that lands after the sweeper let its points go (slower than REPAIR_MS), whose removal then fails (the store
// could not be reached): before, the failure was swallowed, and a code stayed usable in the store with no points
// behind it, at the merchant's cost. Now it is kept (orphan-codes.ts), and the sweeper's next pass removes it.
import { afterAll, describe, expect, it } from 'vitest';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import { CodeSweeper } from '../../src/core/storefront/code-sweeper.ts';
import { CoverChecks } from '../../src/core/storefront/cover-checks.ts';
import { ORPHAN_KIND } from '../../src/core/storefront/orphan-codes.ts';
import { HOLDER_KIND, holderId } from '../../src/core/storefront/reservations.ts';
import { RewardCodes } from '../../src/core/storefront/reward-codes.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { FakeCodeStore } from '../helpers/fake-code-store.ts';
import { FIVE_OFF } from '../helpers/amount-off.ts';

const SHOP = 'acme.example';
const ADA = { email: 'ada@example.com' };
const REPAIR = 2 * 60_000;
const REWARD = FIVE_OFF;
const logger = createLogger({ level: 'silent' });
const balance = {
  ...{ approved: 500, redeemed: 0, held: 0, pending: 0, available: 500, pendingUntil: null },
  ...{ source: 'service' as const, missingElsewhere: false },
};

const stores: LowdbStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

/** A make that lands after the sweeper let its points go, whose removal the store then fails: the code is kept. */
async function orphanKept() {
  const store = new LowdbStore({ dataDir: tempDataDir(), settleAfterMs: 1 });
  await store.open();
  stores.push(store);
  const clock = { now: Date.parse('2026-11-01T00:00:00Z') };
  const now = () => new Date(clock.now);
  const fake = new FakeCodeStore();
  let landMake: () => void = () => undefined;
  let makeAsked: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (makeAsked = resolve));
  fake.holdMake = { asked: () => makeAsked(), until: new Promise<void>((resolve) => (landMake = resolve)) };
  const read = async () => ({ ok: true as const, points: { balance, history: [] }, readStartedAt: clock.now });
  const reader = { pointsToRedeem: read, pointsNow: read, dropBalance: () => undefined };
  const codesOf = () => fake.parts;
  const codes = new RewardCodes({ store, codesOf, reader, logger, now });
  const account = { id: 'acct', pool: alone('acct') } as unknown as AccountRuntime;
  const reward = { ...REWARD, on: true };
  const redeemed = codes.redeem({ platform: 'testshop', shop: SHOP, customerId: '42', account, customer: ADA, reward });
  await asked;
  const sweeper = new CodeSweeper({
    ...{ store, codes, codesOf, logger, now, repairMs: REPAIR },
    checks: new CoverChecks({ store, codesOf, reader, codes, logger, now }),
    served: async () => true,
    accounts: { runtime: async () => undefined, forShop: async () => undefined },
  });
  // Past the repair window the store has no such code yet: its points are let go.
  clock.now += REPAIR + 1;
  await sweeper.sweep();
  expect((await store.getRecord(HOLDER_KIND, holderId('acct', ADA)))?.reservations[0]?.state).toBe('released');
  // Then the make lands, and the store cannot be reached to remove it.
  fake.failRemove = true;
  landMake();
  expect(await redeemed).toMatchObject({ kind: 'failed' });
  const [made] = fake.live();
  expect(made && fake.usable(made.code, '42', clock.now)).toBeDefined();
  expect(await store.listRecords(ORPHAN_KIND)).toHaveLength(1);
  return { store, fake, sweeper, clock, code: made!.code };
}

describe('a code made after its points were let go, whose removal fails', () => {
  it('is removed by the sweeper’s next pass, not left usable with no points behind it', async () => {
    const { store, fake, sweeper } = await orphanKept();
    // The next pass removes it: no code pays with points that were let go.
    await sweeper.sweep();
    expect(fake.live()).toEqual([]);
    expect(await store.listRecords(ORPHAN_KIND)).toEqual([]);
  });

  // Review D, finding C: the record went when the store refused the bridge, and a key mended later left the code paying.
  it('is kept while the store does not let the bridge in, and removed once it does again', async () => {
    const { store, fake, sweeper, clock, code } = await orphanKept();
    fake.accessGone = true;
    await sweeper.sweep();
    expect(fake.usable(code, '42', clock.now)).toBeDefined();
    expect(await store.listRecords(ORPHAN_KIND)).toHaveLength(1);
    // The merchant mends the key: the next pass removes the code.
    fake.accessGone = false;
    await sweeper.sweep();
    expect(fake.live()).toEqual([]);
    expect(await store.listRecords(ORPHAN_KIND)).toEqual([]);
  });

  it('is forgotten once it has expired, when the store still does not let the bridge in', async () => {
    const { store, fake, sweeper, clock } = await orphanKept();
    fake.accessGone = true;
    clock.now += (REWARD.expiresInDays - 1) * 86_400_000;
    await sweeper.sweep();
    expect(await store.listRecords(ORPHAN_KIND)).toHaveLength(1);
    // Past its expiry it pays for nothing: there is nothing left to remove.
    clock.now += 2 * 86_400_000;
    await sweeper.sweep();
    expect(await store.listRecords(ORPHAN_KIND)).toEqual([]);
  });
});
