// Review of issue 64's uninstall rule (reward-privacy.ts shopUninstalled keeps a shop's open reservations held, as
// their codes pay until their expiry): what the sweeper then does with a shop the bridge no longer serves, whose store
// answers Shopify's and BigCommerce's 401 (an error that says nothing of access), for a code whose make landed but
// whose answer was lost, and for a code kept for removal (orphan-codes.ts).
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { CodeSweeper } from '../../src/core/storefront/code-sweeper.ts';
import { CoverChecks } from '../../src/core/storefront/cover-checks.ts';
import { ORPHAN_KIND, type OrphanCode } from '../../src/core/storefront/orphan-codes.ts';
import {
  CODE_KIND,
  HOLDER_KIND,
  codeIndexId,
  holderId,
  type Reservation,
} from '../../src/core/storefront/reservations.ts';
import { RewardCodes } from '../../src/core/storefront/reward-codes.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { FakeCodeStore } from '../helpers/fake-code-store.ts';
import { FIVE_OFF } from '../helpers/amount-off.ts';

const DAY = 86_400_000;
const SETTLE = 6 * 3_600_000;
const REPAIR = 2 * 60_000;
const SHOP = 'gone.example';
const CUSTOMER = { email: 'ada@example.com' };
const HOLDER = holderId('acct', CUSTOMER);
const CODE = 'LB-ABCDEFGHJKLMNPQR';
const logger = createLogger({ level: 'silent' });

const stores: LowdbStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

let store: LowdbStore;
let fake: FakeCodeStore;
let clock: number;
/** Set once the app is uninstalled: every call to the store is refused with a 401 that says nothing of access. */
let uninstalled: boolean;
/** What the uninstalled store's calls fail with instead, when set. */
let failure: Error | undefined;

beforeEach(async () => {
  store = new LowdbStore({ dataDir: tempDataDir(), settleAfterMs: 1 });
  await store.open();
  stores.push(store);
  fake = new FakeCodeStore();
  clock = Date.parse('2026-11-01T00:00:00Z');
  uninstalled = false;
  failure = undefined;
});

const refused = <T>(call: () => Promise<T>) =>
  uninstalled ? Promise.reject(failure ?? new Error('[API] Invalid API key or access token')) : call();

function sweeperOf(): CodeSweeper {
  const codes = {
    ...fake.parts,
    find: (shop: string, code: string) => refused(() => fake.parts.find(shop, code)),
    uses: (shop: string, id: string) => refused(() => fake.parts.uses(shop, id)),
    remove: (shop: string, id: string) => refused(() => fake.parts.remove(shop, id)),
  };
  const now = () => new Date(clock);
  const codesOf = () => codes;
  const reader = {
    pointsNow: () => Promise.reject(new Error('not read here')),
    pointsToRedeem: () => Promise.reject(new Error('not read here')),
    dropBalance: () => undefined,
  };
  const rewardCodes = new RewardCodes({ store, codesOf, reader, logger, now });
  return new CodeSweeper({
    ...{ store, codes: rewardCodes, codesOf, logger, now, settleMs: SETTLE, repairMs: REPAIR },
    checks: new CoverChecks({ store, codesOf, reader, codes: rewardCodes, logger, now }),
    served: async () => !uninstalled,
    accounts: { runtime: async () => undefined, forShop: async () => undefined },
  });
}

const stateNow = async () => (await store.getRecord(HOLDER_KIND, HOLDER))?.reservations[0]?.state;

describe('the sweeper, for a shop uninstalled while a code of it was being made', () => {
  it('keeps the points held of a code its store made (its answer lost), while the code still pays', async () => {
    // The make landed in the store; its answer was lost (a timeout, a crash), so the reservation is still 'reserving'.
    const made = await fake.parts.make({
      ...{ shop: SHOP, customerId: '42', code: CODE, title: 'Loyalty reward', minimumOrder: null },
      benefit: FIVE_OFF.benefit,
      ...{ startsAt: new Date(clock).toISOString(), expiresAt: new Date(clock + 7 * DAY).toISOString() },
      combinesWithOthers: true,
    });
    expect(made.kind).toBe('made');
    const reservation: Reservation = {
      ...{ id: 'r1', platform: 'shopify', shop: SHOP, customerId: '42', rewardId: 'rw1', points: 200 },
      ...{
        benefit: FIVE_OFF.benefit,
        code: CODE,
        state: 'reserving',
        expiresAt: new Date(clock + 7 * DAY).toISOString(),
      },
      createdAt: new Date(clock).toISOString(),
    };
    await store.putRecord(HOLDER_KIND, HOLDER, {
      account: 'acct',
      customer: CUSTOMER,
      reservations: [reservation],
    });
    await store.putRecord(CODE_KIND, codeIndexId('shopify', SHOP, CODE), {
      ...{ platform: 'shopify', shop: SHOP, holder: HOLDER, reservation: 'r1' },
      createdAt: reservation.createdAt,
    });
    // Then the app is uninstalled: shopUninstalled keeps the reservation held now; the store refuses the bridge.
    uninstalled = true;
    clock += REPAIR + 1;
    await sweeperOf().sweep();
    // The code pays in the store until its expiry (a reinstall, or the customer's checkout, can use it).
    expect(fake.usable(CODE, '42', clock)).toBeDefined();
    expect(await stateNow()).not.toBe('released');
  });
});

describe('the sweeper, for a code kept for removal in a shop uninstalled', () => {
  it('forgets it once the code has expired, and stops counting it failed on every pass', async () => {
    const orphan: OrphanCode = {
      ...{ platform: 'shopify', shop: SHOP, platformId: 'gid://fake/DiscountCode/9' },
      ...{ expiresAt: new Date(clock + 7 * DAY).toISOString(), at: new Date(clock).toISOString() },
    };
    await store.putRecord(ORPHAN_KIND, `shopify:${SHOP}:${orphan.platformId}`, orphan);
    uninstalled = true;
    // Long past the code's expiry: it pays for nothing more, and the store will never answer the bridge.
    clock += 30 * DAY;
    await expect(sweeperOf().sweep()).resolves.toMatchObject({ failed: 0 });
    expect(await store.listRecords(ORPHAN_KIND)).toEqual([]);
  });
});

describe('the sweeper, for an uninstalled shop whose store never answers again', () => {
  it('lets an issued code’s points go once it expired and settled, though the store’s errors look passing', async () => {
    const made = await fake.parts.make({
      ...{ shop: SHOP, customerId: '42', code: CODE, title: 'Loyalty reward', minimumOrder: null },
      benefit: FIVE_OFF.benefit,
      ...{ startsAt: new Date(clock).toISOString(), expiresAt: new Date(clock + 7 * DAY).toISOString() },
      combinesWithOthers: true,
    });
    if (made.kind !== 'made') throw new Error('not made');
    const reservation: Reservation = {
      ...{ id: 'r1', platform: 'shopify', shop: SHOP, customerId: '42', rewardId: 'rw1', points: 200 },
      ...{
        benefit: FIVE_OFF.benefit,
        code: CODE,
        state: 'issued',
        platformId: made.platformId,
      },
      ...{ expiresAt: new Date(clock + 7 * DAY).toISOString(), createdAt: new Date(clock).toISOString() },
    };
    await store.putRecord(HOLDER_KIND, HOLDER, {
      account: 'acct',
      customer: CUSTOMER,
      reservations: [reservation],
    });
    await store.putRecord(CODE_KIND, codeIndexId('shopify', SHOP, CODE), {
      ...{ platform: 'shopify', shop: SHOP, holder: HOLDER, reservation: 'r1' },
      createdAt: reservation.createdAt,
    });
    // Uninstalled, and the shop closed: its domain no longer answers (an error a client marks as one that may pass).
    uninstalled = true;
    failure = Object.assign(new Error('Shopify Admin API of gone.example did not answer (ENOTFOUND)'), {
      transient: true,
    });
    // A year on, the code has long paid for nothing, and the bridge serves no such shop: the points are not held for good.
    clock += 365 * DAY;
    await sweeperOf().sweep();
    expect(await stateNow()).toBe('released');
  });
});
