// A make slower than the sweeper's repair window (REPAIR_MS): Shopify throttling, a store slow to answer. The
// repair looks for the code by its text, finds none yet, and lets the points go; the make lands in between and its
// Redeem marks the reservation 'issued'. The repair's release took 'issued' too, so the customer was given a code
// live in the store whose points were let go and whose record was dropped: their order redeems nothing and the
// merchant pays for the discount. Pinned in that exact order: the find answers, then the make lands and is marked.
import { afterAll, describe, expect, it } from 'vitest';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import { CoverChecks } from '../../src/core/storefront/cover-checks.ts';
import { CodeSweeper } from '../../src/core/storefront/code-sweeper.ts';
import { HOLDER_KIND, holderId } from '../../src/core/storefront/reservations.ts';
import { RewardCodes } from '../../src/core/storefront/reward-codes.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { FakeCodeStore } from '../helpers/fake-code-store.ts';
import { FIVE_OFF } from '../helpers/amount-off.ts';

const SHOP = 'acme.example';
const ADA = { email: 'ada@example.com' };
const HOLDER = holderId('acct', ADA);
const REPAIR = 2 * 60_000;
const REWARD = FIVE_OFF;
const logger = createLogger({ level: 'silent' });

const stores: LowdbStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

describe('the sweeper’s repair of a make that lands while it looks', () => {
  it('never lets go the points of a code the customer was given and the store has', async () => {
    const store = new LowdbStore({ dataDir: tempDataDir(), settleAfterMs: 1 });
    await store.open();
    stores.push(store);
    let clock = Date.parse('2026-11-01T00:00:00Z');
    const now = () => new Date(clock);
    const fake = new FakeCodeStore();
    let landMake: () => void = () => undefined;
    let makeAsked: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => (makeAsked = resolve));
    fake.holdMake = { asked: () => makeAsked(), until: new Promise<void>((resolve) => (landMake = resolve)) };
    let redeemed: Promise<unknown> = Promise.resolve();
    const parts = {
      ...fake.parts,
      // The store is looked at before the make lands; then it lands, and its Redeem marks the code issued.
      find: async (shop: string, code: string) => {
        const before = await fake.parts.find(shop, code);
        landMake();
        await redeemed;
        return before;
      },
    };
    const balance = {
      approved: 500,
      redeemed: 0,
      held: 0,
      pending: 0,
      available: 500,
      pendingUntil: null,
      source: 'service' as const,
      missingElsewhere: false,
    };
    const reader = {
      pointsToRedeem: async () => ({ ok: true as const, points: { balance, history: [] }, readStartedAt: clock }),
      pointsNow: async () => ({ ok: true as const, points: { balance, history: [] }, readStartedAt: clock }),
      dropBalance: () => undefined,
    };
    const codesOf = () => parts;
    const codes = new RewardCodes({ store, codesOf, reader, logger, now });
    const account = { id: 'acct', pool: alone('acct') } as unknown as AccountRuntime;
    redeemed = codes.redeem({
      platform: 'testshop',
      shop: SHOP,
      customerId: '42',
      account,
      customer: ADA,
      reward: { ...REWARD, on: true },
    });
    await asked;
    // The make is still under way past the repair window.
    clock += REPAIR + 1;
    const sweeper = new CodeSweeper({
      store,
      codes,
      checks: new CoverChecks({ store, codesOf, reader, codes, logger, now }),
      codesOf,
      served: async () => true,
      accounts: { runtime: async () => undefined, forShop: async () => undefined },
      logger,
      now,
      repairMs: REPAIR,
    });
    await sweeper.sweep();
    const answer = await redeemed;
    const reservation = (await store.getRecord(HOLDER_KIND, HOLDER))?.reservations[0];
    const live = fake.live();
    // The customer was given the code; it is in the store; so its points are held for its order.
    expect(answer).toMatchObject({ kind: 'issued' });
    expect(live.map((each) => each.code)).toEqual([reservation?.code]);
    expect(reservation?.state).toBe('issued');
  });
});
